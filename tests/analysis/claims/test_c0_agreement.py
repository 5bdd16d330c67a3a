"""Tests of :mod:`privdtol.analysis.claims.c0_agreement`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from privdtol.analysis.claims import (
    c0_agreement,
)
from privdtol.analysis.claims.c0_agreement import check_agreement, pair_table
from privdtol.engine.runner import exact_table, make_spec, run_cell
from privdtol.pipeline.aggregate import summarize_cell

Z_MAX = 4.0


HORIZONS = (1 << np.arange(1, 11)) - 1


def _rows(estimator, means, se, algorithm="rps", K=8, runs=1000):
    n = len(HORIZONS)
    return pd.DataFrame(
        {
            "algorithm": [algorithm] * n,
            "env": ["bernoulli"] * n,
            "instance": ["standard"] * n,
            "K": [K] * n,
            "gap": [0.125] * n,
            "epsilon": [1.0] * n,
            "mu_best": [np.nan] * n,
            "rho": [np.nan] * n,
            "kappa": [np.nan] * n,
            "horizon": HORIZONS,
            "runs": [0 if estimator == "exact" else runs] * n,
            "estimator": [estimator] * n,
            "mean": means,
            "se": se,
            "ci_low": means - 1.96 * se,
            "ci_high": means + 1.96 * se,
        }
    )


def _synthetic(shift_sd: float, seed: int, n_cells: int = 6) -> pd.DataFrame:
    """n_cells cells: exact values, and Monte Carlo means drawn around them with their standard
    error, the last pair of the last cell moved by ``shift_sd`` standard errors."""
    rng = np.random.default_rng(seed)
    parts = []
    for c in range(n_cells):
        exact = 10.0 * np.log1p(HORIZONS) * (c + 1)
        se = 0.02 * exact
        mc = exact + se * rng.standard_normal(exact.size)
        if c == n_cells - 1:
            mc[-1] = exact[-1] + shift_sd * se[-1]
        parts.append(_rows("exact", exact, np.full(exact.size, 1e-9), K=2 + c))
        parts.append(_rows("fast", mc, se, K=2 + c))
    return pd.concat(parts, ignore_index=True)


def test_size_on_tables_built_to_agree():
    """Monte Carlo draws around the exact values: false FAILs within the Bonferroni bound
    (6 cells x 10 horizons x 2 Phi(-4) = 0.4% per table; none over 50 seeded tables)."""
    verdicts = [
        check_agreement(_synthetic(0.0, s), Z_MAX, min_events=None)["verdict"] for s in range(50)
    ]
    assert verdicts.count("FAIL") == 0, verdicts


@pytest.mark.parametrize("shift", [4.5, -6.0, 20.0])
def test_fails_on_tables_built_to_disagree(shift):
    rec = check_agreement(_synthetic(shift, seed=1), Z_MAX, min_events=None)
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] == pytest.approx(abs(shift), rel=1e-3)
    worst = max(rec["cells"], key=lambda c: c["z"])
    assert worst["K"] == 7 and worst["horizon"] == HORIZONS[-1]


def test_error_bound_is_subtracted():
    """A distance inside the exact value's error bound is no disagreement."""
    exact = np.full(len(HORIZONS), 100.0)
    tab = pd.concat(
        [
            _rows("exact", exact, np.full(exact.size, 3.0)),
            _rows("fast", exact + 5.0, np.full(exact.size, 0.1)),
        ]
    )
    # error bound 1.96 * 3 = 5.88 > 5: z = 0
    assert check_agreement(tab, Z_MAX, min_events=None)["statistic"] == 0.0


