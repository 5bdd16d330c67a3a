"""Tests of :mod:`privdtol.engine.exact.averaging`: the M-average of the selection laws over a
block's prefix lengths (Section 4) by Chebyshev panels in log m, with the Chernoff bounds
deciding what is negligible or predicted to lose its value, and its error bound."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from support.engine_laws import U

from privdtol.engine import exact
from privdtol.engine.exact import averaging, expected_regret
from privdtol.environments import instance_means


def _cuts(monkeypatch, means):
    """Panels of the M-average cut for want of a value, while computing the regret to 2^30."""
    seen = []
    try_panel = averaging._Averager._try

    def spy(self, *args):
        out = try_panel(self, *args)
        seen.append(bool(self.cut))
        return out

    monkeypatch.setattr(averaging._Averager, "_try", spy)
    exact._RECENT.clear()  # computed anew, not the last result of this law
    expected_regret("rps", means, 0.5, [(1 << 30) - 1])
    return sum(seen)


def test_panels_are_not_cut_for_want_of_a_value(monkeypatch):
    """The Chernoff bounds end a panel before a group that matters loses its value, so no
    panel's laws are computed in vain; without that prediction some panel is cut."""
    means = instance_means(128, 1 / 32, None, "staircase")
    assert _cuts(monkeypatch, means) == 0
    monkeypatch.setattr(averaging, "VALUED", 0.0)
    assert _cuts(monkeypatch, means) > 0


def _det_rps(means):
    """rps at eps = 1 (eta = min(1/2, 1/8) = 1/8) on deterministic losses: its Chernoff bound
    on group g is exactly min over theta <= eta of e^(-theta m Delta_g) = e^(-m Delta_g / 8)."""
    from privdtol.engine.exact.spec import _Spec

    return _Spec("rps", means, 1.0, "deterministic")


@pytest.mark.parametrize(("factor", "free"), [(1.1, True), (0.9, False)])
def test_cut_free_flags_half_the_chernoff_sum_against_the_tolerance(factor, free):
    """A group is flagged on [lo, h] when weight x Chernoff sum / 2 > tol (h - lo + 1) and
    predicted to lose its value at h when its Chernoff bound there is < 1e-20. Means (1/4, 3/4):
    weight 1/2, bound e^(-m/16); at h = 900, e^(-56.25) = 3.7e-25 < 1e-20. The tolerance is
    set 10% on either side of the edge: 1.1 x (the halved sum) is not flagged (cut-free)."""
    from privdtol.engine.exact.averaging import _Averager

    spec = _det_rps([0.25, 0.75])
    avg = _Averager(spec, 4096, spec.ns * spec.delta)
    lo, h = 800, 900
    csum = math.fsum(math.exp(-m / 16) for m in range(lo, h + 1))
    avg.tol = factor * (0.5 * csum / 2) / (h - lo + 1)
    assert avg._cut_free(h, lo) is free
    # a group whose bound at h (e^(-18.75) = 7e-9) keeps its value is never a reason to cut
    avg.tol = 0.0
    assert avg._cut_free(300, 200) is True


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


def _lagrange(nodes, x):
    """l_i(x) = prod_(j != i) (x - x_j) / (x_i - x_j), in exact rationals."""
    nodes, x = [Fraction(v) for v in nodes], Fraction(x)
    return [
        math.prod((x - xj) / (xi - xj) for j, xj in enumerate(nodes) if j != i)
        for i, xi in enumerate(nodes)
    ]


@pytest.mark.parametrize(("a", "b"), [(30, 50), (40, 40)])
def test_psum_sums_the_interpolant_and_bounds_its_errors(a, b):
    """_psum on a fabricated degree-2 panel over [lo, hi] = [20, 80] (nodes x = -1, 0, 1 of
    the map x = 2 (log m - log lo) / (log hi - log lo) - 1), two groups: group 0 interpolated,
    log P(x) = -1 + 0.3 x - 0.05 (2 x^2 - 1), node errors eps = (1e-3, 2e-3, 4e-3) and
    interpolation error delta = 0.01; group 1 has none (pos False). For n = b - a + 1 <= 256
    the sum is exact over the integers: S_0 = sum_m P(x_m), E_0 = S_0 (e^delta - 1) +
    sum_m P(x_m) sum_i |l_i(x_m)| eps_i + 8 U S_0 (l_i the Lagrange basis at the nodes, worked
    out in exact rationals); group 1 is bounded by half its Chernoff sum over [a, b], 6 / 2, as
    value and as error."""
    from privdtol.engine.exact.averaging import _Averager

    lo, hi = 20, 80
    u0, u1 = math.log(lo), math.log(hi)
    nodes = [-1.0, 0.0, 1.0]
    Tinv = np.linalg.inv(np.polynomial.chebyshev.chebvander(np.array(nodes), 2))
    coef = np.array([[-1.0, 0.0], [0.3, 0.0], [-0.05, 0.0]])
    pos = np.array([True, False])
    eps = np.array([[1e-3, 0.0], [2e-3, 0.0], [4e-3, 0.0]])
    calls = []

    def csum(x, y):
        calls.append((x, y))
        return np.array([100.0, 6.0])

    p = lo, hi, u0, u1, coef, pos, 0.01, csum, Tinv, eps
    S, E = _Averager._psum(p, a, b)
    xs = [2 * (math.log(m) - u0) / (u1 - u0) - 1 for m in range(a, b + 1)]
    vals = [math.exp(-1 + 0.3 * x - 0.05 * (2 * x * x - 1)) for x in xs]
    s0 = math.fsum(vals)
    node = math.fsum(
        v
        * float(
            sum(abs(li) * Fraction(e) for li, e in zip(_lagrange(nodes, x), eps[:, 0], strict=True))
        )
        for v, x in zip(vals, xs, strict=True)
    )
    e0 = s0 * math.expm1(0.01) + node + 8 * U * s0
    assert calls == [(a, b)]
    assert S[0] == pytest.approx(s0, rel=1e-13, abs=0)
    assert E[0] == pytest.approx(e0, rel=1e-12, abs=0)
    assert S[1] == 3.0 and E[1] == 3.0


