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
