"""Guards found by mutation testing of ``privdtol.analysis.claims`` (``make mutation
GROUPS=claims``, docs/testing.md): whole check records, every field, on small tables whose
numbers are computed here by hand (Theorem 1's bound at K = 8, gap = 1/2, eps = 2 is
1 + 1728 log 8; the proof steps' ratios are quotients written out), so that a dropped note, a
renamed key, a lost input list or a wrong count in a summary sentence fails."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from privdtol.analysis.claims import c5_dependent, lemmas

#: Theorem 1 at K = 8, gap = 1/2, eps = 2 (eta = 1/8): 1 + 800 log 8 / (1/2) + 16 log 8 / (1/8)
BOUND_8 = 1 + 1728 * math.log(8)


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


# ----------------------------------------------------------------------------- L4, L5


def _proof(**columns):
    n = len(next(iter(columns.values())))
    base = {
        "experiment": ["grid"] * n,
        "cell_id": [f"c{i}" for i in range(n)],
        "algorithm": ["rps"] * n,
        "K": [4, 8, 16][:n],
        "gap": [0.5, 0.25, 0.125][:n],
        "epsilon": [1.0, 0.5, 0.25][:n],
        "eta": [0.125, 0.125, 0.125][:n],
    }
    return pd.DataFrame({**base, **columns})


def test_lemma5_record_by_hand():
    """Ratios 50/100, 80/90, 30/20 with errors 0.5, 2, 0.3: PASS, PASS, FAIL (29.7/20 > 1)."""
    df = _proof(
        sum_F=[50.0, 80.0, 30.0], sum_F_err=[0.5, 2.0, 0.3], bound_lemma5=[100.0, 90.0, 20.0]
    )
    other = _proof(sum_F=[1.0], sum_F_err=[0.0], bound_lemma5=[100.0]).assign(
        algorithm="hedge", cell_id="h0"
    )
    twice = df.iloc[[1]]  # a cell shared by two experiments: counted once
    rec = lemmas.check_lemma5(
        {"proof": pd.concat([df, other, twice], ignore_index=True)}, {}, ["agg/proof.parquet"]
    )
    assert rec["claim"] == "L5"
    assert rec["title"] == "Lemma 5: sum_m F_m <= 200 log K/gap + 4 log K/eta"
    assert rec["threshold"] == "exact sum_m F_m + error <= the bound in every cell"
    assert rec["inputs"] == ["agg/proof.parquet"]
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] == pytest.approx(1.5)
    assert rec["ci_low"] == pytest.approx(29.7 / 20)
    assert rec["ci_high"] == pytest.approx(30.3 / 20)
    assert rec["summary"] == (
        "Over 3 exact rps cells the largest exact left side / bound is 1.5 (K=16, gap=0.125, "
        "eps=0.25); the smallest is 0.5; 1 cells exceed the bound beyond their numerical error "
        "bounds; the largest relative error bound is 0.025."
    )
    first, second, third = rec["cells"]  # by decreasing ratio
    assert first == {
        "experiment": "grid",
        "K": 16,
        "gap": 0.125,
        "epsilon": 0.25,
        "eta": 0.125,
        "lhs": 30.0,
        "lhs_err": 0.3,
        "rhs": 20.0,
        "ratio": 1.5,
        "ratio_high": pytest.approx(30.3 / 20),
        "verdict": "FAIL",
    }
    assert (second["ratio"], third["ratio"]) == (pytest.approx(80 / 90), 0.5)
    assert (second["verdict"], third["verdict"]) == ("PASS", "PASS")


def test_lemma4_reads_the_limit_where_known_and_its_bound_with_four_errors():
    """Row 0: lim Reg = 2 (err 0.1) against 1 + 4 sum F = 10 (err 4 * 0.5): ratio 0.2, high
    2.1 / 8; row 1: no limit, Reg = 0.5 (err 0.1) against 1 (err 4): rhs - err <= 0, so the
    upper limit is infinite and the cell INCONCLUSIVE (low = 0.4 / 5)."""
    df = _proof(
        regret_limit=[2.0, np.nan],
        regret_limit_err=[0.1, np.nan],
        regret=[1.5, 0.5],
        regret_err=[0.2, 0.1],
        bound_lemma4=[10.0, 1.0],
        sum_F_err=[0.5, 1.0],
    )
    tab = lemmas.step_table(df, "L4")
    np.testing.assert_allclose(tab["lhs"], [2.0, 0.5])
    np.testing.assert_allclose(tab["rhs_err"], [2.0, 4.0])
    np.testing.assert_allclose(tab["ratio_high"], [2.1 / 8, np.inf])
    np.testing.assert_allclose(tab["ratio_low"], [1.9 / 12, 0.4 / 5])
    assert list(tab["verdict"]) == ["PASS", "INCONCLUSIVE"]
    rec = lemmas.check_lemma4({"proof": df}, {}, [])
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["ci_high"] is None  # infinite: JSON null


def test_lemma_without_proof_rows_says_so():
    rec = lemmas.check_eq6({}, {}, ["agg/proof.parquet"], "hedge")
    assert rec["claim"] == "L5b"
    assert rec["summary"] == "No exact hedge cells with proof terms."
    assert rec["inputs"] == ["agg/proof.parquet"]
    assert rec["algorithm"] == "hedge"
    assert rec["verdict"] == "INCONCLUSIVE"