def test_psum_gauss_rule_over_a_long_range_matches_the_integer_sum():
    """Beyond 256 terms _psum sums by a 40-node discrete Gauss rule of the uniform measure on
    the n integers (exact for polynomials of degree <= 79 in m; P analytic in m > 0): on
    [300, 1299] (n = 1000) of a panel [300, 2400] with log P = -2 + 0.5 x (x as above), the sum
    agrees with the direct sum over the integers to 1e-12 relative; with zero node and
    interpolation errors the bound is the rounding term 8 U S."""
    from privdtol.engine.exact.averaging import _Averager

    lo, hi, a, b = 300, 2400, 300, 1299
    u0, u1 = math.log(lo), math.log(hi)
    Tinv = np.linalg.inv(np.polynomial.chebyshev.chebvander(np.array([-1.0, 0.0, 1.0]), 2))
    coef = np.array([[-2.0], [0.5], [0.0]])
    p = lo, hi, u0, u1, coef, np.array([True]), 0.0, lambda x, y: np.zeros(1), Tinv
    S, E = _Averager._psum((*p, np.zeros((3, 1))), a, b)
    want = math.fsum(
        math.exp(-2 + 0.5 * (2 * (math.log(m) - u0) / (u1 - u0) - 1)) for m in range(a, b + 1)
    )
    assert S[0] == pytest.approx(want, rel=1e-12, abs=0)
    assert E[0] == pytest.approx(8 * U * want, rel=1e-12, abs=0)


def _averager(chernoff, wt, tol, mref):
    """An _Averager over a stub spec whose Chernoff bounds at m are ``chernoff(m)`` (a
    function), or ``chernoff`` at every m."""
    from privdtol.engine.exact.averaging import _Averager

    bound = chernoff if callable(chernoff) else lambda m: np.asarray(chernoff, dtype=float)
    spec = SimpleNamespace(chernoff=bound)
    avg = _Averager(spec, 1 << 20, np.asarray(wt, dtype=float))
    avg.tol, avg.mref = tol, mref
    return avg


@pytest.mark.parametrize(
    ("wt", "m", "mref", "level"),
    [
        # two groups of positive weight (the zero-weight one is not counted), m <= mref / 2:
        # level = 0.05 tol / 2 = 0.0125 at tol = 0.5
        ([1.0, 0.0, 1.0], 10, 100, 0.0125),
        # the same beyond mref / 2: level = 0.05 tol (mref / 2m) / 2, mref / 2m = 50 / 200
        ([1.0, 0.0, 1.0], 100, 50, 0.0125 * 0.25),
        # one group of positive weight (of weight 4, so its bound is 4 x chernoff): level
        # 0.05 tol = 0.025
        ([0.0, 4.0, 0.0], 3, 6, 0.025),
    ],
)
def test_negligible_compares_weighted_bounds_with_the_per_group_level(wt, m, mref, level):
    """_negligible(m): every group of positive weight has weight x Chernoff bound at most
    0.05 tol min(1, mref / (2 m)) / #(positive weights) (the class docstring: 5% of the
    tolerance per group; beyond mref the tolerance is tol mref / m). At tol = 0.5 the level is
    worked out by hand per case; a bound equal to the level is negligible (<=), one 1e-12
    above it is not, whatever the zero-weight groups' bounds (set to 1)."""
    wt = np.array(wt)
    for c, want in ((level, True), (level * (1 + 1e-12), False), (level / 3, True)):
        ch = np.where(wt > 0, c / np.where(wt > 0, wt, 1.0), 1.0)
        assert _averager(ch, wt, 0.5, mref)._negligible(m) is want, (c, want)


