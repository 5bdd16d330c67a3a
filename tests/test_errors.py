"""Tests of :mod:`privdtol.errors`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.analysis.records import load_check
from privdtol.analysis.registry import CLAIMS
from privdtol.errors import InputError
from privdtol.pipeline.config import load_config
from privdtol.privacy.whole_sequence import sequence_log_law

# --- from tests/test_bad_input.py


@pytest.mark.parametrize("text", ['{"claim": "C3", "verd', "[1, 2]", "\xff"])
def test_truncated_check_json_named(tmp_path, text):
    from privdtol.analysis.records import read_check

    path = tmp_path / "C3.json"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as err:
        read_check(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


# --- from tests/test_exact_pipeline.py

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
    from privdtol.errors import InputError

    with pytest.raises(InputError) as err:
        load_config(config(exact="sometimes"))
    assert "exact" in str(err.value) and "auto" in str(err.value)


# --- from tests/test_mutants_privalg_round2.py


def test_the_sequence_law_refuses_more_than_2_to_the_20_sequences():
    """rps at T = 127 (R = 7): the prefix supports of blocks 1..5 have 1, 2, 4, 8, 16 points,
    so 2^10 combinations; at K = 3 that is 2^10 * 3^7 = 2239488 > 2^20 sequences."""
    with pytest.raises(InputError, match="1024 prefix combinations x 3"):
        sequence_log_law(make_algorithm("rps", 1.0), np.zeros((127, 3)))


# --- from tests/test_report.py


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
