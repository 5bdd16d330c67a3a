"""Tests of :mod:`privdtol.engine.exact.potential`."""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext
from types import SimpleNamespace

import numpy as np
import pytest

# --- from tests/test_mutants_engine_bounds.py


def test_log_w_error_bound_covers_the_left_end_at_large_mean_weight():
    """E[log Z_m] of rps (eps = 1, eta = 1/8) with means (0.4, 0.95) (gap 0.55 > 4 eta: large)
    at m = 2^14: Z = 1 + e^(-eta (S_1 - S_0)), so 0 <= E[log Z] <= E e^(-eta (S_1 - S_0)) =
    ((1 - 0.95 (1 - e^-eta)) (1 + 0.4 (e^eta - 1)))^m = e^-1089 (log(1 + x) <= x). There
    E W ~ e^30 (the best action's own weight): the trapezoid's left end, ~e^-45 (1 + E W)
    per unit, is the largest term of the bound, which must still hold."""
    from privdtol.engine.exact.potential import expected_log_z

    m, eta = 1 << 14, 0.125
    log_upper = m * (math.log(1 - 0.95 * -math.expm1(-eta)) + math.log1p(0.4 * math.expm1(eta)))
    assert log_upper < -1000
    value, err = expected_log_z("rps", [0.4, 0.95], 1.0, [m])
    assert err[0] >= abs(value[0]) + math.exp(log_upper)
    assert err[0] <= 1e-4


# --- from tests/test_mutants_engine_r3a.py

#: rps at eps = 1 (eta = 1/8), means (0.4, 0.95): the gap 0.55 > 4 eta, so the restricted
#: instance is both actions, one group each (tests/test_mutants_exact_round2.py)
ETA, MU0, MU1 = 0.125, 0.4, 0.95


EULER_GAMMA = 0.57721566490153286060651209008240243104215933593992


def _e1(x: float) -> float:
    """The exponential integral E_1(x) = -gamma - log x + sum_(k>=1) (-1)^(k+1) x^k / (k k!)
    (terms < 1e-40 past k = 30 for x < 1)."""
    terms = [(-1) ** (k + 1) * x**k / (k * math.factorial(k)) for k in range(1, 40)]
    return -EULER_GAMMA - math.log(x) + math.fsum(terms)


def _log_z_at_one() -> Decimal:
    """E log(e^(-eta (S_0 - c)) + e^(-eta (S_1 - c))) = E log(1 + e^(-eta (S_1 - S_0))),
    S_i ~ Bernoulli(mu_i) independent (m = 1), in 50-digit decimals (the floats taken as
    exact)."""
    with localcontext() as ctx:
        ctx.prec = 50
        p0, p1, e = Decimal(MU0), Decimal(MU1), Decimal(ETA)
        return sum(
            (p0 if k0 else 1 - p0) * (p1 if k1 else 1 - p1) * (1 + (-e * (k1 - k0)).exp()).ln()
            for k0 in (0, 1)
            for k1 in (0, 1)
        )


