"""Guards found by mutation testing of ``privdtol.analysis.claims`` (``make mutation
GROUPS=claims``, docs/testing.md), C0, C1, C2 and C5 (C3, C4 and the proof steps L4, L5:
tests/test_mutants_claims_rates.py): whole check records, every field, on small tables whose
numbers are computed here by hand (Theorem 1's bound at K = 8, gap = 1/2, eps = 2 is
1 + 1728 log 8), so that a dropped note, a renamed key, a lost input list or a wrong count in a
summary sentence fails."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from privdtol.analysis.claims import (
    c0_agreement,
    c1_privacy,
    c2_theorem1,
    c5_dependent,
)

#: Theorem 1 at K = 8, gap = 1/2, eps = 2 (eta = 1/8): 1 + 800 log 8 / (1/2) + 16 log 8 / (1/8)
BOUND_8 = 1 + 1728 * math.log(8)
#: C0's thresholds (the schema's defaults are 4 and 10; 3 puts the edge at a round number)
THRESHOLDS_C0 = {"agreement_z_max": 3.0, "agreement_min_events": 10}


def _z(confidence):
    return sps.norm.ppf(0.5 + confidence / 2)


def _rows(env, means, se, horizons=(1023, 4095), algorithm="rps"):
    """One rps cell (K = 8, gap = 1/2, eps = 2) of loss model ``env`` at ``horizons``."""
    return [
        {
            "experiment": "dependent",
            "cell_id": f"{env}-{algorithm}",
            "algorithm": algorithm,
            "env": env,
            "instance": "standard",
            "K": 8,
            "gap": 0.5,
            "epsilon": 2.0,
            "eta": 0.125,
            "mu_best": 0.25,
            "rho": 0.5 if env == "correlated" else np.nan,
            "kappa": np.nan,
            "horizon": h,
            "runs": 100,
            "mean": m,
            "se": se,
        }
        for h, m in zip(horizons, means, strict=True)
    ]


# ----------------------------------------------------------------------------- C0


def _agreement(mc_mean, mc_se, exact_mean, error_bound, runs=20, instance="standard", K=2):
    """One cell (rps, K, gap 1/2, eps 1) at T = 8, computed exactly and by Monte Carlo."""
    base = {
        "algorithm": "rps",
        "env": "bernoulli",
        "instance": instance,
        "K": K,
        "gap": 0.5,
        "epsilon": 1.0,
        "mu_best": np.nan,
        "rho": np.nan,
        "kappa": np.nan,
        "horizon": 8,
    }
    return pd.DataFrame(
        [
            {**base, "estimator": "exact", "runs": 0, "mean": exact_mean, "se": 0.0}
            | {"ci_high": exact_mean + error_bound},
            {**base, "estimator": "mc", "runs": runs, "mean": mc_mean, "se": mc_se}
            | {"ci_high": mc_mean + 1.96 * mc_se},
        ]
    )


def test_c0_at_its_edge_passes():
    """|2 - 0| beyond the error bound 0.5 is 1.5 = 3 se: exactly z_max = 3, which passes."""
    df = _agreement(2.0, 0.5, 0.0, 0.5)
    rec = c0_agreement.check({"agreement": df}, THRESHOLDS_C0, ["agg/agreement.parquet"])
    assert rec["statistic"] == 3.0
    assert rec["verdict"] == "PASS"
    assert rec["threshold"] == (
        "<= 3 standard errors in every pair (Bonferroni over the pairs); pairs with s.e. 0 "
        "within their bound"
    )
    assert rec["inputs"] == ["agg/agreement.parquet"]
    (cell,) = rec["cells"]
    assert cell == {
        "algorithm": "rps",
        "env": "bernoulli",
        "instance": "standard",
        "K": 2,
        "gap": 0.5,
        "epsilon": 1.0,
        "estimator": "mc",
        "runs": 20,
        "pairs": 1,
        "horizon": 8,
        "comparison": "z",
        "mc_mean": 2.0,
        "mc_se": 0.5,
        "exact": 0.0,
        "error_bound": 0.5,
        "z": 3.0,
        "bounded": 0,
        "bounded_disagree": 0,
        "verdict": "PASS",
    }
    false_fail = 2 * sps.norm.sf(3.0)  # one pair
    assert rec["summary"] == (
        "1 cells (rps; Monte Carlo estimators mc) computed both ways, 1 (cell, horizon) pairs. "
        "1 compared in standard errors: the largest distance is 3 (mean signed distance 3). 0 "
        "with s.e. 0 compared by a bound (error bound + rounding + what n equal runs allow by "
        f"chance): 0 disagree. Under agreement a FAIL has probability at most {false_fail:.2g} "
        "(Bonferroni)."
    )
    beyond = c0_agreement.check(
        {"agreement": _agreement(2.0 + 1e-6, 0.5, 0.0, 0.5)}, THRESHOLDS_C0, []
    )
    assert beyond["verdict"] == "FAIL" and beyond["cells"][0]["verdict"] == "FAIL"


@pytest.mark.parametrize(("runs", "kept"), [(20, True), (18, False)])
def test_c0_rare_events_edge_on_the_staircase(runs, kept):
    """Staircase K = 3, gap 1/2: means 0.25, 0.75, 1, so a run's regret is at most
    M = 8 * 0.75 = 6; with the exact regret 3, runs * (6 - 3) / 6 runs are expected below M:
    10 for 20 runs (kept: not fewer than 10), 9 for 18 (left out)."""
    df = _agreement(3.1, 0.5, 3.0, 0.0, runs=runs, instance="staircase", K=3)
    rec = c0_agreement.check({"agreement": df}, THRESHOLDS_C0, [])
    if kept:
        assert rec["verdict"] == "PASS" and "Left out" not in rec["summary"]
    else:
        assert rec["verdict"] == "INCONCLUSIVE"
        assert rec["summary"] == "No cell was computed both exactly and by Monte Carlo."
    pairs = c0_agreement.pair_table(df)
    np.testing.assert_allclose(c0_agreement.expected_departures(pairs), [runs / 2])


# ----------------------------------------------------------------------------- C1


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
        "Largest privacy loss found over 1 private algorithms and 1 values of eps is 0.250000 "
        "x eps (0 private cells over their bound); the negative controls were caught in 1/1 "
        "(algorithm, eps) cells."
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
        "(1 private cells over their bound); the negative controls were caught in 0/1"
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


# ----------------------------------------------------------------------------- C2


def test_c2_cells_in_parameter_order_and_eq2_names_its_claim():
    df = pd.DataFrame(_rows("bernoulli", [50.0, 100.0], 2.0))
    df2 = df.assign(K=4, cell_id="k4", mean=df["mean"] / 2)
    both = pd.concat([df, df2], ignore_index=True)  # K = 8 first, K = 4 second
    rec = c2_theorem1.check({"grid": both}, {"confidence": 0.95}, ["g.parquet"])
    assert [c["K"] for c in rec["cells"]] == [4, 8]
    eq2 = c2_theorem1.check_eq2({"grid": both}, {"confidence": 0.95}, ["g.parquet"])
    assert eq2["claim"] == "C2b"
    assert eq2["title"] == "Theorem 1, eq. (2): regret below 1000 (log K/gap + log K/eps)"
    # eq. (2) at K = 8, gap 1/2, eps 2: 1000 (2 log 8 + log 8 / 2) = 2500 log 8
    assert eq2["statistic"] == pytest.approx(100 / (2500 * math.log(8)), rel=1e-5)


def test_c2_without_cells_names_the_algorithm():
    rec = c2_theorem1.check_theorem1(
        pd.DataFrame(_rows("bernoulli", [1.0, 2.0], 0.1)), 0.95, "hedge", inputs=["a"]
    )
    assert rec["summary"] == "No hedge cells in the input."
    assert rec["algorithm"] == "hedge" and rec["inputs"] == ["a"]
    assert rec["verdict"] == "INCONCLUSIVE"


# ----------------------------------------------------------------------------- C5


def test_c5_record_by_hand():
    df = pd.DataFrame(
        _rows("correlated", [50.0, 100.0], 2.0)
        + _rows("beta", [150.0, 200.0], 4.0)
        + _rows("bernoulli", [5000.0, 9000.0], 1.0)  # not a dependent model: ignored
    )
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.95}, ["agg/dependent.parquet"])
    assert rec["claim"] == "C5"
    assert rec["title"] == "Dependent losses: Theorem 1's bound for correlated, beta losses"
    assert rec["statistic_label"] == "max over dependent cells of regret / Theorem-1 bound"
    assert rec["threshold"] == ("C2's bound (upper 95% limit <= 1) in every cell of every model")
    assert rec["inputs"] == ["agg/dependent.parquet"]
    assert rec["algorithm"] == "rps"
    assert rec["verdict"] == "PASS"
    # the largest ratio is beta's 200 / bound; its limits Bonferroni over beta's two rows
    z2, z = _z(1 - 0.05 / 2), _z(0.95)
    assert rec["statistic"] == pytest.approx(200 / BOUND_8, rel=1e-5)
    assert rec["ci_low"] == pytest.approx((200 - z2 * 4) / BOUND_8, rel=1e-5)
    assert rec["ci_high"] == pytest.approx((200 + z * 4) / BOUND_8, rel=1e-5)
    assert rec["interval"] == [rec["ci_low"], rec["ci_high"]]
    assert rec["summary"] == (
        "rps: sub-checks C2[correlated]=PASS, C2[beta]=PASS; largest regret/bound ratio "
        f"{200 / BOUND_8:.3g}."
    )
    corr, beta = rec["cells"]
    assert set(corr) == {
        "sub_check",
        "env",
        "verdict",
        "statistic",
        "ci_low",
        "ci_high",
        "threshold",
        "summary",
    }
    assert (corr["sub_check"], corr["env"], beta["env"]) == ("C2", "correlated", "beta")
    assert corr["statistic"] == pytest.approx(100 / BOUND_8, rel=1e-5)
    assert corr["ci_high"] == pytest.approx((100 + z * 2) / BOUND_8, rel=1e-5)
    assert corr["ci_low"] == pytest.approx((100 - z2 * 2) / BOUND_8, rel=1e-5)
    assert corr["threshold"] == "upper 95% limit of regret / bound <= 1 in every cell"
    note = " Beta cells stop at a short horizon; their largest available horizon is used."
    assert beta["summary"].endswith(note)
    assert not corr["summary"].endswith(note)
    assert corr["summary"].startswith("Over 1 distinct rps cells and 2 (cell, horizon) pairs")


def test_c5_fails_when_one_model_fails_and_names_it():
    df = pd.DataFrame(
        _rows("correlated", [50.0, 100.0], 2.0) + _rows("beta", [2 * BOUND_8, 3 * BOUND_8], 1.0)
    )
    rec = c5_dependent.check_dependent(df, 0.95)
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] == pytest.approx(3.0, rel=1e-5)
    assert "C2[correlated]=PASS, C2[beta]=FAIL" in rec["summary"]


def test_c5_without_dependent_cells_says_so():
    df = pd.DataFrame(_rows("bernoulli", [50.0, 100.0], 2.0))
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.9}, ["in.parquet"], "hedge")
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["summary"] == "No dependent-loss hedge cells in the input."
    assert rec["inputs"] == ["in.parquet"]
    assert rec["algorithm"] == "hedge"
    assert rec["threshold"] == "C2's bound (upper 90% limit <= 1) in every cell of every model"
    assert rec["statistic"] is None and rec["cells"] == []


def test_c5_blocked_control_checks_rps_on_blocked_losses():
    df = pd.DataFrame(_rows("blocked", [50.0, 100.0], 2.0) + _rows("beta", [1.0, 2.0], 0.1))
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.95}, [], "blocked")
    assert rec["title"] == "Dependent losses: Theorem 1's bound for blocked losses"
    assert rec["algorithm"] == "rps"
    assert [c["env"] for c in rec["cells"]] == ["blocked"]
    assert rec["statistic"] == pytest.approx(100 / BOUND_8, rel=1e-5)


def test_c5_with_dependent_cells_but_no_private_ones():
    """Correlated cells without eps: C2 ignores them (no data), so C5 has no statistic."""
    df = pd.DataFrame(_rows("correlated", [50.0, 100.0], 2.0)).assign(epsilon=np.nan)
    rec = c5_dependent.check_dependent(df, 0.95)
    assert rec["statistic"] is None and rec["ci_low"] is None and rec["ci_high"] is None
    assert rec["verdict"] == "INCONCLUSIVE"
