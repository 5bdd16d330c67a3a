"""Tests of :mod:`privdtol.engine.exact.potential`: E[log Z_m] of the large-gap potential of
Lemma 5's proof (its trapezoid quadrature ``_log_w`` and that rule's documented error bound,
against 50-digit brute-force sums), the restricted instance and the large-gap split."""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext

import numpy as np
import pytest
from support.engine_laws import U

#: rps at eps = 1 (eta = 1/8), means (0.4, 0.95): the gap 0.55 > 4 eta, so the restricted
#: instance is both actions, one group each, and Z = 1 + e^(-eta (S_1 - S_0))
ETA, MU0, MU1 = 0.125, 0.4, 0.95


def _e1(x: float) -> float:
    """The exponential integral E_1(x) = -gamma - log x + sum_(k>=1) (-1)^(k+1) x^k / (k k!)
    (terms < 1e-40 past k = 30 for x < 1)."""
    gamma = 0.57721566490153286060651209008240243104215933593992
    terms = [(-1) ** (k + 1) * x**k / (k * math.factorial(k)) for k in range(1, 40)]
    return -gamma - math.log(x) + math.fsum(terms)


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


def _trapezoid_step(tol: float):
    """_log_w's rule at m = 1 by hand (windows {0, 1}, c = m mu_0 = mu_0): (E W, W_min, a, M, h)
    with E W = sum_g ((1 - mu_g) e^(eta c) + mu_g e^(-eta (1 - c))), W_min = e^(-eta (1 - c)),
    M = 1 + E W + E_1(cos a) + E_1(W_min cos a), a = 1.2, and the step
    h = 2 pi a / log(2 M / tol + 1) at trapezoid tolerance ``tol``."""
    c, a = MU0, 1.2
    mean_w = sum((1 - m) * math.exp(ETA * c) + m * math.exp(-ETA * (1 - c)) for m in (MU0, MU1))
    w_min = math.exp(-ETA * (1 - c))
    M = 1 + mean_w + _e1(math.cos(a)) + _e1(w_min * math.cos(a))
    return mean_w, w_min, a, M, 2 * math.pi * a / math.log(2 * M / tol + 1)


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


def test_log_w_error_bound_is_its_documented_sum_of_terms_at_m_one():
    """E[log W] at m = 1 (windows {0, 1}, c = mu_0): the bound is, by the module docstring and
    the code's comments, trapezoid 2 M / (e^(2 pi a / h) - 1) + left end
    2 e^-45 (1 + E W) / (1 - e^-h) + right end 4 e^-50 / 50 + pmfs 2 span sum_g n_g err_g +
    rounding 8 U h sum_nodes |f| (N + 8), with E W, W_min, M and h of _trapezoid_step at the
    package's tolerance 1e-16, W_max = sum_g e^(eta c), span = max(|log W_min|, |log W_max|),
    the nodes
    s_lo + h k (k = 0..ceil((s_hi - s_lo) / h), s_lo = -log(1 + W_max) - 45,
    s_hi = log(50 / W_min)) and the integrand f(s) = e^(-e^s) - prod_g phi_g(e^s) all by hand
    (phi_g(t) = (1 - mu_g) e^(-t e^(eta c)) + mu_g e^(-t e^(-eta (1 - c))), in 30 digits);
    only the pmfs' error bounds err_g are taken from the binomial helpers. The pmf term is
    ~55% of the bound, the rounding ~45% (N + 8 vs N - 8 moves it by 3%), the trapezoid ~3e-4
    of it, the left end ~3e-6: the whole is pinned to 1e-9 relative."""
    from privdtol.engine.exact.binomial import _normalise, _pmf_windows
    from privdtol.engine.exact.potential import _log_w

    mu, c = np.array([MU0, MU1]), MU0
    mean_w, w_min, a, M, h = _trapezoid_step(1e-16)
    w_max = 2 * math.exp(ETA * c)
    s_lo, s_hi = -math.log1p(w_max) - 45.0, math.log(50.0 / w_min)
    nodes = [s_lo + h * k for k in range(math.ceil((s_hi - s_lo) / h) + 1)]
    with localcontext() as ctx:
        ctx.prec = 30
        up, down = (Decimal(ETA) * Decimal(c)).exp(), (-Decimal(ETA) * (1 - Decimal(c))).exp()

        def f(s):
            t = Decimal(s).exp()
            phi = [
                (1 - Decimal(m)) * (-t * up).exp() + Decimal(m) * (-t * down).exp()
                for m in (MU0, MU1)
            ]
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


