"""Tests for mutants of the engine that round 3 of the fresh samples counted as timeouts under
the machine's load and that survived when run again (docs/testing.md): the regret bound's
rounding per block and its loop's stopping tolerance, the M-averager's panel after a shrink,
and _cumsum's exact prefix sums."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

U = 2.0**-53


def test_regret_bound_adds_one_rounding_per_block_of_the_horizon():
    """rps_uncapped at eps = 200 (eta = 100), deterministic (1/4, 3/4): the Chernoff bound of
    A_1 is e^(-eta m Delta) = e^-50 (m = 1), so the tail of blocks r >= 1, ~2 (1/2) e^-50, is
    below 1e-16 of the regret so far (A_0's Delta/2 = 1/4) and the loop stops at once:
    Reg_T = 1/4 exactly. At T = 2^20 - 1 (R = 20 blocks) the bound is A_0's rounding 4 U (1/4)
    + the rounding of the sum over the R blocks 4 R U Reg_T + the skipped blocks' Chernoff
    bounds sum_r 2^r (1/2) e^(-50 min M_(r-1)) = e^-50 + ~e^-100: 21 U + e^-50."""
    from privdtol.engine import exact

    exact._RECENT.clear()
    reg, eb = exact.expected_regret(
        "rps_uncapped", [0.25, 0.75], 200.0, [(1 << 20) - 1], "deterministic"
    )
    exact._RECENT.clear()
    assert reg[0] == 0.25
    assert eb[0] == pytest.approx(21 * U + math.exp(-50.0), rel=1e-13, abs=0)


def test_regret_loop_bounds_a_block_against_the_regret_accumulated_so_far():
    """rps_uncapped at eps = 16 (eta = 8), deterministic (1/4, 3/4), T = 511, as in
    tests/test_mutants_exact_fresh.py: the loop bounds block 5 by its Chernoff bound (without
    computing it) iff its tail sum_(r >= 5) 2^r gb_r <= 1e-6 tol cum, cum = g_0 + sum_(r < 5)
    2^r g_r the regret accumulated over blocks 0..4 (each g_r played 2^r times). tol is set
    between that edge and the edge of A_0's g_0 = 1/4 alone (cum / g_0 = 1.08): block 5 is
    bounded, so its bound 32 gb_5 enters the error bound, which covers the closed form; the
    tolerance passed is the one used (at the default 1e-10 block 5 is computed)."""
    from test_mutants_exact_fresh import _uncapped_regret

    from privdtol.engine import exact

    reg, gs = _uncapped_regret(511)
    gb = {r: 0.5 * math.exp(-4 * ((1 << (r - 2)) + 1)) for r in range(5, 9)}
    tail = math.fsum(2**r * b for r, b in gb.items())
    cum = math.fsum([gs[0], *(g * 2**r for r, g in enumerate(gs) if 1 <= r < 5)])
    assert gs[0] == 0.25 and 1.07 < cum / gs[0] < 1.09
    tol = tail / (1e-6 * math.sqrt(cum * gs[0]))
    exact._RECENT.clear()
    got, eb = exact.expected_regret("rps_uncapped", [0.25, 0.75], 16.0, [511], "deterministic", tol)
    exact._RECENT.clear()
    assert abs(got[0] - reg) <= eb[0] + 16 * U * reg
    assert eb[0] >= 32 * gb[5]


def test_panel_after_a_shrunk_one_is_as_wide_relatively():
    """An _Averager over a stub law (one group of weight 1, law e^(-1 + 0.01 cos(40 log m)),
    exact; Chernoff bound 1: nothing negligible or cut; tolerance 1 per m: only the decay of
    the Chebyshev coefficients refuses a panel). cos(40 log m) needs a degree above 32 on a
    panel of log-span beyond ~1.6, so [65, 520] (span 2.08) shrinks to its geometric middle
    [65, round(sqrt(65 x 520)) = 184] and [527, 3002] (span 1.74) to [527, 1258]. By the
    panel rule, the first panel is [1, max(8, 1 + 64)] (shrunk to the 64 exact values); a
    panel [lo, hi] makes the next one (from m = hi + 1) reach int(ratio m), ratio =
    min(8, k (hi + 1) / lo), k = 1 after a shrink, else 2: 8 after [1, 64]; 185 / 65 after
    [65, 184], so 526; 2 x 527 / 185 after [185, 526], so 3002 (shrunk); 1259 / 527 after
    [527, 1258], so 3007; 2 x 3008 / 1259 after [1259, 3007], so 14373. The sum over
    1..5000 is within its bound of the direct sum."""
    from privdtol.engine.exact.averaging import _Averager

    def logp(m):
        return -1 + 0.01 * math.cos(40 * math.log(m))

    def laws(ms):
        v = np.array([[math.exp(logp(m))] for m in ms])
        return v, np.zeros_like(v)

    spec = SimpleNamespace(
        laws=laws,
        chernoff=lambda m: np.ones((*np.shape(m), 1)),
        chernoff_sum=lambda a, b: np.zeros(1),
        ns=np.ones(1),
    )
    avg = _Averager(spec, 1 << 20, np.ones(1))
    avg.tol = 1.0
    S, E = avg.sum(1, 5000)
    spans = [(p[0], p[1]) for p in avg.panels]
    assert spans == [(1, 64), (65, 184), (185, 526), (527, 1258), (1259, 3007), (3008, 14373)]
    assert avg.panels[0][2] is None and all(isinstance(p[2], float) for p in avg.panels[1:])
    want = math.fsum(math.exp(logp(m)) for m in range(1, 5001))
    assert abs(S[0] - want) <= E[0]


def test_cumsum_is_exact_on_integers_across_blocks_and_rows():
    """_cumsum sums along the last axis in blocks of 256 (nb = ceil(N / 256) blocks, each
    carried by the running total of the earlier blocks' last sums): on integers (every partial
    sum exact in binary) it is the exact inclusive prefix sum, row by row, for N = 257 (one
    value past the first block) and N = 600 (three blocks, the last partial)."""
    from privdtol.engine.exact.numerics import _cumsum

    rng = np.random.default_rng(24)
    for N in (257, 600):
        x = rng.integers(0, 1000, size=(2, N)).astype(float)
        assert _cumsum(x).tolist() == np.cumsum(x, axis=-1).tolist()