def test_zero_standard_error_is_compared_by_a_bound():
    """Pairs with s.e. 0 get no z (not z = 0): they are compared by a bound, error bound +
    rounding + (1 - alpha^(1/n)) T max gap (alpha = 2 Phi(-4), n = 1000 runs: 0.962% of
    T max gap; max gap 0.125 on the standard K = 8 instance)."""
    exact = np.linspace(1, 10, len(HORIZONS))
    zero = np.zeros(exact.size)
    same = pd.concat([_rows("exact", exact, zero), _rows("fast", exact.copy(), zero)])
    rec = check_agreement(same, Z_MAX, min_events=None)
    assert rec["verdict"] == "PASS"
    assert all(c["z"] is None and c["bounded"] == 10 for c in rec["cells"])
    assert "10 with s.e. 0 compared by a bound" in rec["summary"] and "0 disagree" in rec["summary"]
    pairs = pair_table(same)
    assert (pairs["comparison"] == "bounded").all() and pairs["z"].isna().all()
    # tolerance at T = 1: 1 - exp(log(6.334e-5) / 1000) = 0.009620 of 0.125
    assert pairs["tolerance"].iloc[0] == pytest.approx(0.125 * 0.009620, rel=1e-3)
    # a departure inside the tolerance agrees ...
    near = pd.concat([_rows("exact", exact, zero), _rows("fast", exact + 0.001, zero)])
    assert check_agreement(near, Z_MAX, min_events=None)["verdict"] == "PASS"


def test_planted_disagreeing_zero_se_row_fails():
    """One planted s.e.-0 pair off by more than its bound FAILs C0, although every z pair of
    the table agrees: at T = 1 (A_0 uniform) the regret of every run is the mean gap 0.109375,
    a Monte Carlo value of 0.2 there is a defect, not chance."""
    tab = _synthetic(0.0, seed=1)
    first = tab[(tab["estimator"] == "fast") & (tab["K"] == 2) & (tab["horizon"] == 1)].index
    tab.loc[first, ["se", "mean"]] = [0.0, tab.loc[first, "mean"].iloc[0] + 0.2]
    ex = tab[(tab["estimator"] == "exact") & (tab["K"] == 2) & (tab["horizon"] == 1)].index
    tab.loc[first, "mean"] = tab.loc[ex, "mean"].iloc[0] + 0.2
    rec = check_agreement(tab, Z_MAX, min_events=None)
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] < Z_MAX  # the z pairs alone would pass
    bad = [c for c in rec["cells"] if c["verdict"] == "FAIL"]
    assert len(bad) == 1 and bad[0]["K"] == 2 and bad[0]["bounded_disagree"] == 1
    assert bad[0]["comparison"] == "bounded" and bad[0]["horizon"] == 1
    assert "1 disagree" in rec["summary"]
    # the same row inside its bound passes (the check is not FAILing on s.e. 0 as such)
    tab.loc[first, "mean"] = tab.loc[ex, "mean"].iloc[0]
    assert check_agreement(tab, Z_MAX, min_events=None)["verdict"] == "PASS"


def test_no_pairs_is_inconclusive():
    exact = np.ones(len(HORIZONS))
    only_exact = _rows("exact", exact, exact * 0)
    assert check_agreement(only_exact, Z_MAX, min_events=None)["verdict"] == "INCONCLUSIVE"
    assert check_agreement(pd.DataFrame(), Z_MAX, min_events=None)["verdict"] == "INCONCLUSIVE"


def _engine_rows(algorithm, exact_algorithm=None, runs=2000):
    """Aggregated rows of one K = 8 cell, Monte Carlo (``algorithm``) and exact
    (``exact_algorithm``, default the same), labelled as the same algorithm."""
    kw = dict(K=8, gap=0.125, horizon=(1 << 12) - 1)
    cell = {"cell_id": "c"}  # the engine's tables carry the other parameter columns
    mc = run_cell(make_spec(algorithm, 0.5, runs=runs, seed=3, **kw))[0].assign(**cell)
    ex = exact_table(make_spec(exact_algorithm or algorithm, 0.5, runs=0, **kw)).assign(**cell)
    mc, ex = summarize_cell(mc), summarize_cell(ex)
    ex["algorithm"] = algorithm
    return pd.concat([mc, ex], ignore_index=True)


def test_real_engines_agree_and_a_wrong_law_is_caught():
    """rps by both engines agrees; the exact values of rps_full_prefix (the full block as
    prefix: a different selection law, about 1.4x less regret) paired with rps's Monte Carlo
    means must FAIL: C0 is seen to catch a wrong exact law on real output."""
    good = check_agreement(_engine_rows("rps"), Z_MAX, min_events=10)
    assert good["verdict"] == "PASS", good["summary"]
    bad = check_agreement(
        _engine_rows("rps", exact_algorithm="rps_full_prefix"), Z_MAX, min_events=10
    )
    assert bad["verdict"] == "FAIL", bad["summary"]
    assert len(pair_table(_engine_rows("rnm_ftnl"))) == 12


