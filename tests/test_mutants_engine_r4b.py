"""Guards found by a fourth mutation sample of the exact engine (``make mutation GROUPS=engine``,
docs/testing.md): the M-average's negligibility level (:meth:`.averaging._Averager.
_negligible`) and its panel sums (:meth:`.averaging._Averager._psum`), the potential's error
bound (:func:`.potential._log_w`) and its large-gap split (:func:`.potential.large_gap`), each
pinned to its documented formula worked out by hand on small fabricated inputs."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

U = 2.0**-53


def _averager(chernoff, wt, tol, mref):
    """An _Averager over a stub spec whose Chernoff bounds at every m are ``chernoff``."""
    from privdtol.engine.exact.averaging import _Averager

    spec = SimpleNamespace(chernoff=lambda m: np.asarray(chernoff, dtype=float))
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


def _lagrange(nodes, x):
    """l_i(x) = prod_(j != i) (x - x_j) / (x_i - x_j), in exact rationals."""
    nodes, x = [Fraction(v) for v in nodes], Fraction(x)
    return [
        math.prod((x - xj) / (xi - xj) for j, xj in enumerate(nodes) if j != i)
        for i, xi in enumerate(nodes)
    ]


def _e1(x: float) -> float:
    """The exponential integral E_1(x) = -gamma - log x + sum_(k>=1) (-1)^(k+1) x^k / (k k!)
    (terms < 1e-40 past k = 30 for x < 1)."""
    gamma = 0.57721566490153286060651209008240243104215933593992
    terms = [(-1) ** (k + 1) * x**k / (k * math.factorial(k)) for k in range(1, 40)]
    return -gamma - math.log(x) + math.fsum(terms)


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


#: rps at eps = 1 (eta = 1/8), means (0.4, 0.95): the gap 0.55 > 4 eta, the restricted
#: instance is both actions, one group each (tests/test_mutants_engine_r3a.py)
ETA, MU = 0.125, (0.4, 0.95)


def test_log_w_error_bound_is_its_documented_sum_of_terms_at_m_one():
    """E[log W] at m = 1 (windows {0, 1}, c = mu_0): the bound is, by the module docstring and
    the code's comments, trapezoid 2 M / (e^(2 pi a / h) - 1) + left end
    2 e^-45 (1 + E W) / (1 - e^-h) + right end 4 e^-50 / 50 + pmfs 2 span sum_g n_g err_g +
    rounding 8 U h sum_nodes |f| (N + 8), with E W, W_min = e^(-eta (1 - c)), W_max =
    sum_g e^(eta c), span = max(|log W_min|, |log W_max|), M, h, the nodes
    s_lo + h k (k = 0..ceil((s_hi - s_lo) / h), s_lo = -log(1 + W_max) - 45,
    s_hi = log(50 / W_min)) and the integrand f(s) = e^(-e^s) - prod_g phi_g(e^s) all by hand
    (phi_g(t) = (1 - mu_g) e^(-t e^(eta c)) + mu_g e^(-t e^(-eta (1 - c))), in 30 digits);
    only the pmfs' error bounds err_g are taken from the binomial helpers. The pmf term is
    ~55% of the bound, the rounding ~45% (N + 8 vs N - 8 moves it by 3%), the trapezoid ~3e-4
    of it, the left end ~3e-6: the whole is pinned to 1e-9 relative."""
    from privdtol.engine.exact.binomial import _normalise, _pmf_windows
    from privdtol.engine.exact.potential import _log_w

    mu, c, a = np.array(MU), MU[0], 1.2
    mean_w = sum((1 - m) * math.exp(ETA * c) + m * math.exp(-ETA * (1 - c)) for m in MU)
    w_min, w_max = math.exp(-ETA * (1 - c)), 2 * math.exp(ETA * c)
    M = 1 + mean_w + _e1(math.cos(a)) + _e1(w_min * math.cos(a))
    h = 2 * math.pi * a / math.log(2 * M / 1e-16 + 1)
    s_lo, s_hi = -math.log1p(w_max) - 45.0, math.log(50.0 / w_min)
    nodes = [s_lo + h * k for k in range(math.ceil((s_hi - s_lo) / h) + 1)]
    with localcontext() as ctx:
        ctx.prec = 30
        up, down = (Decimal(ETA) * Decimal(c)).exp(), (-Decimal(ETA) * (1 - Decimal(c))).exp()

        def f(s):
            t = Decimal(s).exp()
            phi = [(1 - Decimal(m)) * (-t * up).exp() + Decimal(m) * (-t * down).exp() for m in MU]
            return abs((-t).exp() - phi[0] * phi[1])

        abs_f = float(sum(f(s) for s in nodes))
    b, eb = _pmf_windows(1, mu, np.zeros(2, dtype=np.int64), np.array([2, 2]))
    errs = [_normalise(b[None, 2 * g : 2 * g + 2], eb[None, 2 * g : 2 * g + 2])[1] for g in (0, 1)]
    span = max(abs(math.log(w_min)), abs(math.log(w_max)))
    terms = [
        2 * M / math.expm1(2 * math.pi * a / h),
        2 * math.exp(-45.0) * (1 + mean_w) / -math.expm1(-h),
        4 * math.exp(-50.0) / 50.0,
        2 * span * float(np.sum(errs)),
        8 * U * h * abs_f * (len(nodes) + 8),
    ]
    assert terms[3] > 0.5 * sum(terms) and terms[4] > 0.4 * sum(terms)
    _, err = _log_w(mu, np.ones(2), ETA, 1)
    assert err == pytest.approx(math.fsum(terms), rel=1e-9, abs=0)


def test_large_gap_never_counts_the_best_group():
    """large_gap is Delta_j > 4 eta and Delta_j > 0 (its docstring: the best group never is):
    the second test decides only where 4 eta is not above 0, i.e. for an epsilon giving a
    negative or undefined eta (eta = min(eps / 2, 1/8)), which large_gap itself does not
    refuse: at eps = -1 (eta = -1/2) and eps = NaN the best group (Delta = 0) stays out and
    every other (Delta = 0.1, 0.5) is in; at eps = 1 (eta = 1/8, 4 eta = 0.5) only
    Delta > 0.5 counts, so Delta = 0.5 does not."""
    from privdtol.engine.exact.potential import large_gap
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec("rps", [0.2, 0.3, 0.7, 0.75], 1.0, "bernoulli")
    assert spec.delta.tolist() == pytest.approx([0.0, 0.1, 0.5, 0.55], abs=1e-15)
    assert large_gap(spec, -1.0).tolist() == [False, True, True, True]
    assert large_gap(spec, float("nan")).tolist() == [False, True, True, True]
    spec.delta = np.array([0.0, 0.1, 0.5, 0.55])
    assert large_gap(spec, 1.0).tolist() == [False, False, False, True]


def _decaying(tol):
    """An _Averager of one group of weight 1 whose Chernoff bound at m is 1 / m, tolerance
    ``tol``, mref so large that min(1, mref / (2 m)) = 1: the level is 0.05 tol, so at
    tol = 0.5 the law is negligible from m = 40 on (1 / m <= 0.025; 1 / 40 and 0.05 x 0.5 are
    the same double, checked in the test)."""
    from privdtol.engine.exact.averaging import _Averager

    spec = SimpleNamespace(chernoff=lambda m: np.array([1.0 / m]))
    avg = _Averager(spec, 1 << 20, np.ones(1))
    avg.tol, avg.mref = tol, 1 << 40
    return avg


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
    from privdtol.engine.exact.averaging import _Averager

    spec = SimpleNamespace(chernoff=lambda m: np.zeros(1))
    avg = _Averager(spec, 1 << 20, np.ones(1))
    avg.tol, avg.mref = 0.0, 1 << 40
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


def test_expected_log_z_closed_forms_and_refusal():
    """expected_log_z of rps at eps = 1 (eta = 1/8, large: Delta > 0.5), means
    (0.2, 0.9, 0.3, 0.9): the restricted instance is the best and the two actions of
    Delta = 0.7 (restricted_means: (0.2, 0.9, 0.9), eta 1/8). By hand: m = 0: log Z_0 =
    log 3, error 4 U log 3; deterministic m = 2: log(1 + 2 e^(-eta 2 0.7)), error
    8 U (1 + that); no large action (means (0.2, 0.3)): zeros; m < 0 refused."""
    from privdtol.engine.exact.potential import expected_log_z, restricted_means

    means = [0.2, 0.9, 0.3, 0.9]
    mu, eta = restricted_means("rps", means, 1.0)
    assert mu.tolist() == [0.2, 0.9, 0.9] and eta == 0.125
    v, e = expected_log_z("rps", means, 1.0, [0, 2], "deterministic")
    x = math.log1p(2 * math.exp(-0.125 * 2 * (0.9 - 0.2)))
    assert v[0] == pytest.approx(math.log(3), rel=1e-15, abs=0)
    assert e[0] == pytest.approx(4 * U * math.log(3), rel=1e-15, abs=0)
    assert v[1] == pytest.approx(x, rel=1e-14, abs=0)
    assert e[1] == pytest.approx(8 * U * (1 + x), rel=1e-14, abs=0)
    v, e = expected_log_z("rps", [0.2, 0.3], 1.0, [0, 3])
    assert v.tolist() == [0.0, 0.0] and e.tolist() == [0.0, 0.0]
    assert restricted_means("rps", [0.2, 0.3], 1.0) == (None, 0.125)
    with pytest.raises(ValueError, match=r"^m must be >= 0$"):
        expected_log_z("rps", means, 1.0, [3, -1])
