"""Tests of :mod:`privdtol.errors`: bad input is reported as one :class:`InputError` line that
names the offending file or key."""

from __future__ import annotations

import json

import pytest

from privdtol.analysis.records import load_check, read_check
from privdtol.analysis.registry import CLAIMS
from privdtol.errors import InputError
from privdtol.pipeline.config import load_config


@pytest.mark.parametrize("text", ['{"claim": "C3", "verd', "[1, 2]", "\xff"])
def test_truncated_check_json_named(tmp_path, text):
    path = tmp_path / "C3.json"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as err:
        read_check(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


T20 = (1 << 20) - 1


def config(exact=None, **exp):
    base = {
        "name": "e",
        "algorithms": ["rps", "rnm_ftnl", "ftl"],
        "K": [4],
        "gap": [0.25],
        "epsilon": [0.5],
        "horizon": [T20],
    }
    base.update(exp)
    cfg = {"runs": 50, "seed": 7, "experiments": [base]}
    if exact is not None:
        cfg["exact"] = exact
    return cfg


def test_bad_exact_value_is_one_line_naming_the_key():
    with pytest.raises(InputError) as err:
        load_config(config(exact="sometimes"))
    assert "exact" in str(err.value) and "auto" in str(err.value)


def check_json(claim: str, verdict: str) -> dict:
    """A check record as privdtol check writes it, with text that needs escaping."""
    return {
        "claim": claim,
        "title": f"{CLAIMS[claim].title} & 1/ε_rate",
        "quote": CLAIMS[claim].quote,
        "source": CLAIMS[claim].source,
        "algorithm": "rps",
        "control_of": None,
        "interval": [0.91, 1.05],
        "statistic_label": "slope of log regret vs log(1/Δ)",
        "statistic": 0.98,
        "ci_low": 0.91,
        "ci_high": 1.05,
        "threshold": "CI within [0.8, 1.2]",
        "verdict": verdict,
        "summary": f"The {claim} check gave {verdict} (50% of cells).",
        "cells": [{"cell_id": "a", "mean": 1.0}],
        "inputs": [f"results/agg/{e}.parquet" for e in CLAIMS[claim].experiments],
        **(
            {"diagnosis": {"cells": "cells at K = 2", "cause": "eta <= 1/8", "follow_up": "x"}}
            if verdict == "FAIL" and claim == "C4a"
            else {}
        ),
    }


def test_check_records_are_validated(tmp_path):
    path = tmp_path / "C3.json"
    path.write_text(json.dumps({**check_json("C3", "PASS"), "verdict": "MAYBE"}))
    with pytest.raises(InputError, match=r"C3\.json: key 'verdict'"):
        load_check(path)
