"""Diagnoses of unexpected verdicts (privdtol.analysis.diagnosis): None for the expected
verdict, and the right cause for each way a record can go wrong."""

from __future__ import annotations

from privdtol.analysis.diagnosis import DEVIATIONS, diagnose, expected_verdict
from privdtol.analysis.registry import CLAIMS


def _record(verdict, cells=(), control_of=None, low=0.9, high=1.3):
    return {
        "claim": "C4a",
        "algorithm": "rps" if control_of is None else "rps_short_prefix",
        "control_of": control_of,
        "verdict": verdict,
        "ci_low": low,
        "ci_high": high,
        "threshold": "95% CI of p inside [0.8, 1.2] in every series",
        "summary": "No series of at least three rps cells.",
        "cells": list(cells),
    }


def test_expected_verdicts_need_no_diagnosis():
    assert diagnose(_record("PASS")) is None
    assert diagnose(_record("FAIL", control_of="C4a")) is None
    assert expected_verdict(_record("PASS", control_of="C4a")) == "FAIL"


def test_each_cause():
    cells = [{"K": 8, "epsilon": 8.0, "verdict": "INCONCLUSIVE"}, {"K": 16, "verdict": "PASS"}]
    wide = diagnose(_record("INCONCLUSIVE", cells))
    assert wide["cause"].startswith("interval too wide") and wide["cells"].startswith("1 of 2: K=8")
    empty = diagnose(_record("INCONCLUSIVE", (), low=None, high=None))
    assert empty["cause"].startswith("no data") and empty["cells"] == "none"
    fail = diagnose(_record("FAIL", [{"K": 2, "gap": 0.5, "verdict": "FAIL"}]))
    assert fail["cause"].startswith("beyond the threshold") and "explicit" in fail["follow_up"]
    missed = diagnose(_record("PASS", control_of="C4a"))
    assert "negative control rps_short_prefix passes" in missed["cause"]


def test_deviations_name_registered_claims():
    for d in DEVIATIONS:
        assert d["claim"] in CLAIMS and d["change"] and d["why"] and d["first_result"]