@pytest.mark.parametrize(
    ("tol", "edge_lo", "edge_hi"), [(1e-8, 45.0, 50.0), (1e-16, 10.0, 50.0), (1e-16, 45.0, 5.0)]
)
def test_log_w_error_bound_holds_its_trapezoid_and_end_terms(monkeypatch, tol, edge_lo, edge_hi):
    """E[log W] at m = 1 with the trapezoid tolerance loosened to 1e-8, the left end cut at
    e^-10 in place of e^-45, or the right end at 5 in place of 50, so that the term each
    guards dominates the bound. By hand (module docstring, c = m mu_0): the windows are
    {0, 1}; E W = sum_g ((1 - mu_g) e^(eta c) + mu_g e^(-eta (1 - c))), W_min =
    e^(-eta (1 - c)), M = 1 + E W + E_1(cos a) + E_1(W_min cos a) with a = 1.2,
    h = 2 pi a / log(2 M / tol + 1); the trapezoid term 2 M / (e^(2 pi a / h) - 1) is then tol
    itself, the left end 2 e^-EDGE_LO (1 + E W) / (1 - e^-h), the right end
    4 e^-EDGE_HI / EDGE_HI. The hand sum and the engine's agree to a few dozen U (1e-12
    relative allows ~4500). The rest of the bound (pmf errors and rounding, O(N U) over
    N ~ 200 nodes) is at most the whole bound at the package's own constants (where the node
    count is largest), the allowance above the hand sum. The value must stay within the bound
    of the brute-force expectation (without its trapezoid term the bound would be ~3e-13,
    below the 2.4e-12 quadrature error at tol = 1e-8)."""
    from privdtol.engine.exact import potential

    want = _log_z_at_one()
    _, base = potential.expected_log_z("rps", [MU0, MU1], 1.0, [1])
    assert 0 < base[0] < 1e-12
    monkeypatch.setattr(potential, "TRAPEZOID_TOL", tol)
    monkeypatch.setattr(potential, "EDGE_LO", edge_lo)
    monkeypatch.setattr(potential, "EDGE_HI", edge_hi)
    value, err = potential.expected_log_z("rps", [MU0, MU1], 1.0, [1])

    mean_w = sum(
        (1 - mu) * math.exp(ETA * MU0) + mu * math.exp(-ETA * (1 - MU0)) for mu in (MU0, MU1)
    )
    w_min, a = math.exp(-ETA * (1 - MU0)), 1.2
    M = 1 + mean_w + _e1(math.cos(a)) + _e1(w_min * math.cos(a))
    h = 2 * math.pi * a / math.log(2 * M / tol + 1)
    hand = (
        tol
        + 2 * math.exp(-edge_lo) * (1 + mean_w) / -math.expm1(-h)
        + 4 * math.exp(-edge_hi) / edge_hi
    )
    assert hand * (1 - 1e-12) <= err[0] <= hand * (1 + 1e-12) + base[0]
    assert abs(Decimal(float(value[0])) - want) <= Decimal(float(err[0]))


# --- from tests/test_mutants_engine_r4b.py

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


# --- from tests/test_mutants_exact_fresh.py


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


# --- from tests/test_mutants_exact_round2.py


def _exact_log_z(m: int, mu0: float, mu1: float, eta: float) -> Decimal:
    """E log(1 + e^(-eta (S_1 - S_0))), S_i ~ Binomial(m, mu_i) independent: the brute-force
    double sum in 50-digit decimals (the floats mu_i, eta taken as exact)."""
    with localcontext() as ctx:
        ctx.prec = 50
        p0, p1, e = Decimal(mu0), Decimal(mu1), Decimal(eta)

        def pmf(k, p):
            return math.comb(m, k) * p**k * (1 - p) ** (m - k)

        return sum(
            pmf(k0, p0) * pmf(k1, p1) * (1 + (-e * (k1 - k0)).exp()).ln()
            for k0 in range(m + 1)
            for k1 in range(m + 1)
        )


@pytest.mark.parametrize("m", [1, 4, 16])
def test_log_w_quiet_and_within_its_bound_of_the_brute_force_expectation(m):
    """E[log Z_m] of rps (eps = 1, eta = 1/8), means (0.4, 0.95) (gap 0.55 > 4 eta: the
    second action is large-gap): Z = 1 + e^(-eta (S_1 - S_0)). At m = 1: 0.57 log(1 + e^(-1/8))
    + 0.41 log 2 + 0.02 log(1 + e^(1/8)). The trapezoid's right end has survival factors that
    round to 0 (log 0 = -inf, on purpose): no RuntimeWarning may escape, and the value is
    within its error bound of the brute-force double sum."""
    from privdtol.engine.exact.potential import expected_log_z, restricted_means

    assert restricted_means("rps", [0.4, 0.95], 1.0)[1] == 0.125
    want = _exact_log_z(m, 0.4, 0.95, 0.125)
    if m == 1:
        closed = (
            0.57 * math.log1p(math.exp(-0.125))
            + 0.41 * math.log(2)
            + 0.02 * math.log1p(math.exp(0.125))
        )
        assert float(want) == pytest.approx(closed, rel=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            value, err = expected_log_z("rps", [0.4, 0.95], 1.0, [m])
    assert abs(Decimal(float(value[0])) - want) <= Decimal(float(err[0]))
    assert err[0] < 1e-10
