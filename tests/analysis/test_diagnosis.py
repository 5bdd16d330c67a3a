"""Tests of :mod:`privdtol.analysis.diagnosis`: the expected verdict of a claim or control, the
cause and follow-up of a verdict other than expected, and how the cells at fault are named."""

from __future__ import annotations

import re

from support.records import c2_record

from privdtol.analysis import diagnosis, records
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
        # the report prints them: no reference to the project's issue tracker
        text = " ".join((d["change"], d["why"], d["first_result"]))
        assert not re.search(r"\bissues? #?\d+", text, re.I), text


def test_diagnosis_of_a_wide_interval_and_of_an_uncaught_control():
    assert diagnosis.diagnose(c2_record()) == {
        "cells": "1 of 1: K=2",
        "cause": "interval too wide: the statistic [1, 2] straddles the threshold (thr)",
        "follow_up": "more cells along the series (a wider grid) or more Monte Carlo runs in "
        "the cells named; exact cells have no sampling noise, so their width is lack of fit",
    }
    for low, high in ((None, 2.0), (1.0, None), (None, None)):
        cause = diagnosis.diagnose(dict(c2_record(), ci_low=low, ci_high=high))["cause"]
        assert cause == "interval too wide: the statistic straddles the threshold (thr)"
    control = diagnosis.diagnose(c2_record("PASS", algorithm="uniform", control_of="C2"))
    assert control["cause"] == (
        "the negative control uniform passes the check [1, 2]: the check cannot tell it from "
        "the paper's algorithm on this configuration"
    )
    assert control["follow_up"] == (
        "a grid that reaches the regime where the control's defect shows (see its docstring)"
    )


def test_a_diagnosed_cell_is_labelled_by_its_loss_model_too():
    cell = {"env": "beta", "K": 2, "gap": 0.5, "kappa": 5.0, "verdict": "FAIL"}
    rec = dict(c2_record("FAIL"), cells=[cell])
    assert diagnosis.diagnose(rec)["cells"] == "1 of 1: env=beta, K=2, gap=0.5, kappa=5"


def _failed(*cell_list):
    return records.make_check(
        records.Heading("C2", "t", "s", "thr"), 2.0, 1.5, 2.5, "FAIL", "sum", cells=cell_list
    )


def test_a_diagnosed_cell_is_labelled_by_its_horizon_and_a_bare_series_by_its_word():
    cell = {"algorithm": "rps", "K": 2, "horizon": 1023, "verdict": "FAIL"}
    assert diagnosis.diagnose(_failed(cell))["cells"] == "1 of 1: algorithm=rps, K=2, horizon=1023"
    bare = {"K": None, "verdict": "FAIL"}
    assert diagnosis.diagnose(_failed(bare))["cells"] == "1 of 1: (series)"


def test_a_diagnosed_cell_names_its_epsilon_and_loss_model_parameters():
    cell = {"algorithm": "rps", "env": "correlated", "K": 2, "gap": 0.5, "epsilon": 0.25,
            "rho": 1.0, "horizon": 1023, "verdict": "FAIL"}  # fmt: skip
    assert diagnosis.diagnose(_failed(cell))["cells"] == (
        "1 of 1: algorithm=rps, env=correlated, K=2, gap=0.5, epsilon=0.25, rho=1, horizon=1023"
    )


def test_the_diagnosis_of_a_claim_beyond_its_threshold():
    cell = {"K": 2, "verdict": "FAIL"}
    assert diagnosis.diagnose(_failed(cell)) == {
        "cells": "1 of 1: K=2",
        "cause": "beyond the threshold: the statistic [1.5, 2.5] violates thr",
        "follow_up": "recompute the cells named with the explicit per-round engine (privdtol "
        "simulate --mode explicit) and by the exact engine; if they agree (claim C0), the "
        "finding is about the paper or the check's design, else about the simulator",
    }


def _inconclusive(n_cells):
    """An INCONCLUSIVE claim record whose ``n_cells`` cells (K = 1, 2, ...) are all
    INCONCLUSIVE, with a CI straddling its threshold."""
    return {
        "claim": "C4a",
        "algorithm": "rps",
        "control_of": None,
        "verdict": "INCONCLUSIVE",
        "ci_low": 0.9,
        "ci_high": 1.3,
        "threshold": "inside [0.8, 1.2]",
        "summary": "wide",
        "cells": [{"K": k, "verdict": "INCONCLUSIVE"} for k in range(1, n_cells + 1)],
    }


def test_a_diagnosis_names_six_offending_cells_and_counts_the_rest():
    """By default a diagnosis names at most 6 offending cells, separated by "; ": 6 of 6 are
    all named, of 7 the first 6 are named and the seventh counted ("and 1 more"), of 9 the
    last three ("and 3 more")."""
    names = "K=1; K=2; K=3; K=4; K=5; K=6"
    assert diagnosis.diagnose(_inconclusive(6))["cells"] == f"6 of 6: {names}"
    assert diagnosis.diagnose(_inconclusive(7))["cells"] == f"7 of 7: {names} and 1 more"
    assert diagnosis.diagnose(_inconclusive(9))["cells"] == f"9 of 9: {names} and 3 more"


def test_a_record_without_cells_is_diagnosed_as_no_data():
    """A record with no ``cells`` key at all is read as one with no cells: no cell named, the
    cause "no data" with the record's summary, and the follow-up word for word."""
    record = {"verdict": "INCONCLUSIVE", "summary": "No series of at least three rps cells."}
    assert diagnosis.diagnose(record) == {
        "cells": "none",
        "cause": "no data: No series of at least three rps cells.",
        "follow_up": "add the claim's experiments (or more cells per series) to the configuration",
    }
