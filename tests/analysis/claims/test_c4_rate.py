"""Tests of :mod:`privdtol.analysis.claims.c4_rate`, claim C4 and its diagnostics C4a-C4c (the
regret scales as log K/gap + log K/eps, the rate of Theorem 1): the exponents' fits, the
rate's form against the grid and the ratio to the rate per cell."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.synthetic_regret import GAP, GRID, table

from privdtol.analysis.claims import (
    c4_rate,
)
from privdtol.analysis.registry import (
    CLAIMS,
)


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


K, EPS_REGIME = 64, 0.25


GAPS = (0.5, 0.25, 0.125, 0.0625, 0.03125)


def _cells() -> pd.DataFrame:
    """Exact cells: Reg = 2 log K/gap + 5 where eps > gap, 2 log K/eps + 5 where eps <= gap."""
    rows = _gap_series([K], gaps=GAPS, eps=EPS_REGIME)
    privacy = rows["gap"] >= EPS_REGIME
    return rows.assign(
        mean=np.where(privacy, 2 * math.log(K) / EPS_REGIME + 5, rows["mean"]),
        se=np.where(privacy, 1e-6 * (2 * math.log(K) / EPS_REGIME + 5), rows["se"]),
    )


def test_the_gap_exponent_leaves_the_privacy_regime_out():
    rec = c4_rate.check_exponent(_cells(), "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    (series,) = rec["cells"]
    assert series["n"] == 3  # gaps 1/8, 1/16, 1/32; not 1/2 and 1/4 (eps <= gap)
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["verdict"] == "PASS"


def test_with_the_privacy_regime_the_exponent_would_be_lower():
    """The control of the test above: the same fit over all five cells is off 1 (the flat
    privacy-regime cells distort the fitted form), outside the range the check asks for."""
    series = c4_rate.exponent_series(_cells(), "p", 0.95)
    assert series[0]["n"] == 5 and abs(series[0]["estimate"] - 1) > 0.1


RANGE = (0.8, 1.2)


def test_rate_form_fails_outside_the_factor():
    df = table("rps", GRID, 0.0, 0, "grid")
    bad = df.assign(mean=np.where(df["K"] == 512, df["mean"] * 3, df["mean"]))
    assert c4_rate.check_rate_form(df, 1.5, 0.95)["verdict"] == "PASS"
    assert c4_rate.check_rate_form(bad, 1.5, 0.95)["verdict"] == "FAIL"


def test_exponent_too_few_points_is_inconclusive():
    df = table("rps", GAP[:2], 0.0, 0, "gap")
    assert (
        c4_rate.check_exponent(df, "C4a", "p", RANGE, 0.95, plateau=None)["verdict"]
        == "INCONCLUSIVE"
    )


def test_exponent_interval_reflects_lack_of_fit():
    """Exact cells (se ~ 1e-10 relative): the interval comes from the residual scatter."""
    tight = c4_rate.check_exponent(
        table("rps", GAP, 0.0, 0, "gap"), "C4a", "p", RANGE, 0.95, plateau=None
    )
    loose = c4_rate.check_exponent(
        table("rps", GAP, 0.1, 1, "gap"), "C4a", "p", RANGE, 0.95, plateau=None
    )
    assert tight["ci_high"] - tight["ci_low"] < loose["ci_high"] - loose["ci_low"]
    assert loose["ci_high"] - loose["ci_low"] > 1e-3


def test_registry_check_uses_the_config_thresholds(thresholds):
    df = table("rps", GAP, 0.0, 0, "gap")
    out = CLAIMS["C4a"].check_function()({"gap": df}, thresholds, ["agg/gap.parquet"])
    assert out["verdict"] == "PASS" and out["inputs"] == ["agg/gap.parquet"]
    assert out == c4_rate.check_exponent(
        df,
        "C4a",
        "p",
        thresholds["exponent_range"],
        thresholds["confidence"],
        inputs=["agg/gap.parquet"],
        plateau=(thresholds["plateau_octaves"], thresholds["horizon_free_ratio_max"]),
    )
    steep = {**thresholds, "exponent_range": [1.5, 2.0]}
    assert CLAIMS["C4a"].check_function()({"gap": df}, steep, [])["verdict"] == "FAIL"


def test_exponent_leaves_out_cells_still_rising_at_their_last_horizon():
    """The rate is about sup_T Reg_T: a cell whose regret still grows over the last octaves of
    its horizons (here linear in T: Reg = T gap / 2, long before identification) only bounds
    it from below. Left in, it bends the exponent fit away from PASS; the plateau rule leaves
    it out (and names it), and the remaining series passes."""
    df = table("rps", GAP, 0.0, 0, "gap")
    rising = df[df["cell_id"] == df["cell_id"].iloc[0]].copy()
    rising["cell_id"], rising["gap"] = "rising", 2.0**-12
    rising["mean"] = rising["horizon"] * 2.0**-13
    rising["se"] = rising["mean"] * 1e-10
    rising["ci_low"], rising["ci_high"] = rising["mean"], rising["mean"]
    both = pd.concat([df, rising], ignore_index=True)
    kept = c4_rate.check_exponent(both, "C4a", "p", RANGE, 0.95, plateau=None)
    assert kept["verdict"] != "PASS"
    out = c4_rate.check_exponent(both, "C4a", "p", RANGE, 0.95, plateau=(4, 1.05))
    assert out["verdict"] == "PASS", out["summary"]
    assert "Left out" in out["summary"] and "1 cells" in out["summary"]
    assert (
        "Left out"
        not in c4_rate.check_exponent(df, "C4a", "p", RANGE, 0.95, plateau=(4, 1.05))["summary"]
    )


def test_c4_exponent_reads_only_the_standard_instance():
    """A staircase copy of the gap series (regret 10^3 times larger, exponent 2) is another
    instance: C4a on the standard instance has one series, exponent 1."""
    std = _gap_series([8])
    stair = std.assign(instance="staircase", cell_id=std["cell_id"] + "s")
    stair["mean"] = 1e3 * (1 / stair["gap"]) ** 2
    df = pd.concat([std, stair], ignore_index=True)
    rec = c4_rate.check_exponent(df, "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    assert [(s["K"], s["instance"], s["n"]) for s in rec["cells"]] == [(8, "standard", 4)]
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["verdict"] == "PASS"
    assert rec["summary"].startswith("1 rps series (statistical regime); exponent p: 1 [")


#: (K, gap, eps) of five grid cells whose log K/gap, log K/eta and 1 are independent
FORM_CELLS = [(2, 0.5, 1.0), (4, 0.25, 0.1), (8, 0.5, 0.05), (2, 0.125, 0.02), (16, 0.25, 1.0)]


def _form_table():
    """Grid cells on Reg = 2 log K/gap + 3 log K/eta + 5 exactly (eta = min(eps/2, 1/8))."""
    rows = []
    for i, (K, gap, eps) in enumerate(FORM_CELLS):
        m = 2 * math.log(K) / gap + 3 * math.log(K) / min(eps / 2, 1 / 8) + 5
        rows.append(
            {
                "experiment": "grid",
                "cell_id": f"g{i}",
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
                "se": 1e-9 * m,
            }
        )
    return pd.DataFrame(rows)


def test_c4_form_record_title_and_cells_by_hand():
    rec = c4_rate.check_form(
        {"grid": _form_table()},
        {"rate_form_factor": 1.5, "confidence": 0.95},
        ["agg/grid.parquet"],
    )
    assert rec["title"] == (
        "Rate form: regret ~ a log K/gap + b log K/eta + c (eta = min(eps/2, 1/8))"
    )
    assert rec["verdict"] == "PASS"
    fit, first, *_ = rec["cells"]
    assert fit["kind"] == "fit" and fit["n"] == 5
    assert (fit["a"], fit["b"], fit["c"]) == pytest.approx((2.0, 3.0, 5.0), rel=1e-6)
    # K = 2, gap 1/2, eps 1 (eta 1/8): 4 log 2 + 24 log 2 + 5 = 28 log 2 + 5 = 24.408121
    assert set(first) == {
        "env",
        "K",
        "gap",
        "epsilon",
        "mean",
        "fitted",
        "ratio",
        "ratio_low",
        "ratio_high",
        "verdict",
    }
    assert (first["K"], first["gap"], first["epsilon"]) == (2, 0.5, 1.0)
    assert first["mean"] == pytest.approx(28 * math.log(2) + 5, rel=1e-6)
    assert first["ratio"] == pytest.approx(1.0, rel=1e-6)
    assert first["verdict"] == "PASS"


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


def test_c4_form_cells_carry_the_limits_of_their_ratio():
    """The fit is exact (ratio 1) and each cell's interval mean -+ 1.96 se over the fitted
    value: with se = 1% of the mean the ratio's limits are 1 -+ 0.0196."""
    df = _form_table()
    df["se"] = 0.01 * df["mean"]
    tab, _ = c4_rate.form_table(c4_rate.form_columns(df).reset_index(drop=True), 0.95)
    z = 1.959963984540054
    assert tab["ratio"].to_numpy() == pytest.approx([1.0] * len(tab), rel=1e-9)
    assert tab["ratio_low"].to_numpy() == pytest.approx([1 - 0.01 * z] * len(tab), rel=1e-9)
    assert tab["ratio_high"].to_numpy() == pytest.approx([1 + 0.01 * z] * len(tab), rel=1e-9)


