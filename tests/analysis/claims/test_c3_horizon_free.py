"""Tests of :mod:`privdtol.analysis.claims.c3_horizon_free`, claim C3 (the regret is free of
the horizon T past the time scale of Theorem 1): the plateau table, its paired and delta-method
ratio intervals, the reached and not-reached cells, and the ``check --claim`` command on a small
computed table."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from support.synthetic_regret import table
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.claims import (
    c3_horizon_free,
)
from privdtol.analysis.registry import (
    CLAIMS,
)
from privdtol.pipeline.config import check_defaults

PAIR = (1048575, 1073741823)


def _grid(Ks=(2, 8), gaps=(0.5, 0.125), epss=(2.0, 0.25)):
    return [{"K": K, "gap": g, "epsilon": e} for K in Ks for g in gaps for e in epss]


def test_paired_ratio_ci_by_hand():
    z = 2.241403  # two-sided 97.5%: 95% split over increment and denominator
    r, _, lo, hi = c3_horizon_free.paired_ratio_ci(3.0, 0.1, 10.0, 0.2, 0.95)
    assert r == pytest.approx(1.3)
    assert hi == pytest.approx(1 + (3 + z * 0.1) / (10 - z * 0.2), rel=1e-6)
    assert lo == pytest.approx(1 + (3 - z * 0.1) / (10 + z * 0.2), rel=1e-6)
    # increment interval straddling 0: the denominators that make each limit extreme
    r, _, lo, hi = c3_horizon_free.paired_ratio_ci(-0.1, 0.1, 10.0, 0.2, 0.95)
    assert hi == pytest.approx(1 + (-0.1 + z * 0.1) / (10 - z * 0.2), rel=1e-6)
    assert lo == pytest.approx(1 + (-0.1 - z * 0.1) / (10 - z * 0.2), rel=1e-6)
    # increment interval below 0: the upper limit uses the largest denominator
    _, _, _, hi = c3_horizon_free.paired_ratio_ci(-1.0, 0.1, 10.0, 0.2, 0.95)
    assert hi == pytest.approx(1 + (-1 + z * 0.1) / (10 + z * 0.2), rel=1e-6)
    # denominator interval reaching 0: no finite upper limit
    _, _, lo, hi = c3_horizon_free.paired_ratio_ci(0.5, 0.1, 1.0, 1.0, 0.95)
    assert hi == math.inf and lo == pytest.approx(1 + (0.5 - z * 0.1) / (1 + z), rel=1e-6)
    nans = c3_horizon_free.paired_ratio_ci(1.0, 0.1, 0.0, 0.1, 0.95)[::2]
    assert all(math.isnan(v) for v in nans)


def test_horizon_free_cells_not_reached_are_counted():
    cells = [(8, 2.0**-12, 8.0), (8, 0.25, 8.0)]
    out = c3_horizon_free.check_horizon_free(table("rps", cells, 0.0, 0, "horizon"), 1.05, 16, 0.95)
    assert [c["verdict"] for c in out["cells"]].count("NOT REACHED") == 1
    assert out["verdict"] == "PASS" and "1 not reached" in out["summary"]


def test_horizon_free_growth_fails_and_flat_passes():
    flat = table("rps", [(4, 0.25, 1.0)], 0.0, 0, "horizon")
    grow = flat.assign(mean=flat["mean"] * (1 + 0.1 * np.log2(flat["horizon"] + 1) / 30))
    assert c3_horizon_free.check_horizon_free(flat, 1.05, 16, 0.95)["verdict"] == "PASS"
    assert c3_horizon_free.check_horizon_free(grow, 1.05, 16, 0.95)["verdict"] == "FAIL"


def test_horizon_free_scope_is_the_smallest_visible_log_slope():
    """C3's stated scope: in a reached cell an added beta ln(T/T0) beyond T0 is caught when
    beta is above slope_min = (r - 1) Reg(T0)/ln(T_max/T0) and passes below it (exact cells,
    r = 1.05); the record carries slope_min per cell."""
    flat = table("rps", [(4, 0.25, 1.0)], 0.0, 0, "horizon")
    rec = c3_horizon_free.check_horizon_free(flat, 1.05, 16, 0.95)
    cell = rec["cells"][0]
    T0, T_max = cell["T0"], cell["T_max"]
    reg0 = float(flat.loc[flat["horizon"] == T0, "mean"].iloc[0])
    span = np.log(T_max / T0)
    assert cell["slope_min"] == pytest.approx(0.05 * reg0 / span, rel=1e-5)  # 6 digits
    assert "Scope: a PASS excludes an added β ln T only for β above" in rec["summary"]
    h = flat["horizon"].to_numpy(float)
    for factor, verdict in ((0.8, "PASS"), (1.25, "FAIL")):
        beta = factor * cell["slope_min"]
        bent = flat.assign(mean=flat["mean"] + beta * np.log(np.maximum(h / T0, 1.0)))
        out = c3_horizon_free.check_horizon_free(bent, 1.05, 16, 0.95)
        assert out["verdict"] == verdict, (factor, out["summary"])


def test_registry_check_stacks_tables_in_registry_order(thresholds):
    tables = {
        experiment: agg_table(
            cells,
            PAIR,
            columns=(*CORE, "eta", *INTERVAL),
            rel_se=0.02,
            experiment=experiment,
            mean=10.0,
        )
        for experiment, cells in (("horizon", _grid()[:2]), ("grid", _grid()[2:]))
    }
    check = CLAIMS["C3"].check_function()
    a = check(tables, thresholds, ["h", "g"])
    b = check(dict(reversed(tables.items())), thresholds, ["g", "h"])
    assert a == b and len(a["cells"]) == len(_grid())
    # experiments the claim does not read are ignored
    assert (
        check({**tables, "gap": tables["grid"].assign(experiment="gap")}, thresholds, ["h", "g"])
        == a
    )


def test_c3_slope_min_is_a_float_array_with_nan_where_the_span_is_empty():
    """(1.5 - 1) x 10 / 2 = 2.5; a span of 0 (T0 = T_max) or NaN (no T0) has no slope."""
    out = c3_horizon_free.slope_min([10.0, 10.0, 10.0], [2.0, 0.0, np.nan], 1.5)
    assert out.dtype == np.float64
    assert out[0] == 2.5
    assert math.isnan(out[1]) and math.isnan(out[2])


def _z(confidence):
    return sps.norm.ppf(0.5 + confidence / 2)


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
        "an added β ln T only for β above (r − 1) Reg(T0) / ln(T_max/T0), from 0.897 to "
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
    :func:`test_c3_record_by_hand`): a Monte Carlo one (kappa 3, 100 runs, means 5, 9, 10,
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


#: C3's plateau target at K=2, gap=1/2, eps=1, c=16: 16 (1 + log 2)/(eta gap) = 433.445678...
#: (the eta term dominates: (1 + log 2)/gap² = 6.77), so T0 = 511 = 2^9 - 1
TARGET, T0 = 433.445678223346, 511


def _flat_cell(k_max: int) -> pd.DataFrame:
    """One rps cell with a flat regret (10 ± 0.01) at the checkpoints 2^k - 1, k = 1..k_max."""
    hs = [(1 << k) - 1 for k in range(1, k_max + 1)]
    return pd.DataFrame(
        {
            "experiment": "x",
            "cell_id": "c0",
            "algorithm": "rps",
            "env": "bernoulli",
            "instance": "standard",
            "K": 2,
            "gap": 0.5,
            "epsilon": 1.0,
            "horizon": hs,
            "runs": 100,
            "mean": 10.0,
            "se": 0.01,
        }
    )


def test_c3_plateau_target_by_hand():
    assert c3_horizon_free.plateau_target(2, 0.5, 1.0, 16) == pytest.approx(TARGET, rel=1e-12)
    # first design (L = log K): 16 log 2/(eta gap) = 177.445678...
    assert c3_horizon_free.plateau_target(2, 0.5, 1.0, 16, 0.0) == pytest.approx(
        177.445678223346, rel=1e-12
    )
    # the statistical term dominates at small gap and large eps: 16 (1 + log 2)/0.01
    assert c3_horizon_free.plateau_target(2, 0.1, np.nan, 16) == pytest.approx(
        2709.0354888959127, rel=1e-12
    )


@pytest.mark.parametrize(
    ("k_max", "reached", "expected"),
    [
        (16, False, "INCONCLUSIVE"),  # T_max = 65535: T_max/T0 = 128.2, between 2^4 and 2^8
        (17, True, "PASS"),  # T_max = 131071: T_max/T0 = 256.5 >= 2^8
    ],
)
def test_c3_cell_between_the_margins(k_max, reached, expected):
    """T0 = 511: reached only when T_max >= 2^8 T0 = 130816, not already at 2^4 T0 (or 2^7)."""
    tab = c3_horizon_free.plateau_table(_flat_cell(k_max), 16, 0.95)
    assert int(tab["h_low"].iloc[0]) == T0
    assert bool(tab["reached"].iloc[0]) is reached
    out = c3_horizon_free.check_horizon_free(_flat_cell(k_max), 1.05, 16, 0.95)
    assert out["verdict"] == expected
    assert out["cells"][0]["verdict"] == ("PASS" if reached else "NOT REACHED")


def test_the_decision_thresholds_defaults():
    """The schema's defaults of the ``checks:`` block, as registered before any result."""
    expected = {
        "confidence": 0.95,
        "power_replicates": 40,
        "agreement_z_max": 4,
        "agreement_min_events": 10,
        "horizon_free_ratio_max": 1.05,
        "horizon_free_c": 16,
        "plateau_octaves": 4,
        "rate_form_factor": 1.5,
        "exponent_range": [0.8, 1.2],
    }
    defaults = check_defaults()
    assert {k: defaults[k] for k in expected} == expected
    assert c3_horizon_free.PLATEAU_MARGIN == 256  # T0 <= T_max / 2^8
