"""Tests of :mod:`privdtol.analysis.claims.c2_theorem1`, claims C2 and C2b (the regret stays
below the bound of Theorem 1, eq. (1), and its simplified form eq. (2)), with the Bonferroni
widening over cells."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.synthetic_regret import table
from support.tables import CORE, INTERVAL, agg_table, rps_cell_rows

from privdtol.analysis.claims import (
    c2_theorem1,
)
from privdtol.core import bounds

PAIR = (1048575, 1073741823)


def test_theorem1_ignores_non_private_algorithms():
    df = agg_table(
        [{"K": 2, "gap": 0.5, "epsilon": np.nan, "mean": 1e9, "algorithm": "ftl"}],
        PAIR,
        columns=(*CORE, "eta", *INTERVAL),
        rel_se=0.01,
    )
    assert c2_theorem1.check_theorem1(df, 0.95)["verdict"] == "INCONCLUSIVE"


def test_c2_cells_in_parameter_order_and_eq2_names_its_claim():
    df = pd.DataFrame(rps_cell_rows("bernoulli", [50.0, 100.0], 2.0))
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
        pd.DataFrame(rps_cell_rows("bernoulli", [1.0, 2.0], 0.1)), 0.95, "hedge", inputs=["a"]
    )
    assert rec["summary"] == "No hedge cells in the input."
    assert rec["algorithm"] == "hedge" and rec["inputs"] == ["a"]
    assert rec["verdict"] == "INCONCLUSIVE"


def test_eq2_reads_only_the_experiments_of_c2b():
    """C2b reads horizon, gap, epsilon, actions, grid and worst_case, not ``dependent``: the
    K = 4 cell with regret 10^6 there is not one of its cells.  eq. (2) at K = 8, gap 1/2,
    eps 2: 2500 log 8."""
    grid = pd.DataFrame(rps_cell_rows("bernoulli", [50.0, 100.0], 2.0))
    dependent = grid.assign(K=4, cell_id="k4", mean=1e6)
    rec = c2_theorem1.check_eq2(
        {"grid": grid, "dependent": dependent}, {"confidence": 0.95}, ["agg/grid.parquet"]
    )
    assert [c["K"] for c in rec["cells"]] == [8]
    assert rec["statistic"] == pytest.approx(100 / (2500 * math.log(8)), rel=1e-5)
    assert rec["verdict"] == "PASS"


#: Theorem 1 at K = 8, gap = 1/2, eps = 2 (eta = 1/8): 1 + 800 log 8 / (1/2) + 16 log 8 / (1/8)
BOUND_8 = 1 + 1728 * math.log(8)


def test_c2_worst_cell_record_and_summary_by_hand():
    """K = 8, gap 1/2, eps 2: bound 1 + 1728 log 8 = 3594.27; its largest mean 100 (se 2) is
    at the first horizon, 1023: ratio 0.0278, upper limit (100 + 1.96 x 2) / 3594.27 = 0.0289.
    K = 4, gap 1/2, eps 1/2 (eta 1/8 again): bound 1 + 1728 log 4, means 10 and 20 (se 1), worst
    at 4095."""
    k8 = rps_cell_rows("bernoulli", [100.0, 50.0], 2.0)
    k4 = [
        {**r, "K": 4, "epsilon": 0.5, "cell_id": "k4"}
        for r in rps_cell_rows("bernoulli", [10.0, 20.0], 1.0)
    ]
    rec = c2_theorem1.check({"grid": pd.DataFrame(k8 + k4)}, {"confidence": 0.95}, ["g.parquet"])
    assert rec["verdict"] == "PASS"
    assert rec["statistic_label"] == "max over cells and horizons of regret / the bound of eq. (1)"
    # records carry 6 significant digits: 1 + 1728 log 4 = 2396.5167, 20 + 1.96 = 21.959964,
    # 20 / 2396.5167 = 0.00834545, 21.959964 / 2396.5167 = 0.00916328; 100 + 2 x 1.959964 =
    # 103.919928, 100 / 3594.2750 = 0.0278220, 103.919928 / 3594.2750 = 0.0289126
    assert rec["cells"] == [  # by parameters: K = 4 first
        {
            "env": "bernoulli",
            "K": 4,
            "gap": 0.5,
            "epsilon": 0.5,
            "horizon": 4095,
            "mean": 20.0,
            "upper": 21.96,
            "bound": 2396.52,
            "ratio": 0.00834545,
            "ratio_high": 0.00916328,
            "verdict": "PASS",
        },
        {
            "env": "bernoulli",
            "K": 8,
            "gap": 0.5,
            "epsilon": 2.0,
            "horizon": 1023,
            "mean": 100.0,
            "upper": 103.92,
            "bound": 3594.27,
            "ratio": 0.027822,
            "ratio_high": 0.0289126,
            "verdict": "PASS",
        },
    ]
    assert rec["statistic"] == pytest.approx(100 / BOUND_8, rel=1e-5)
    assert rec["summary"] == (
        "Over 2 distinct rps cells and 4 (cell, horizon) pairs the largest regret/bound ratio "
        "is 0.0278 (upper limit 0.0289), at K=8, gap=0.5, eps=2."
    )


def test_eq2_record_keeps_its_inputs():
    """eq. (2) at K = 8, gap 1/2, eps 2: 1000 (log 8 / (1/2) + log 8 / 2) = 2500 log 8."""
    df = pd.DataFrame(rps_cell_rows("bernoulli", [50.0, 100.0], 2.0))
    rec = c2_theorem1.check_eq2({"grid": df}, {"confidence": 0.95}, ["agg/grid.parquet"])
    assert rec["claim"] == "C2b"
    assert rec["inputs"] == ["agg/grid.parquet"]
    assert rec["statistic_label"] == "max over cells and horizons of regret / the bound of eq. (2)"
    assert rec["cells"][0]["bound"] == pytest.approx(2500 * math.log(8))


#: Theorem 1 at K=2, Delta=1/2, eps=1 (eta = 1/8): 1 + 1600 log 2 + 128 log 2 = 1 + 1728 log 2
BOUND = 1198.7583280075855


#: two-sided normal quantiles: 95% and 1 - 0.05/20 = 99.75% (20 rows, Bonferroni)
Z95, Z_BONF20 = 1.959963984540054, 3.023341439739154


def _c2_table(n_cells: int, mean: float, se: float) -> pd.DataFrame:
    """``n_cells`` distinct rps cells at K=2, gap=1/2, eps=1 (their best means differ, so C2
    does not merge them as one cell shared by experiments), one horizon each; the first has
    regret ``mean`` ± ``se``, the others 100 ± 1 (far below the bound)."""
    return agg_table(
        [
            {
                "mu_best": 0.25 + i / 1000,
                "mean": mean if i == 0 else 100.0,
                "se": se if i == 0 else 1.0,
            }
            for i in range(n_cells)
        ],
        drop=("rho", "kappa"),
    )


def test_c2_one_cell_of_many_needs_the_bonferroni_widening():
    """One cell of 20 lies 2.5 se above the bound: its nominal 95% lower limit
    (BOUND + 0.54 se) is above the bound, its Bonferroni lower limit (BOUND - 0.52 se) is not,
    so C2 is INCONCLUSIVE, not FAIL; alone (no multiplicity) the same cell FAILs."""
    se = 10.0
    mean = BOUND + 2.5 * se
    many = _c2_table(20, mean, se)
    tab = c2_theorem1.bound_table(many, 0.95)
    assert tab["bound"].iloc[0] == pytest.approx(BOUND, rel=1e-12)
    assert tab["lower_adj"].iloc[0] == pytest.approx(mean - Z_BONF20 * se, rel=1e-9)
    assert tab["upper"].iloc[0] == pytest.approx(mean + Z95 * se, rel=1e-9)
    out = c2_theorem1.check_theorem1(many, 0.95)
    assert out["verdict"] == "INCONCLUSIVE"
    assert [c["verdict"] for c in out["cells"]].count("PASS") == 19
    assert c2_theorem1.check_theorem1(_c2_table(1, mean, se), 0.95)["verdict"] == "FAIL"
    # 3.5 se above the bound is beyond the Bonferroni quantile too: FAIL among 20
    far = c2_theorem1.check_theorem1(_c2_table(20, BOUND + 3.5 * se, se), 0.95)
    assert far["verdict"] == "FAIL"


def test_c2_upper_limit_at_the_bound():
    """Upper 95% limit just below / above the bound: PASS / INCONCLUSIVE."""
    se = 1.0
    below = c2_theorem1.check_theorem1(_c2_table(3, BOUND - Z95 * se - 1e-6, se), 0.95)
    above = c2_theorem1.check_theorem1(_c2_table(3, BOUND - Z95 * se + 1e-3, se), 0.95)
    assert below["verdict"] == "PASS"
    assert above["verdict"] == "INCONCLUSIVE"


def agg(
    cells,
    horizons=PAIR,
    rel_se=0.01,
    algorithm="rps",
    env="bernoulli",
    experiment="x",
    mean_fn=None,
    tail_fn=None,
):
    """An agg table: one row per (cell, horizon); ``cells`` are dicts with K, gap, epsilon and
    either ``mean`` or a ``mean_fn(cell, horizon)``; se = rel_se * mean unless given.  With
    ``tail_fn(cell, horizon) -> (tail_mean, tail_se)`` the paired-tail columns are added."""
    rows = []
    for i, c in enumerate(cells):
        for h in horizons:
            m = mean_fn(c, h) if mean_fn else c["mean"]
            se = c.get("se", rel_se * m)
            tail = (
                dict(zip(("tail_mean", "tail_se"), tail_fn(c, h), strict=True)) if tail_fn else {}
            )
            rows.append(
                {
                    **tail,
                    "experiment": experiment,
                    "cell_id": f"c{i}",
                    "algorithm": c.get("algorithm", algorithm),
                    "env": c.get("env", env),
                    "instance": "standard",
                    "K": c["K"],
                    "gap": c["gap"],
                    "epsilon": c["epsilon"],
                    "eta": float(bounds.eta(c["epsilon"])),
                    "mu_best": 0.5 - c["gap"] / 2,
                    "rho": c.get("rho", np.nan),
                    "kappa": np.nan,
                    "horizon": h,
                    "runs": 100,
                    "mean": m,
                    "se": se,
                    "ci_low": m - 1.96 * se,
                    "ci_high": m + 1.96 * se,
                }
            )
    return pd.DataFrame(rows)


def _grid(Ks=(2, 8), gaps=(0.5, 0.125), epss=(2.0, 0.25)):
    return [{"K": K, "gap": g, "epsilon": e} for K in Ks for g in gaps for e in epss]


@pytest.mark.parametrize(
    "factor, rel_se, verdict",
    [(0.1, 0.01, "PASS"), (2.0, 0.01, "FAIL"), (0.99, 0.05, "INCONCLUSIVE")],
)
def test_theorem1(factor, rel_se, verdict):
    df = agg(
        _grid(),
        rel_se=rel_se,
        mean_fn=lambda c, h: factor * bounds.theorem1(c["K"], c["gap"], c["epsilon"]),
    )
    out = c2_theorem1.check_theorem1(df, 0.95)
    assert out["verdict"] == verdict
    assert out["statistic"] == pytest.approx(factor, rel=1e-5)
    assert len(out["cells"]) == len(_grid())


def test_eq2_is_checked_with_its_own_bound():
    """C2b: Reg_T <= 1000 (log K/gap + log K/eps) (eq. (2)); 1000 (log 8/0.25 + log 8/1) =
    10397.2 at K = 8, gap 1/4, eps 1: a regret of 10000 passes, 11000 fails, although both are
    above eq. (1)'s bound 1 + 3200 log 8 + 128 log 8 = 6921.4."""
    assert bounds.corollary(8, 0.25, 1.0) == pytest.approx(10397.2077, rel=1e-7)
    assert bounds.theorem1(8, 0.25, 1.0) == pytest.approx(6921.381, rel=1e-6)
    base = table("rps", [(8, 0.25, 1.0)], 0.0, 0, "grid")
    for mean, eq2, eq1 in ((10000.0, "PASS", "FAIL"), (11000.0, "FAIL", "FAIL")):
        df = base.assign(mean=mean, se=mean * 1e-10)
        rec = c2_theorem1.check_theorem1(df, 0.95, claim="C2b", form="eq2")
        assert rec["verdict"] == eq2 and rec["claim"] == "C2b"
        assert c2_theorem1.check_theorem1(df, 0.95)["verdict"] == eq1
