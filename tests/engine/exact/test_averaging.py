"""Tests of :mod:`privdtol.engine.exact.averaging`."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from privdtol.engine import exact
from privdtol.engine.exact import averaging, expected_regret
from privdtol.environments import instance_means

# --- from tests/test_exact_numerics.py


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


# --- from tests/test_mutants_engine_bounds.py


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


# --- from tests/test_mutants_engine_r3a_timeouts.py


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


# --- from tests/test_mutants_engine_r4b.py

U = 2.0**-53


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


def test_negligible_from_never_cuts_without_a_tolerance():
    """With tol = 0 (no error allowed) nothing is negligible: hi + 1, even where the bound is
    0 (a group that cannot win)."""
    from privdtol.engine.exact.averaging import _Averager

    spec = SimpleNamespace(chernoff=lambda m: np.zeros(1))
    avg = _Averager(spec, 1 << 20, np.ones(1))
    avg.tol, avg.mref = 0.0, 1 << 40
    assert avg._negligible_from(10, 100) == 101


# --- from tests/test_mutants_exact_fresh.py


@pytest.mark.parametrize(("a", "b"), [(0, 10), (1, 2), (5, 37), (100, 164)])
def test_least_finds_the_first_true_of_every_monotone_predicate(a, b):
    """_least bisects a predicate that is false, then true (and true at b): against a linear
    scan, for every threshold t in [a, b] (pred(m) = m >= t)."""
    from privdtol.engine.exact.averaging import _least

    for t in range(a, b + 1):
        assert _least(lambda m, t=t: m >= t, a, b) == t, t
