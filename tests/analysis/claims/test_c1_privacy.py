"""Tests of :mod:`privdtol.analysis.claims.c1_privacy`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis.claims import (
    c1_privacy,
)


def _audit(role, algorithm, audit, loss, violation, K=4, block=np.nan, witness="w", **extra):
    return {
        "role": role,
        "algorithm": algorithm,
        "epsilon": 1.0,
        "audit": audit,
        "loss": loss,
        "bound_selection": 0.25,  # Lemma 3: 2 eta = 2 min(1/2, 1/8)
        "loss_lower": extra.get("lower", np.nan),
        "loss_upper": extra.get("upper", np.nan),
        "violation": violation,
        "K": K,
        "block": block,
        "witness": witness,
    }


def test_c1_record_by_hand_with_a_loss_at_its_bound():
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.25, False, block=3, witness="w1"),
            _audit("private", "rps", "whole_sequence", 0.24, False, witness="w2"),
            _audit("private", "rps", "statistical", np.nan, False, lower=0.1, upper=0.3),
            _audit("negative_control", "leaky", "exact_selection", 3.0, True, K=2, block=1),
        ]
    )
    unrelated = pd.DataFrame([_audit("private", "rps", "exact_selection", 9.0, True)])
    rec = c1_privacy.check({"privacy": df, "grid": unrelated}, {}, ["agg/privacy.parquet"])
    assert rec["verdict"] == "PASS"
    assert rec["inputs"] == ["agg/privacy.parquet"]
    assert rec["statistic"] == 0.25
    assert rec["summary"] == (
        "Largest privacy loss found for rps over 1 values of eps is 0.250000 x eps (0 rps "
        "cells over their bound); the negative controls were caught in 1/1 (algorithm, eps) "
        "cells."
    )
    control, private = rec["cells"]  # by role, algorithm, eps
    assert private == {
        "role": "private",
        "algorithm": "rps",
        "epsilon": 1.0,
        "loss_exact": 0.25,
        "bound_selection": 0.25,
        "ratio_eps": 0.25,
        "stat_lower": 0.1,
        "stat_upper": 0.3,
        "violation": False,
        "verdict": "PASS",
        "worst_audit": "exact_selection",
        "worst_K": 4,
        "worst_block": 3,
        "witness": "w1",
    }
    assert (control["verdict"], control["worst_K"], control["worst_block"]) == ("caught", 2, 1)


def test_c1_fails_on_a_loss_over_its_bound_and_an_uncaught_control():
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.26, False),
            _audit("negative_control", "leaky", "exact_selection", 0.5, False),
        ]
    )
    rec = c1_privacy.check_c1(df)
    assert rec["verdict"] == "FAIL"
    assert [c["verdict"] for c in rec["cells"]] == ["NOT caught", "FAIL"]
    assert rec["cells"][1]["worst_block"] is None
    assert (
        "(1 rps cells over their bound); the negative controls were caught in 0/1"
        in (rec["summary"])
    )
    empty = c1_privacy.check({"privacy": pd.DataFrame()}, {}, ["p"])
    assert empty["summary"] == "No privacy audit in the input."
    assert (empty["verdict"], empty["inputs"]) == ("INCONCLUSIVE", ["p"])


def test_c1_without_private_cells_fails():
    df = pd.DataFrame([_audit("negative_control", "leaky", "exact_selection", 3.0, True)])
    rec = c1_privacy.check_c1(df)
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] is None


def test_c1_without_a_negative_control_fails():
    """Private cells that pass but no control: the audit has shown nothing it can catch."""
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.2, False),
            _audit("private", "rps", "whole_sequence", 0.1, False),
        ]
    )
    rec = c1_privacy.check_c1(df, ["agg/privacy.parquet"])
    assert [c["verdict"] for c in rec["cells"]] == ["PASS"]
    assert rec["statistic"] == 0.2
    assert rec["verdict"] == "FAIL"
    assert rec["summary"] == (
        "Largest privacy loss found for rps over 1 values of eps is 0.200000 x eps (0 rps "
        "cells over their bound); the negative controls were caught in 0/0 (algorithm, eps) "
        "cells."
    )


@pytest.mark.parametrize(
    ("excess", "verdict"), [(0.0, "PASS"), (1e-12, "PASS"), (1e-7, "FAIL"), (1e-4, "FAIL")]
)
def test_c1_allows_only_rounding_over_lemma_3s_bound(excess, verdict):
    # the helper's cell: eps = 1, bound 2 eta = 0.25, no audit flagged a violation of eps
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.25 + excess, False),
            _audit("negative_control", "leaky", "exact_selection", 3.0, True),
        ]
    )
    rec = c1_privacy.check_c1(df)
    assert rec["verdict"] == verdict
    assert [c["verdict"] for c in rec["cells"]] == ["caught", verdict]


def test_c1_estimate_is_rps_own_loss_with_the_others_beside_it():
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.24, False),
            _audit("private", "rnm_ftnl", "exact_selection", 1.0, False),
            _audit("negative_control", "leaky", "exact_selection", 3.0, True),
        ]
    )
    df.loc[df.algorithm == "rnm_ftnl", "bound_selection"] = 1.0
    rec = c1_privacy.check({"privacy": df}, {}, [])
    assert rec["verdict"] == "PASS"
    assert rec["statistic"] == 0.24  # rps's, not the competitor's 1.0
    assert "over the 1 other private algorithms 1.000000 x eps" in rec["summary"]


def test_c1_control_records_fail_when_caught():
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.24, False),
            _audit("negative_control", "leaky", "exact_selection", 3.0, True),
            _audit("negative_control", "tight", "exact_selection", 0.5, False),
        ]
    )
    caught = c1_privacy.check({"privacy": df}, {}, [], algorithm="leaky")
    assert (caught["verdict"], caught["algorithm"], caught["statistic"]) == ("FAIL", "leaky", 3.0)
    missed = c1_privacy.check({"privacy": df}, {}, [], algorithm="tight")
    assert missed["verdict"] == "PASS"  # not caught: the report shows it as such
    absent = c1_privacy.check({"privacy": df}, {}, [], algorithm="other")
    assert absent["verdict"] == "INCONCLUSIVE"


def test_a_plugin_over_its_declared_bound_is_its_own_failure_not_proposition_1_s():
    """A plugin (softmax at 50 eta declared 2 eta-DP) caught by the audit turned C1 to FAIL
    with RPS's own loss quoted; now C1 keeps RPS's verdict and names the plugin."""
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.24, False),
            _audit("private", "hot_plugin", "exact_selection", 6.0, True),
            _audit("negative_control", "leaky", "exact_selection", 3.0, True),
        ]
    )
    rec = c1_privacy.check({"privacy": df}, {}, [])
    assert rec["verdict"] == "PASS" and rec["statistic"] == 0.24
    assert rec["summary"].endswith(
        "Failing their own privacy audit (their failure, not Proposition 1's): "
        "hot_plugin (1 cells)."
    )
    cell = next(c for c in rec["cells"] if c["algorithm"] == "hot_plugin")
    assert cell["verdict"] == "FAIL"
    # rps over its bound is still C1's failure
    df.loc[df.algorithm == "rps", ["loss", "violation"]] = [1.5, True]
    assert c1_privacy.check({"privacy": df}, {}, [])["verdict"] == "FAIL"
