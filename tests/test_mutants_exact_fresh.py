"""Guards found by a fresh mutation sample of the exact engine (``make mutation GROUPS=engine``,
docs/testing.md): the regret loop's stopping rule and its error bound, the M-average's
bisection and its refusal of non-decaying panels, the rounding constants of the convolutions
and cumulative sums, the best group's error and the potential's left-end term, each against
values computed independently (exact rationals, closed forms, brute force)."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

U = 2.0**-53


def _uncapped_regret(T: int, gap: float = 0.5, eta: float = 8.0):
    """(Reg_T, [g_r]) of rps_uncapped (eta = eps/2) on deterministic losses, K = 2: A_0 uniform
    (g_0 = gap/2); A_r (r >= 1) averaged over M_(r-1) uniform on {2^(r-2)+1..2^(r-1)} (M_0 = 1)
    of gap / (1 + e^(eta m gap)); Reg_T = sum_r #(B_r cap [1, T]) g_r."""
    gs, r = [gap / 2], 1
    while (1 << r) <= T:
        lo, hi = (1, 1) if r == 1 else ((1 << (r - 2)) + 1, 1 << (r - 1))
        gs.append(math.fsum(gap / (1 + math.exp(eta * m * gap)) for m in range(lo, hi + 1)))
        gs[-1] /= hi - lo + 1
        r += 1
    n = [min((2 << r) - 1, T) - (1 << r) + 1 for r in range(len(gs))]
    return math.fsum(k * g for k, g in zip(n, gs, strict=True)), gs


def test_regret_loop_stops_against_the_regret_accumulated_so_far():
    """rps_uncapped at eps = 16 (eta = 8), deterministic (1/4, 3/4), T = 511 (blocks 0..8):
    the Chernoff bound of A_r is e^(-eta min M_(r-1) Delta) = e^(-4 m), m = 9 at r = 5. The
    loop ends at block 5 iff its tail sum_(r >= 5) 2^r gb_r <= 1e-6 tol sum_(r < 5) 2^r g_r;
    tol is set between that edge and the edge of twice the accumulated sum (A_r is played
    2^r times, not 2^(r+1)): block 5 is then computed, so its Chernoff bound 32 gb_5 does not
    enter the error bound, which still covers the closed form."""
    from privdtol.engine import exact

    reg, gs = _uncapped_regret(511)
    gb = {r: 0.5 * math.exp(-4 * ((1 << (r - 2)) + 1)) for r in range(5, 9)}
    tail = math.fsum(2**r * b for r, b in gb.items())
    cum = math.fsum([gs[0], *(g * 2**r for r, g in enumerate(gs) if 1 <= r < 5)])
    cum2 = math.fsum([gs[0], *(g * 2 ** (r + 1) for r, g in enumerate(gs) if 1 <= r < 5)])
    tol = tail / (1e-6 * math.sqrt(cum * cum2))  # between the two edges (cum2 / cum = 1.07)
    exact._RECENT.clear()
    got, eb = exact.expected_regret("rps_uncapped", [0.25, 0.75], 16.0, [511], "deterministic", tol)
    assert abs(got[0] - reg) <= eb[0] + 16 * U * reg
    assert eb[0] < 32 * gb[5]  # 3.7e-15: block 5 computed, not bounded
    exact._RECENT.clear()


def test_regret_error_bound_is_positive_at_a_subnormal_scale_regret():
    """Means (0, 1e-300), T = 1: only A_0 (uniform) is played, so Reg_1 = Delta / 2 = 5e-301
    exactly; the relative terms of the bound are ~1e-315 and the floor 1e-300 keeps it a
    nonnegative bound that covers any rounding at this scale."""
    from privdtol.engine import exact

    exact._RECENT.clear()
    reg, eb = exact.expected_regret("rps", [0.0, 1e-300], 1.0, [1], "deterministic")
    assert reg[0] == 5e-301
    assert 1e-300 <= eb[0] <= 1.01e-300
    exact._RECENT.clear()


@pytest.mark.parametrize(("a", "b"), [(0, 10), (1, 2), (5, 37), (100, 164)])
def test_least_finds_the_first_true_of_every_monotone_predicate(a, b):
    """_least bisects a predicate that is false, then true (and true at b): against a linear
    scan, for every threshold t in [a, b] (pred(m) = m >= t)."""
    from privdtol.engine.exact.averaging import _least

    for t in range(a, b + 1):
        assert _least(lambda m, t=t: m >= t, a, b) == t, t


def _stub_averager(logp):
    """An _Averager over a stub law: one group of weight 1 whose law at m is exp(logp(m)),
    exact (zero error), with a zero Chernoff sum; the tolerance so loose that only the
    coefficients' decay can refuse a panel."""
    from privdtol.engine.exact.averaging import _Averager

    def laws(ms):
        v = np.array([[math.exp(logp(m))] for m in ms])
        return v, np.zeros_like(v)

    spec = SimpleNamespace(laws=laws, chernoff_sum=lambda a, b: np.zeros(1))
    avg = _Averager(spec, 1 << 20, np.ones(1))
    avg.tol = 1e9
    return avg