def test_negligible_with_no_weighted_group_is_true():
    """With every weight zero nothing can matter: negligible at any m (the count is
    max(1, 0) = 1, no division by zero), even with Chernoff bounds of 1."""
    assert _averager([1.0, 1.0], [0.0, 0.0], 0.5, 10)._negligible(7) is True


def _decaying(tol):
    """An _Averager of one group of weight 1 whose Chernoff bound at m is 1 / m, tolerance
    ``tol``, mref so large that min(1, mref / (2 m)) = 1: the level is 0.05 tol, so at
    tol = 0.5 the law is negligible from m = 40 on (1 / m <= 0.025; 1 / 40 and 0.05 x 0.5 are
    the same double, checked in the test)."""
    return _averager(lambda m: np.array([1.0 / m]), [1.0], tol, 1 << 40)


@pytest.mark.parametrize(
    ("lo", "hi", "want"), [(10, 100, 40), (10, 39, 40), (39, 60, 40), (10, 38, 39), (50, 60, 50)]
)
def test_negligible_from_is_the_first_negligible_m_or_one_past_hi(lo, hi, want):
    """_negligible_from(lo, hi): the least m in [lo, hi + 1] from which the law is negligible,
    hi + 1 when it is not at hi + 1; by hand on the bound 1 / m against 0.025 (first at
    m = 40): [10, 100] -> 40, [10, 39] -> 40 = hi + 1 (negligible there), [39, 60] -> 40,
    [10, 38] -> 39 = hi + 1 (not negligible at 39), [50, 60] -> 50 = lo."""
    assert 0.05 * 0.5 == 1 / 40
    assert _decaying(0.5)._negligible_from(lo, hi) == want


def test_negligible_from_never_cuts_without_a_tolerance():
    """With tol = 0 (no error allowed) nothing is negligible: hi + 1, even where the bound is
    0 (a group that cannot win)."""
    avg = _averager(lambda m: np.zeros(1), [1.0], 0.0, 1 << 40)
    assert avg._negligible_from(10, 100) == 101


def _cutting(k, wt=(1.0, 1.0), tol=0.25):
    """An _Averager of two groups (n = 1 each): group 0's Chernoff bound is 1 (never weak),
    group 1's is VALUED = 1e-20 up to m = 200 (not below VALUED: keeps its value) and
    VALUED / 2 beyond (predicted to lose it); group 1's Chernoff sum over [lo, h] is
    2 k tol (h - lo + 1), so its weight x sum / 2 is k times the tolerance over [lo, h]:
    flagged iff k > 1 (weight 1)."""
    from privdtol.engine.exact.averaging import _Averager

    spec = SimpleNamespace(
        ns=np.ones(2),
        chernoff=lambda h: np.array([1.0, 1e-20 if h <= 200 else 0.5e-20]),
        chernoff_sum=lambda lo, h: np.array([0.0, 2 * k * tol * (h - lo + 1)]),
    )
    avg = _Averager(spec, 1 << 20, np.array(wt))
    avg.tol = tol
    return avg


def test_cut_free_needs_a_weak_and_flagged_group():
    """_cut_free(h, lo) is false only when a group of positive weight is both weak at h
    (n x Chernoff bound < VALUED, strictly) and flagged on [lo, h] (weight x Chernoff sum / 2
    > tol (h - lo + 1), strictly): at h = 200 group 1 is exactly at VALUED (not weak); at
    h = 201 it is weak, and cut iff k > 1 (k = 1: exactly the tolerance, not flagged), and
    never at weight 0."""
    assert _cutting(1.5)._cut_free(200, 10) is True
    assert _cutting(1.5)._cut_free(201, 10) is False
    assert _cutting(1 + 1e-9)._cut_free(201, 150) is False
    assert _cutting(1.0)._cut_free(201, 10) is True
    assert _cutting(1.5, wt=(1.0, 0.0))._cut_free(201, 10) is True


@pytest.mark.parametrize(("lo", "hi", "want"), [(10, 500, 200), (10, 150, 150), (201, 300, 201)])
def test_uncut_until_is_the_last_cut_free_m_but_at_least_lo(lo, hi, want):
    """_uncut_until(lo, hi): the largest m in [lo, hi] that is cut-free (group 1 of
    _cutting(1.5) is cut from m = 201 on), hi when hi is, and lo when even lo is not:
    [10, 500] -> 200, [10, 150] -> 150, [201, 300] -> 201."""
    assert _cutting(1.5)._uncut_until(lo, hi) == want


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


@pytest.mark.parametrize(("a", "b"), [(0, 10), (1, 2), (5, 37), (100, 164)])
def test_least_finds_the_first_true_of_every_monotone_predicate(a, b):
    """_least bisects a predicate that is false, then true (and true at b): against a linear
    scan, for every threshold t in [a, b] (pred(m) = m >= t)."""
    from privdtol.engine.exact.averaging import _least

    for t in range(a, b + 1):
        assert _least(lambda m, t=t: m >= t, a, b) == t, t
