"""Guards for the survivors of ``make mutation GROUPS=claims`` (issue 24, docs/testing.md):
C0's statistic label and its rare-events sentence, C2's worst-cell record and summary sentence,
eq. (2)'s input list, C3's plateau table (the kappa column, the paired interval's standard
error against the delta method's) and the plateau target at eps = 0 without a warning.  Every
expected value is written out here: record keys, labels and sentences as literals, numbers from
the formula they stand for."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from test_mutants_claims import BOUND_8, THRESHOLDS_C0, _agreement, _rows, _z
from test_mutants_claims_rates import _c3_cell

from privdtol.analysis.claims import c0_agreement, c2_theorem1, c3_horizon_free

# ----------------------------------------------------------------------------- C0


def test_c0_record_names_its_statistic_and_the_left_out_rare_pairs():
    """Two cells: K = 2 standard (M = 8 x 1/2 = 4, exact 0: 20 runs expected below M, kept;
    z = (|2 - 0| - 0.5) / 0.5 = 3) and the K = 3 staircase with 18 runs (M = 6, exact 3:
    18 x 3/6 = 9 < 10 runs expected below M, left out)."""
    df = pd.concat(
        [
            _agreement(2.0, 0.5, 0.0, 0.5),
            _agreement(3.1, 0.5, 3.0, 0.0, runs=18, instance="staircase", K=3),
        ],
        ignore_index=True,
    )
    rec = c0_agreement.check({"agreement": df}, THRESHOLDS_C0, ["agg/agreement.parquet"])
    assert rec["claim"] == "C0"
    assert rec["title"] == "Exact and Monte Carlo engines agree"
    assert rec["statistic_label"] == (
        "max over (cell, horizon) of |MC - exact| / se (beyond the exact error bound)"
    )
    assert (rec["statistic"], rec["verdict"]) == (3.0, "PASS")
    assert [c["instance"] for c in rec["cells"]] == ["standard"]
    # 2 Phi(-3) = 0.0027 for the one pair compared
    assert rec["summary"] == (
        "1 cells (rps; Monte Carlo estimators mc) computed both ways, 1 (cell, horizon) pairs. "
        "1 compared in standard errors: the largest distance is 3 (mean signed distance 3). 0 "
        "with s.e. 0 compared by a bound (error bound + rounding + what n equal runs allow by "
        "chance): 0 disagree. Under agreement a FAIL has probability at most 0.0027 "
        "(Bonferroni). Left out: 1 pairs with fewer than 10 runs expected below the largest "
        "possible regret, T times the largest mean difference (rare events: the sample se is "
        "not reliable there)."
    )


# ----------------------------------------------------------------------------- C2


def test_c2_worst_cell_record_and_summary_by_hand():
    """K = 8, gap 1/2, eps 2: bound 1 + 1728 log 8 = 3594.27; its largest mean 100 (se 2) is
    at the first horizon, 1023: ratio 0.0278, upper limit (100 + 1.96 x 2) / 3594.27 = 0.0289.
    K = 4, gap 1/2, eps 1/2 (eta 1/8 again): bound 1 + 1728 log 4, means 10 and 20 (se 1), worst
    at 4095."""
    k8 = _rows("bernoulli", [100.0, 50.0], 2.0)
    k4 = [
        {**r, "K": 4, "epsilon": 0.5, "cell_id": "k4"}
        for r in _rows("bernoulli", [10.0, 20.0], 1.0)
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
    df = pd.DataFrame(_rows("bernoulli", [50.0, 100.0], 2.0))
    rec = c2_theorem1.check_eq2({"grid": df}, {"confidence": 0.95}, ["agg/grid.parquet"])
    assert rec["claim"] == "C2b"
    assert rec["inputs"] == ["agg/grid.parquet"]
    assert rec["statistic_label"] == "max over cells and horizons of regret / the bound of eq. (2)"
    assert rec["cells"][0]["bound"] == pytest.approx(2500 * math.log(8))


# ----------------------------------------------------------------------------- C3

#: plateau_table's columns, in order, for a table with every cell parameter
PLATEAU_COLUMNS = [
    "algorithm",
    "env",
    "K",
    "gap",
    "epsilon",
    "instance",
    "rho",
    "kappa",
    "target",
    "h_low",
    "h_high",
    "reached",
    "mean_low",
    "se_low",
    "mean_high",
    "se_high",
    "interval",
    "increment",
    "increment_se",
    "log_span",
    "ratio",
    "ratio_se",
    "ratio_high",
    "ratio_low_adj",
]


def _beta_cells(tails: bool) -> pd.DataFrame:
    """Two beta cells, K = 2, gap 1/2, eps 2 (T0 = 31, T_max = 8191, both reached; see
    tests/test_mutants_claims_rates.py): a Monte Carlo one (kappa 3, 100 runs, means 5, 9, 10,
    12 with se 0.5, paired tails Reg(8191) - Reg(h) = 7, 3, 2, 0 with se 0.4, 0.35, 0.3, 0) and
    an exact one (kappa 5, means 5, 9, 10, 15, error 0.01)."""
    mc = _c3_cell(0.5, [5.0, 9.0, 10.0, 12.0])
    ex = _c3_cell(0.5, [5.0, 9.0, 10.0, 15.0])
    for r, tm, ts in zip(mc, (7.0, 3.0, 2.0, 0.0), (0.4, 0.35, 0.3, 0.0), strict=True):
        r.update(cell_id="a-mc", env="beta", kappa=3.0, runs=100, se=0.5)
        r.update({"tail_mean": tm, "tail_se": ts} if tails else {})
    for r in ex:
        r.update(cell_id="b-exact", env="beta", kappa=5.0)
        r.update({"tail_mean": 15.0 - r["mean"], "tail_se": 0.0} if tails else {})
    return pd.DataFrame(mc + ex)


def test_c3_plateau_table_paired_se_differs_from_the_delta_methods():
    """Paired: increment 2 - 0 = 2 (se 0.3 + 0), over Reg(T0) = 10 (se 0.5): ratio 1.2 with
    se sqrt((0.3/10)^2 + (2 x 0.5/10^2)^2) = sqrt(0.001); the delta method would give
    1.2 sqrt((0.5/12)^2 + (0.5/10)^2) = 0.0781.  Limits: the Bonferroni rectangle of two
    (z at 1 - 0.05/4), the lower one over the two reached cells (z at 1 - 0.05/8)."""
    tab = c3_horizon_free.plateau_table(_beta_cells(tails=True), 1.0, 0.95)
    assert list(tab.columns) == PLATEAU_COLUMNS
    assert tab["kappa"].tolist() == [3.0, 5.0]
    assert tab["target"].to_numpy() == pytest.approx([(1 + math.log(2)) / (0.125 * 0.5)] * 2)
    assert (tab["h_low"].tolist(), tab["h_high"].tolist()) == ([31, 31], [8191, 8191])
    assert tab["reached"].tolist() == [True, True]
    assert tab["interval"].tolist() == ["paired", "exact"]
    assert tab.at[0, "increment"] == pytest.approx(2.0)
    assert tab.at[0, "increment_se"] == pytest.approx(0.3)
    assert np.isnan(tab.at[1, "increment"])
    assert tab["ratio"].to_numpy() == pytest.approx([1.2, 1.5])
    assert tab["ratio_se"].dtype == np.float64
    assert tab["ratio_se"].to_numpy() == pytest.approx(
        [math.sqrt(0.001), 1.5 * math.sqrt((0.01 / 15) ** 2 + (0.01 / 10) ** 2)], rel=1e-9
    )
    z2, z4 = _z(1 - 0.05 / 2), _z(1 - 0.05 / 4)
    assert tab.at[0, "ratio_high"] == pytest.approx(1 + (2 + z2 * 0.3) / (10 - z2 * 0.5))
    assert tab.at[0, "ratio_low_adj"] == pytest.approx(1 + (2 - z4 * 0.3) / (10 + z4 * 0.5))


def test_c3_plateau_table_without_tail_columns_uses_the_delta_method():
    """The same cells without ``tail_mean``/``tail_se``: the Monte Carlo cell's ratio 12/10
    gets the delta method's se 1.2 sqrt((0.5/12)^2 + (0.5/10)^2) = 0.078102."""
    tab = c3_horizon_free.plateau_table(_beta_cells(tails=False), 1.0, 0.95)
    assert list(tab.columns) == PLATEAU_COLUMNS
    assert tab["interval"].tolist() == ["delta", "exact"]
    assert np.isnan(tab["increment"]).all() and np.isnan(tab["increment_se"]).all()
    assert tab["ratio"].to_numpy() == pytest.approx([1.2, 1.5])
    assert tab["ratio_se"].dtype == np.float64
    assert tab.at[0, "ratio_se"] == pytest.approx(0.0781024968, rel=1e-8)
    assert tab.at[0, "ratio_high"] == pytest.approx(1.2 + _z(0.95) * 0.0781024968, rel=1e-8)


def test_c3_plateau_target_at_eps_zero_is_infinite_without_a_warning():
    """eps = 0 gives eta = 0 and L/(eta gap) = inf (a never-reached plateau), silently; eps NaN
    (a non-private cell) drops the term: L/gap^2 = (1 + log 4)/(1/4)."""
    with warnings.catch_warnings(), np.errstate(all="warn"):
        warnings.simplefilter("error")
        target = c3_horizon_free.plateau_target([2, 4], [0.5, 0.5], [0.0, np.nan], 1.0)
    assert target[0] == math.inf
    assert target[1] == pytest.approx(4 * (1 + math.log(4)))