def test_rare_event_pairs_are_left_out():
    """K = 1024, T = 7 (the paper run's case): a run's regret is at most M = 7 gap and the exact
    mean 0.874066 leaves 2000 (M - mean)/M = 2.1 runs expected below M. A sample se built from
    the one event seen must not decide the verdict; the guard leaves such pairs out (and says
    so), while a pair with room for events is still checked."""
    h = HORIZONS
    M = h * 0.125
    exact = M * (1 - 0.00107)  # as rnm_ftnl at K = 1024, eps = 1: nearly always suboptimal
    mc, se = M * (1 - 0.00028), M * 0.00014  # one best-action event seen in 2000 runs
    tab = pd.concat([_rows("exact", exact, 0 * h + 1e-15), _rows("fast", mc, se, runs=2000)])
    tab["K"] = 1024
    assert check_agreement(tab, Z_MAX, min_events=None)["verdict"] == "FAIL"
    rec = check_agreement(tab, Z_MAX, min_events=10)
    assert rec["verdict"] == "INCONCLUSIVE" and "No cell" in rec["summary"]
    low = 0.01 * M  # far from the worst case: checked, however small the mean
    ok = pd.concat([tab, _rows("exact", low, 0 * h), _rows("fast", low + 9 * se, se)])
    rec = check_agreement(ok, Z_MAX, min_events=10)
    assert rec["verdict"] == "FAIL" and "Left out: 10 pairs" in rec["summary"]


def test_explicit_reference_agrees_with_the_exact_engine_at_k_1024():
    """The round-by-round simulator (estimator per_round, every round's loss vector drawn) and
    the exact engine on rps at K = 1024, gap 1/2, eps 1, T = 2^10 - 1 (60 runs, ~0.5 s), where
    rps identifies the best action; the exact values of another algorithm (rps_uncapped,
    eta = 1/2 instead of 1/8) are not accepted for it."""
    kw = dict(K=1024, gap=0.5, horizon=(1 << 10) - 1)
    cell = {"cell_id": "c"}  # the engine's tables carry the other parameter columns
    mc = run_cell(make_spec("rps", 1.0, runs=60, seed=5, mode="explicit", **kw))[0]
    mc = summarize_cell(mc.assign(**cell))
    assert (mc["estimator"] == "per_round").all()
    ex = summarize_cell(exact_table(make_spec("rps", 1.0, runs=0, **kw)).assign(**cell))
    rec = check_agreement(pd.concat([mc, ex], ignore_index=True), Z_MAX, min_events=10)
    assert rec["verdict"] == "PASS", rec["summary"]
    assert rec["cells"][0]["estimator"] == "per_round"
    wrong = summarize_cell(
        exact_table(make_spec("rps_uncapped", 1.0, runs=0, **kw)).assign(**cell)
    ).assign(algorithm="rps")
    bad = check_agreement(pd.concat([mc, wrong], ignore_index=True), Z_MAX, min_events=10)
    assert bad["verdict"] == "FAIL", bad["summary"]


def test_float_noise_of_a_deterministic_law_is_no_disagreement():
    """The default run's case: rps_full_prefix on deterministic losses, runs equal but for
    their last bits (se 4.8e-16), the mean 6.6e-15 beyond the exact error bound 8.8e-15: float
    summation (1e-9 relative), not a distance of 13.7 standard errors."""
    exact = np.full(len(HORIZONS), 0.763466)
    tab = pd.concat(
        [
            _rows("exact", exact, np.full(exact.size, 8.77e-15 / 1.96)),
            _rows("fast", exact + 1.54e-14, np.full(exact.size, 4.85e-16)),
        ]
    )
    rec = check_agreement(tab, Z_MAX, min_events=None)
    assert rec["verdict"] == "PASS" and rec["statistic"] == 0.0
    far = tab.assign(mean=np.where(tab["estimator"] == "fast", exact[0] * (1 + 1e-6), tab["mean"]))
    assert check_agreement(far, Z_MAX, min_events=None)["verdict"] == "FAIL"