@pytest.mark.parametrize(
    ("tol", "edge_lo", "edge_hi"), [(1e-8, 45.0, 50.0), (1e-16, 10.0, 50.0), (1e-16, 45.0, 5.0)]
)
def test_log_w_error_bound_holds_its_trapezoid_and_end_terms(monkeypatch, tol, edge_lo, edge_hi):
    """E[log W] at m = 1 with the trapezoid tolerance loosened to 1e-8, the left end cut at
    e^-10 in place of e^-45, or the right end at 5 in place of 50, so that the term each
    guards dominates the bound. By hand (E W, M and the step h of _trapezoid_step at tol): the
    trapezoid term 2 M / (e^(2 pi a / h) - 1) is then tol itself, the left end
    2 e^-EDGE_LO (1 + E W) / (1 - e^-h), the right end 4 e^-EDGE_HI / EDGE_HI. The hand sum
    and the engine's agree to a few dozen U (1e-12 relative allows ~4500). The rest of the
    bound (pmf errors and rounding, O(N U) over N ~ 200 nodes) is at most the whole bound at
    the package's own constants (where the node count is largest), the allowance above the
    hand sum. The value must stay within the bound of the brute-force expectation
    _exact_log_z (without its trapezoid term the bound would be ~3e-13, below the 2.4e-12
    quadrature error at tol = 1e-8)."""
    from privdtol.engine.exact import potential

    want = _exact_log_z(1, MU0, MU1, ETA)
    _, base = potential.expected_log_z("rps", [MU0, MU1], 1.0, [1])
    assert 0 < base[0] < 1e-12
    monkeypatch.setattr(potential, "TRAPEZOID_TOL", tol)
    monkeypatch.setattr(potential, "EDGE_LO", edge_lo)
    monkeypatch.setattr(potential, "EDGE_HI", edge_hi)
    value, err = potential.expected_log_z("rps", [MU0, MU1], 1.0, [1])

    mean_w, *_, h = _trapezoid_step(tol)
    hand = (
        tol
        + 2 * math.exp(-edge_lo) * (1 + mean_w) / -math.expm1(-h)
        + 4 * math.exp(-edge_hi) / edge_hi
    )
    assert hand * (1 - 1e-12) <= err[0] <= hand * (1 + 1e-12) + base[0]
    assert abs(Decimal(float(value[0])) - want) <= Decimal(float(err[0]))


def test_log_w_error_bound_covers_the_left_end_at_large_mean_weight():
    """E[log Z_m] at m = 2^14. 0 <= E[log Z] <= E e^(-eta (S_1 - S_0)) =
    ((1 - 0.95 (1 - e^-eta)) (1 + 0.4 (e^eta - 1)))^m = e^-1089 (log(1 + x) <= x): the bound
    covers the value and that upper end. There E W = sum_g E e^(-eta (S_g - c)), c = m mu_0,
    is the closed form sum_g ((1 - mu_g + mu_g e^-eta) e^(eta mu_0))^m ~ e^30.7 (the best
    action's own weight; the windows hold all but 1e-22 of the mass). The trapezoid sum starts
    at s_lo with e^(s_lo) (1 + E W) <= e^-45; its left end (the nodes and tail below) enters
    the bound as 2 e^-45 (1 + E W) / (1 - e^-h) >= e^-45 (1 + E W), ~e^-45 (1 + E W) per
    unit: the largest term of the bound, which must still hold (factor 2 to spare)."""
    from privdtol.engine.exact.potential import expected_log_z

    m = 1 << 14
    log_upper = m * (math.log(1 - MU1 * -math.expm1(-ETA)) + math.log1p(MU0 * math.expm1(ETA)))
    assert log_upper < -1000
    ew = math.fsum(
        math.exp(m * (math.log1p(-mu * -math.expm1(-ETA)) + ETA * MU0)) for mu in (MU0, MU1)
    )
    assert 1e13 < ew < 1e14
    value, err = expected_log_z("rps", [MU0, MU1], 1.0, [m])
    assert abs(value[0]) <= err[0]
    assert err[0] >= abs(value[0]) + math.exp(log_upper)
    assert err[0] >= math.exp(-45) * (1 + ew)
    assert err[0] <= 1e-4


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
