"""Guards found by mutation testing of ``privdtol.analysis.claims`` (``make mutation
GROUPS=claims``, docs/testing.md), continued from tests/test_mutants_claims.py (C0, C1, C2,
C5): C3 (horizon-free regret), C4 (the rates' exponents and slopes) and the proof steps L4, L5,
each on a small table whose numbers are computed here by hand, whole records and every field."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_mutants_claims import _z

from privdtol.analysis.claims import c3_horizon_free, c4_rate, lemmas

# ----------------------------------------------------------------------------- C3

#: C3's thresholds for the cells below: ratio at most 1.5, c = 1
THRESHOLDS_C3 = {"horizon_free_ratio_max": 1.5, "horizon_free_c": 1.0, "confidence": 0.95}


def _c3_cell(gap, means, algorithm="rps", horizons=(7, 15, 31, 8191)):
    return [
        {
            "experiment": "horizon",
            "cell_id": f"{algorithm}-{gap}",
            "algorithm": algorithm,
            "env": "bernoulli",
            "instance": "standard",
            "K": 2,
            "gap": gap,
            "epsilon": 2.0,
            "mu_best": 0.5 - gap / 2,
            "rho": np.nan,
            "kappa": np.nan,
            "horizon": h,
            "runs": 0,
            "mean": m,
            "se": 0.01,
        }
        for h, m in zip(horizons, means, strict=True)
    ]


def test_c3_record_by_hand():
    """K = 2, gap 1/2, eps 2 (eta 1/8): T0 >= (1 + log 2) / (eta gap) = 27.1, so T0 = 31, and
    31 * 2^8 <= 8191: reached, ratio 12/10.  Under the first design (L = log 2: T0 >= 11.1)
    T0 = 15 and the ratio is 12/9.  Gap 0.01: T0 >= 1.69 / 1e-4 > 8191, no checkpoint, not
    reached."""
    df = pd.DataFrame(_c3_cell(0.5, [5.0, 9.0, 10.0, 12.0]) + _c3_cell(0.01, [1.0, 2.0, 3.0, 4.0]))
    rec = c3_horizon_free.check({"horizon": df}, THRESHOLDS_C3, ["h.parquet"])
    se = 1.2 * math.sqrt((0.01 / 12) ** 2 + (0.01 / 10) ** 2)
    high = 1.2 + _z(0.95) * se
    assert rec["threshold"] == "upper 95% limit of the ratio <= 1.5 in every cell (c = 1.0)"
    assert rec["title"] == "Horizon-free regret after identification"
    assert rec["inputs"] == ["h.parquet"]
    assert rec["verdict"] == "PASS"
    assert rec["statistic"] == pytest.approx(1.2, rel=1e-5)
    assert rec["ci_high"] == pytest.approx(high, rel=1e-5)
    not_reached, reached = rec["cells"]  # by gap
    assert reached == {
        "env": "bernoulli",
        "K": 2,
        "gap": 0.5,
        "epsilon": 2.0,
        "T0": 31,
        "T_max": 8191,
        "reached": True,
        "interval": "exact",
        "ratio": pytest.approx(1.2, rel=1e-5),
        "ratio_high": pytest.approx(high, rel=1e-5),
        # the smallest log-T slope a PASS excludes: (r - 1) Reg(T0) / ln(T_max / T0)
        "slope_min": pytest.approx(0.5 * 10 / math.log(8191 / 31), rel=1e-5),
        "verdict": "PASS",
    }
    assert not_reached["T0"] is None and not_reached["reached"] is False
    assert not_reached["verdict"] == "NOT REACHED"
    assert rec["summary"] == (
        "1 of 2 rps cells reach their plateau T0 (c = 1.0); 1 not reached (T0 > T_max/2^8), "
        f"left out. Largest Reg(T_max)/Reg(T0) = 1.2 (largest upper limit {high:.4g} at K=2, "
        "gap=0.5, eps=2, T0=31); threshold 1.5. Intervals (exact: 1). Scope: a PASS excludes "
        "an added beta ln T only for beta above (r - 1) Reg(T0) / ln(T_max/T0), from 0.897 to "
        "0.897 over the reached cells. Under the first design "
        f"(L = log K): PASS, largest ratio {12 / 9:.4g}."
    )
    assert rec["first_design"]["statistic"] == pytest.approx(12 / 9, rel=1e-5)
    tab = c3_horizon_free.plateau_table(df, 1.0, 0.95)
    assert tab["ratio_se"].to_numpy(float)[1] == pytest.approx(se, rel=1e-9)
    assert np.isnan(tab["h_low"].to_numpy(float)[0])


def test_c3_of_another_algorithm_checks_it_in_both_designs():
    df = pd.DataFrame(
        _c3_cell(0.5, [5.0, 9.0, 10.0, 12.0], "hedge") + _c3_cell(0.5, [1.0, 1.0, 1.0, 9.0])
    )
    rec = c3_horizon_free.check({"horizon": df}, THRESHOLDS_C3, [], "hedge")
    assert rec["algorithm"] == "hedge"
    assert rec["first_design"]["statistic"] == pytest.approx(12 / 9, rel=1e-5)


def test_paired_ratio_ci_se_by_hand_and_nan_where_not_usable():
    """se = sqrt((se_inc/den)^2 + (inc se_den/den^2)^2): inc 2 (se 0.5), den 4 (se 1):
    sqrt(1/64 + 1/64)."""
    ratio, se, low, high = c3_horizon_free.paired_ratio_ci(
        [2.0, 1.0], [0.5, 0.1], [4.0, 0.0], [1.0, 0.1], 0.95
    )
    assert ratio[0] == pytest.approx(1.5)
    assert se[0] == pytest.approx(math.sqrt(2 / 64), rel=1e-12)
    assert high.dtype == float and low.dtype == float
    assert np.isnan([ratio[1], se[1], low[1], high[1]]).all()


def test_c3_none_reached_keeps_the_algorithm():
    df = pd.DataFrame(_c3_cell(0.01, [1.0, 2.0, 3.0, 4.0], "hedge"))
    rec = c3_horizon_free.check_horizon_free(df, 1.5, 1.0, 0.95, "hedge", ["h"])
    assert rec["verdict"] == "INCONCLUSIVE"
    assert (rec["algorithm"], rec["inputs"]) == ("hedge", ["h"])
    assert rec["summary"] == (
        "None of the 1 hedge cells reaches its plateau horizon T0 before T_max/2^8."
    )


# ----------------------------------------------------------------------------- C4


def _gap_series(Ks, gaps=(0.5, 0.25, 0.125, 0.0625), eps=8.0):
    """Exact cells on Reg = 2 log K/gap + 5 (exponent p = 1), K in ``Ks`` (descending)."""
    rows = []
    for K in Ks:
        for gap in gaps:
            m = 2 * math.log(K) / gap + 5
            rows.append(
                {
                    "experiment": "gap",
                    "cell_id": f"{K}-{gap}",
                    "algorithm": "rps",
                    "env": "bernoulli",
                    "instance": "standard",
                    "K": K,
                    "gap": gap,
                    "epsilon": eps,
                    "mu_best": 0.5 - gap / 2,
                    "rho": np.nan,
                    "kappa": np.nan,
                    "horizon": 1023,
                    "runs": 0,
                    "mean": m,
                    "se": 1e-6 * m,
                }
            )
    return pd.DataFrame(rows)


def test_c4_exponent_lists_six_series_in_order_then_dots():
    df = _gap_series([128, 64, 32, 16, 8, 4, 2])
    rec = c4_rate.check_exponent(df, "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    assert rec["verdict"] == "PASS"
    assert [s["K"] for s in rec["cells"]] == [2, 4, 8, 16, 32, 64, 128]
    assert all(s["epsilon"] == 8.0 and s["n"] == 4 for s in rec["cells"])
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["summary"].startswith("7 rps series (statistical regime); exponent p: 1 [")
    assert rec["summary"].count("over 4 cells") == 6
    assert " over 4 cells ...; required inside [0.9, 1.1]." in rec["summary"]


def test_c4_exponent_without_a_series_says_so():
    df = _gap_series([8], gaps=(0.5, 0.25))  # two cells: no power fit
    rec = c4_rate.check_exponent(
        df, "C4a", "p", (0.9, 1.1), 0.95, "rps", inputs=["g.parquet"], plateau=None
    )
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["summary"] == "No series of at least three rps cells in the statistical regime."
    assert rec["inputs"] == ["g.parquet"]


def test_c4_slope_series_by_hand():
    """The rates notebook's series: per K (sorted), the log-log slope of the mean against 1/gap
    over the 3 largest 1/gap.  K = 2: mean = 3 x^2 at x = 2, 4, 8, 16 -> slope 2 over x = 4, 8,
    16, intercept log 3; K = 4 (listed first): mean = 5 x -> slope 1; K = 8: two points only,
    not enough for 3."""
    from privdtol.analysis.claims.c4_rate import slope_series

    rows = [(4, x, 5.0 * x) for x in (2.0, 4.0, 8.0, 16.0)]
    rows += [(2, x, 3.0 * x**2) for x in (16.0, 2.0, 8.0, 4.0)]
    rows += [(8, x, 7.0) for x in (2.0, 4.0)]
    df = pd.DataFrame(rows, columns=["K", "x", "mean"])
    df["gap"] = 1 / df.pop("x")
    df["epsilon"] = 1.0
    df["se"] = 0.1 * df["mean"]
    out = slope_series(df, "1/gap", ["K"], 3, 0.95)
    assert [s["K"] for s in out] == [2, 4, 8]
    assert [s["axis"] for s in out] == ["1/gap"] * 3
    assert out[0]["x"] == [4.0, 8.0, 16.0] and out[0]["y"] == [48.0, 192.0, 768.0]
    assert out[1]["x"] == [4.0, 8.0, 16.0] and out[1]["y"] == [20.0, 40.0, 80.0]
    assert [s["n"] for s in out] == [3, 3, 2]
    assert [s["enough"] for s in out] == [True, True, False]
    assert out[0]["slope"] == pytest.approx(2.0, abs=1e-12)
    assert out[0]["intercept"] == pytest.approx(np.log(3.0), abs=1e-12)
    assert out[1]["slope"] == pytest.approx(1.0, abs=1e-12)
    assert out[2]["slope"] == pytest.approx(0.0, abs=1e-12)
    assert out[0]["chi2"] == pytest.approx(0.0, abs=1e-12)
    assert out[0]["ci_low"] <= 2.0 <= out[0]["ci_high"]


def test_c4_rate_ratio_table_by_hand():
    """rate = log K / gap + log K / eps: K = 4, gap 1/2, eps 1 gives 3 log 4; a mean of
    6 log 4 with se 0.3 log 4 is a ratio of 2 with se 0.1 (the cell's largest horizon)."""
    from privdtol.analysis.claims.c4_rate import rate_ratio_table

    log4 = np.log(4.0)
    df = pd.DataFrame(
        {
            "algorithm": ["rps", "rps"],
            "K": [4, 4],
            "gap": [0.5, 0.5],
            "epsilon": [1.0, 1.0],
            "horizon": [7, 15],
            "mean": [1.0, 6 * log4],
            "se": [1.0, 0.3 * log4],
        }
    )
    out = rate_ratio_table(df)
    assert out["horizon"].tolist() == [15]
    assert out["rate"].tolist() == pytest.approx([3 * log4], rel=1e-12)
    assert out["ratio"].tolist() == pytest.approx([2.0], rel=1e-12)
    assert out["ratio_se"].tolist() == pytest.approx([0.1], rel=1e-12)


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
    """Ratios 45.678/100, 80/90, 30/20 with relative errors 0.01, 0.0123456, 0.01: PASS, PASS,
    FAIL (29.7/20 > 1)."""
    df = _proof(
        sum_F=[45.678, 80.0, 30.0],
        sum_F_err=[0.45678, 80 * 0.0123456, 0.3],
        bound_lemma5=[100.0, 90.0, 20.0],
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
        "eps=0.25); the smallest is 0.4568; 1 cells exceed the bound beyond their numerical "
        "error bounds; the largest relative error bound is 0.012."
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
    assert (second["ratio"], third["ratio"]) == (pytest.approx(80 / 90), 0.45678)
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
