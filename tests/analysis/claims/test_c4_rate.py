"""Tests of :mod:`privdtol.analysis.claims.c4_rate`, claim C4: the rate's form
(a log K/gap + b log K/eta + c, Theorem 1's) fitted to the grid, each cell's factor from the
fit, and the notebooks' slope and ratio tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.synthetic_regret import GRID, table

from privdtol.analysis.claims import (
    c4_rate,
)

K, EPS_REGIME = 64, 0.25


def test_rate_form_fails_outside_the_factor():
    df = table("rps", GRID, 0.0, 0, "grid")
    bad = df.assign(mean=np.where(df["K"] == 512, df["mean"] * 3, df["mean"]))
    assert c4_rate.check_rate_form(df, 1.5, 0.95)["verdict"] == "PASS"
    assert c4_rate.check_rate_form(bad, 1.5, 0.95)["verdict"] == "FAIL"


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