def test_c4s_form_fit_needs_four_cells():
    cells = [c for c in GRID if c[1] == GRID[0][1]][:4]
    assert len(cells) == 4
    df = table("rps", cells, 0.0, 0, "grid")
    three = df[df["cell_id"] != "rps3"]
    rec = c4_rate.check_rate_form(three, 1.5, 0.95)
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["summary"] == "3 rps cells; the form fit needs 4."
    assert c4_rate.check_rate_form(df, 1.5, 0.95)["verdict"] == "PASS"


def test_c4_fails_a_cell_only_when_its_bonferroni_interval_is_beyond_the_factor():
    """One cell of the grid at twice the form (the others on it): the form fit (relative least
    squares over the means only, so not moved by the standard errors; recomputed here with
    numpy) gives its fitted value F.  With se = (m - 1.5 F)/2.5 the cell's nominal 95%
    interval (z = 1.96) lies beyond the factor 1.5, but its Bonferroni interval over the n cells
    (z > 2.5 for n >= 10) does not: the cell, hence C4, is INCONCLUSIVE, not FAIL."""
    from privdtol.analysis.claims.c4_rate import form_columns

    df = table("rps", GRID, 0.0, 0, "grid")
    last = df["horizon"] == df["horizon"].max()
    odd = last & (df["cell_id"] == "rps0")
    df.loc[odd, "mean"] *= 2
    rows = form_columns(df[last].reset_index(drop=True))
    assert len(rows) >= 10
    X = np.column_stack([rows["x_gap"], rows["x_eta"], np.ones(len(rows))]) / rows[["mean"]].values
    coef = np.linalg.lstsq(X, np.ones(len(rows)), rcond=None)[0]
    i = int(np.flatnonzero(rows["cell_id"] == "rps0")[0])
    m = float(rows["mean"].iloc[i])
    F = float(coef @ [rows["x_gap"].iloc[i], rows["x_eta"].iloc[i], 1.0])
    assert m / F > 1.6
    df.loc[odd, "se"] = (m - 1.5 * F) / 2.5
    rec = c4_rate.check_rate_form(df, 1.5, 0.95)
    fit, *cells = rec["cells"]
    assert fit["kind"] == "fit" and fit["n"] == len(rows)
    by_cell = {(c["K"], c["gap"], c["epsilon"]): c for c in cells}
    K, gap, eps = GRID[0]
    cell = by_cell[(K, gap, eps)]
    assert cell["ratio"] == pytest.approx(m / F, rel=1e-5)  # the record's 6 digits
    assert cell["verdict"] == "INCONCLUSIVE"
    assert rec["verdict"] == "INCONCLUSIVE"
    df.loc[odd, "se"] = (m - 1.5 * F) / 4.0  # beyond the factor at the Bonferroni level too
    assert c4_rate.check_rate_form(df, 1.5, 0.95)["verdict"] == "FAIL"