def _pair(mc_mean: float, se: float, exact: float = 10.0, bound: float = 0.0) -> pd.DataFrame:
    base = {
        "algorithm": "rps",
        "env": "bernoulli",
        "instance": "standard",
        "K": 8,
        "gap": 0.125,
        "epsilon": 1.0,
        "mu_best": np.nan,
        "rho": np.nan,
        "kappa": np.nan,
        "horizon": 1023,
    }
    return pd.DataFrame(
        [
            {**base, "runs": 0, "estimator": "exact", "mean": exact, "se": 0.0,
             "ci_low": exact - bound, "ci_high": exact + bound},
            {**base, "runs": 1000, "estimator": "fast", "mean": mc_mean, "se": se,
             "ci_low": mc_mean - 1.96 * se, "ci_high": mc_mean + 1.96 * se},
        ]
    )  # fmt: skip


@pytest.mark.parametrize(("distance", "agree"), [(3.0, True), (4.0, True), (5.0, False)])
def test_a_z_pair_agrees_up_to_z_max(distance, agree):
    pairs = pair_table(_pair(10.0 + distance * 0.1, 0.1), z_max=4.0)
    (row,) = pairs.itertuples()
    assert row.comparison == "z"
    assert row.z == pytest.approx(distance)
    assert bool(row.agree) is agree


def test_the_distance_starts_beyond_the_exact_error_bound():
    """An exact value with error bound 0.2: a Monte Carlo mean 0.6 away is 0.4 beyond it,
    4 s.e. of 0.1 (agrees at z_max 4); 0.7 away is 5 s.e. beyond (disagrees)."""
    near = pair_table(_pair(10.6, 0.1, bound=0.2), z_max=4.0)
    far = pair_table(_pair(10.7, 0.1, bound=0.2), z_max=4.0)
    assert near["z"].iloc[0] == pytest.approx(4.0) and bool(near["agree"].iloc[0])
    assert far["z"].iloc[0] == pytest.approx(5.0) and not bool(far["agree"].iloc[0])


#: C0's thresholds (the schema's defaults are 4 and 10; 3 puts the edge at a round number)
THRESHOLDS_C0 = {"agreement_z_max": 3.0, "agreement_min_events": 10}


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


def _two_agreement_cells():
    """K = 2 standard (z = (2 - 0.5) / 0.5 = 3) and the K = 3 staircase with 20 runs (M = 6,
    exact 3: 20 x 3/6 = 10 runs expected below M, kept; z = (3.1 - 3 - 3e-9) / 0.5 = 0.2)."""
    return pd.concat(
        [
            _agreement(2.0, 0.5, 0.0, 0.5),
            _agreement(3.1, 0.5, 3.0, 0.0, runs=20, instance="staircase", K=3),
        ],
        ignore_index=True,
    )


def test_c0_record_names_every_algorithm_as_all():
    rec = c0_agreement.check({"agreement": _two_agreement_cells()}, THRESHOLDS_C0, [])
    assert rec["algorithm"] == "all"
    assert rec["control_of"] is None


def test_c0_lists_one_cell_per_parameter_set():
    """The two cells share algorithm, env and estimator but not instance and K: two cells, by
    instance ("staircase" < "standard"), each with its own pair."""
    rec = c0_agreement.check({"agreement": _two_agreement_cells()}, THRESHOLDS_C0, [])
    assert [(c["instance"], c["K"], c["pairs"]) for c in rec["cells"]] == [
        ("staircase", 3, 1),
        ("standard", 2, 1),
    ]
    assert [c["z"] for c in rec["cells"]] == [pytest.approx(0.2, rel=1e-6), 3.0]
    assert rec["summary"].startswith("2 cells (rps; Monte Carlo estimators mc) computed both")


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


def test_c0_names_every_monte_carlo_estimator_in_order():
    """Two cells, one estimated by "mc", one by "explicit": both named, sorted, comma-joined."""
    a = _agreement(1.0, 0.5, 1.0, 0.1)
    b = _agreement(1.0, 0.5, 1.0, 0.1, K=4)
    b.loc[b["estimator"] == "mc", "estimator"] = "explicit"
    rec = c0_agreement.check({"agreement": pd.concat([a, b])}, THRESHOLDS_C0, [])
    assert "(rps; Monte Carlo estimators explicit, mc)" in rec["summary"]
