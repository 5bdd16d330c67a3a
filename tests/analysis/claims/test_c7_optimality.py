"""C7: Reg_T/LB_T bounded over K, gap, eps and T, on tables whose ratio is known by construction
(LB_T given as a table, so that the ratio is exactly the shape written)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.claims.c7_optimality import axis_scale, check, growth
from privdtol.core import clock

HORIZONS = tuple(int(h) for h in clock.checkpoints(2**20 - 1)[0])
GRID = [(K, g, e) for K in (2, 8, 64, 512) for g in (0.5, 0.125, 0.03125) for e in (4.0, 1 / 16)]
TH = {"optimality_ratio_max": 256, "optimality_growth_max": 0.25}


def _lb(K, g, e, T):
    """A stand-in for LB_T with its shape: linear in T, then log K/min(gap, eps)."""
    return min(T * g * (1 - 1 / K), 0.3 * np.log(K) / min(g, e) + 0.1)


def _bounds() -> pd.DataFrame:
    rows = [
        {"K": K, "mu": 0.5 + g / 2, "gap": g, "epsilon": e, "horizon": h, "best": _lb(K, g, e, h)}
        for K, g, e in GRID
        for h in HORIZONS
    ]
    df = pd.DataFrame(rows)
    return df.assign(best_error=0.0, statistical=df["best"], privacy=0.0, two_point=0.0)


BOUNDS = _bounds()


def _tables(ratio, algorithm="rps"):
    """Exact cells whose regret is LB_T times ratio(K, gap, eps, T)."""
    cells = [{"algorithm": algorithm, "K": K, "gap": g, "epsilon": e} for K, g, e in GRID]
    table = agg_table(
        cells,
        HORIZONS,
        columns=(*CORE, *INTERVAL),
        estimator="exact",
        rel_se=0.0,
        mean=lambda c, h: (
            _lb(c["K"], c["gap"], c["epsilon"], h) * ratio(c["K"], c["gap"], c["epsilon"], h)
        ),
    )
    return {"grid": table, "lower_bound": BOUNDS}


def test_a_bounded_ratio_passes():
    rec = check(_tables(lambda K, g, e, T: 10 + 5 * np.sin(K + 1 / g + 1 / e)), TH, [])
    assert rec["verdict"] == "PASS"
    assert rec["statistic"] <= 15


def test_a_ratio_growing_like_log_k_fails_with_slope_one():
    rec = check(_tables(lambda K, g, e, T: 100 * np.log2(K)), TH, [])
    assert rec["verdict"] == "FAIL"
    slope = {c["axis"]: c["slope"] for c in rec["cells"]}["log K"]
    assert slope == pytest.approx(1.0, abs=1e-9)  # log(100 log2 K) against log log2 K


def test_linear_regret_fails_through_the_horizon():
    rec = check(_tables(lambda K, g, e, T: T * g * (1 - 1 / K) / _lb(K, g, e, T)), TH, [])
    axes = {c["axis"]: c for c in rec["cells"]}
    assert rec["verdict"] == "FAIL"
    assert axes["T"]["verdict"] == "FAIL"
    assert rec["statistic"] > 1e4


def test_growth_below_the_ceiling_is_inconclusive_not_fail():
    # the rule's stated limit: a growing ratio that never exceeds the ceiling is not called
    # unbounded (monotonicity needs the level in the FAIL half)
    rec = check(_tables(lambda K, g, e, T: 2 * np.log2(K)), TH, [])
    assert rec["verdict"] == "INCONCLUSIVE"


def test_a_ratio_above_the_ceiling_without_growth_is_inconclusive():
    rec = check(_tables(lambda K, g, e, T: 1000.0 + 0 * K), TH, [])
    assert rec["verdict"] == "INCONCLUSIVE"


def test_rising_then_falling_passes():
    # rnm_ftnl's shape in 1/eps on the default grid, here in K: up at first, then down
    rec = check(_tables(lambda K, g, e, T: {2: 12, 8: 40, 64: 40, 512: 30}[K]), TH, [])
    assert rec["verdict"] == "PASS"


def test_the_far_half_of_the_horizon_axis_is_used():
    # a ratio that rises until T = 2^9 then stays: no growth in the far half (T >= 2^10)
    rec = check(_tables(lambda K, g, e, T: 1 + min(T, 511) / 8), TH, [])
    axes = {c["axis"]: c for c in rec["cells"]}
    assert axes["T"]["slope"] == pytest.approx(0.0, abs=1e-9)
    assert rec["verdict"] == "PASS"


def test_the_slope_interval_puts_each_point_at_its_worse_end():
    u = axis_scale(np.array([3.0, 7.0, 15.0]))  # log log2(1 + x): log 2, log 3, log 4
    env = pd.DataFrame(
        {"u": u, "ratio": [1.0, 1.0, 1.0], "low": [0.5, 0.5, 0.5], "high": [2.0, 2.0, 2.0]}
    )
    g = growth(env)
    w = (u - u.mean()) / ((u - u.mean()) ** 2).sum()
    assert g["slope"] == 0.0
    assert g["upper"] == pytest.approx(np.log(4) * w[w > 0].sum())
    assert g["lower"] == pytest.approx(-g["upper"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=len(GRID), max_size=len(GRID)))
def test_an_algorithm_below_one_that_passes_never_fails(factors):
    """Monotonicity: A's ratio at most B's everywhere and B PASSes => A does not FAIL."""

    def b_ratio(K, g, e, T):
        return 20 + 10 * np.cos(K * g)

    assert check(_tables(b_ratio), TH, [])["verdict"] == "PASS"
    scale = dict(zip(GRID, factors, strict=True))
    rec = check(_tables(lambda K, g, e, T: b_ratio(K, g, e, T) * scale[(K, g, e)]), TH, [])
    assert rec["verdict"] != "FAIL"


def test_no_cells_of_the_algorithm_is_inconclusive():
    rec = check(_tables(lambda K, g, e, T: 10.0), TH, [], algorithm="rnm_ftnl")
    assert rec["verdict"] == "INCONCLUSIVE"


def _searches(regret):
    """One rps search at K = 4, gap 1/8, eps 1 (not a grid cell) whose standard regret is
    0.02 x 1000 = 20 and whose lower_max instance has regret ``regret``."""
    base = {
        "search_id": "s1",
        "algorithm": "rps",
        "K": 4,
        "gap": 0.125,
        "epsilon": 1.0,
        "standard_means": "0.4375 0.5625 0.5625 0.5625",
        "theorem1_bound": 1000.0,
        "error_bound": 1e-9,
        "standard_value": 0.02,
    }
    return pd.DataFrame(
        [
            {**base, "objective": "theorem1", "regret": 20.0, "means": base["standard_means"]},
            {**base, "objective": "lower_max", "regret": regret, "means": "0 0.125 0.5 0.9"},
        ]
    )


def _with_search(tables, regret):
    worst = pd.DataFrame({"cell_id": "s1-theorem1", "horizon": [1, HORIZONS[-1]]})
    return {**tables, "searches": _searches(regret), "worst_case": worst}


def test_a_found_instance_above_the_ceiling_makes_c7_not_pass():
    base = _tables(lambda K, g, e, T: 10 + 5 * np.sin(K + 1 / g + 1 / e))
    assert check(base, TH, [])["verdict"] == "PASS"
    # LB_T of the standard instance at K = 4, gap 1/8, eps 1 is below 10 (at most the
    # log K/min(gap, eps) = 11.1 of the rate): a regret of 1e5 is far above 256 LB_T
    rec = check(_with_search(base, 1e5), TH, [])
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["statistic"] > 256
    assert rec["found_instances"][0]["K"] == 4
    assert rec["found_instances"][0]["objective"] == "lower_max"


def test_a_found_instance_below_the_ceiling_leaves_the_verdict_and_is_listed():
    base = _tables(lambda K, g, e, T: 10 + 5 * np.sin(K + 1 / g + 1 / e))
    plain_rec = check(base, TH, [])
    rec = check(_with_search(base, 21.0), TH, [])
    assert rec["verdict"] == plain_rec["verdict"] == "PASS"
    (entry,) = rec["found_instances"]
    assert entry["regret"] == 21.0 and entry["standard_regret"] == pytest.approx(20.0)
    assert entry["ratio"] == pytest.approx(21.0 / entry["lb"])
    assert "more regret than the standard instance" in rec["summary"]


def test_without_searches_the_record_says_so():
    rec = check(_tables(lambda K, g, e, T: 10.0), TH, [])
    assert rec["found_instances"] == [] and "no worst-case searches" in rec["summary"]
