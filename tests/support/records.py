"""Check records built by hand: a record as ``privdtol check`` writes it, a C2 record of
:func:`privdtol.analysis.records.make_check`, and a hand-written record for the heatmap
notebook's claim."""

from __future__ import annotations

from privdtol.analysis.records import Heading, make_check
from privdtol.analysis.registry import CLAIMS, notebook_claims


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


def c2_record(verdict="INCONCLUSIVE", **kw):
    """A C2 record of make_check: statistic 1.5 in [1, 2], one cell at K = 2 of ``verdict``."""
    return make_check(
        Heading("C2", "t", "s", "thr"),
        1.5,
        1.0,
        2.0,
        verdict,
        "sum",
        cells=[{"K": 2, "verdict": verdict}],
        **kw,
    )


#: the claim the heatmap notebook shows (the registry's)
HEATMAP_CLAIM = notebook_claims("heatmap")[0]

#: a check record no check computes: what the notebook shows must come from this file
HAND_CHECK = make_check(
    Heading(HEATMAP_CLAIM, "Hand-written record", "a statistic", "a threshold"),
    0.123,
    0.1,
    0.2,
    "FAIL",
    "hand-written summary 7f3a9c",
    [],
    ["x"],
)