@pytest.mark.parametrize(("degree", "accepted"), [(1, True), (8, False)])
def test_try_refuses_a_panel_whose_coefficients_do_not_decay(degree, accepted):
    """log P(m) = -1 + 0.01 T_d(x), x the panel's map of log m onto [-1, 1], at the rounded
    Chebyshev-Lobatto nodes of degree 8 on [100, 800]: for d = 8 the last two coefficients sum
    to 0.01 and the two before them to 0 (not decaying: refused, however loose the tolerance);
    d = 1 decays (accepted, and its sum matches the law's)."""
    lo, hi, deg = 100, 800, 8
    u0, u1 = math.log(lo), math.log(hi)

    def logp(m):
        x = 2 * (math.log(m) - u0) / (u1 - u0) - 1
        return -1 + 0.01 * math.cos(degree * math.acos(max(-1.0, min(1.0, x))))

    avg = _stub_averager(logp)
    t = np.cos(np.pi * np.arange(deg, -1, -1) / deg)
    ms = np.unique(np.rint(np.exp(u0 + (t + 1) / 2 * (u1 - u0))).astype(np.int64))
    assert ms.size == deg + 1
    p = avg._try(lo, hi, u0, u1, ms, deg)
    assert (p is not None) is accepted
    if accepted:  # and the sum it gives is the sum of the law over [lo, hi]
        S, E = avg._psum(p, lo, hi)
        want = math.fsum(math.exp(logp(m)) for m in range(lo, hi + 1))
        assert abs(S[0] - want) <= E[0] <= 1e-6 * want


@pytest.mark.parametrize(
    ("p", "E", "h"), [(1, 0, 3), (4, 2, 15), (2, 200, 134), (128, 5, 135), (1, 127, 131)]
)
def test_conv_terms_is_the_summation_tree_height(p, E, h):
    """One output of batched_conv is a sum of nonnegative terms over a tree of height
    p min(L, E + 1) (a chunk's dot product) + S (overlap-add, S = ceil((L + E) / L)) + 1 (the
    caller's prefix sum), L = max(1, min(128 // p, E + 1)); by hand: (1, 0): L = 1, 1 + 1 + 1;
    (4, 2): L = 3, 12 + 2 + 1; (2, 200): L = 64, 128 + 5 + 1; (128, 5): L = 1, 128 + 6 + 1;
    (1, 127): L = 128, 128 + 2 + 1."""
    from privdtol.engine.exact.conv import conv_terms

    assert conv_terms(p, E) == h


@pytest.mark.parametrize("N", [1, 256, 257, 3000, 1 << 16, 344064, 1 << 20])
def test_c_sum_covers_the_blocked_cumsums_tree_height(N):
    """_cumsum sums in blocks of 256 (<= 255 additions), then adds the running sum of the
    nb = ceil(N / 256) earlier block totals (<= nb - 1 additions, and 1 more): an output's
    relative error is <= gamma_n, n = 255 + nb (Higham, Sec. 4.2); _c_sum(N) U must cover it
    (N = 344064: the window 2 (10.5 sd + 30) of Binomial(2^30, 1/2); lattices spanning several
    groups are wider). At N = 3000, against exact rationals."""
    from privdtol.engine.exact.numerics import _c_sum, _cumsum

    n = 255 + -(-N // 256)
    assert _c_sum(N) * U >= n * U / (1 - n * U)
    if N == 3000:
        x = np.random.default_rng(3000).random(N) * 10.0 ** np.linspace(-3, 3, N)
        run, worst = Fraction(0), 0.0
        for xi, yi in zip(x, _cumsum(x), strict=True):
            run += Fraction(float(xi))
            worst = max(worst, float(abs(Fraction(float(yi)) - run) / run))
        assert 0 < worst <= _c_sum(N) * U


def test_with_best_covers_the_rounding_of_one_minus_a_tiny_sum():
    """The best group's probability 1 - sum_(g >= 1) n_g P_g: with one other group at
    P = 1e-30 (error 1e-46) the float result is 1.0, 1e-30 from the exact 1 - 1e-30; the
    bound (its 4 U for the rounding of 1 - s) covers that and is never negative."""
    from privdtol.engine.exact.numerics import _with_best

    P, E = _with_best(np.array([[1e-30]]), np.array([[1e-46]]), np.array([1.0, 1.0]))
    assert P[0, 0] == 1.0 and P[0, 1] == 1e-30
    true = abs(Fraction(float(P[0, 0])) - (1 - Fraction(1e-30)))
    assert float(true) > 0.9e-30
    assert true <= Fraction(float(E[0, 0])) <= 8 * U
    assert E[0, 1] >= 1e-46


def test_log_w_error_bound_holds_its_left_end_term_at_large_mean_weight():
    """E[log Z_m] of rps (eps = 1, eta = 1/8), means (0.4, 0.95), m = 2^14 (as in
    tests/test_mutants_engine_bounds.py): the trapezoid sum starts at s_lo with
    e^(s_lo) (1 + E W) <= e^-45; its left end (the nodes and tail below) enters the bound as
    2 e^-45 (1 + E W) / (1 - e^-h) >= e^-45 (1 + E W), and E W = sum_g E e^(-eta (S_g - c)),
    c = m mu_0, is the closed form sum_g ((1 - mu_g + mu_g e^-eta) e^(eta mu_0))^m ~ e^30.7
    (the windows hold all but 1e-22 of the mass; factor 2 to spare)."""
    from privdtol.engine.exact.potential import expected_log_z

    m, eta, mu0 = 1 << 14, 0.125, 0.4
    ew = math.fsum(
        math.exp(m * (math.log1p(-mu * -math.expm1(-eta)) + eta * mu0)) for mu in (0.4, 0.95)
    )
    assert 1e13 < ew < 1e14
    value, err = expected_log_z("rps", [0.4, 0.95], 1.0, [m])
    assert abs(value[0]) <= err[0]
    assert err[0] >= math.exp(-45) * (1 + ew)
    assert err[0] <= 1e-4
