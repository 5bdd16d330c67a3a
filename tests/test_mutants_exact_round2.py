"""Guards found by a second fresh mutation sample of the exact engine (``make mutation
GROUPS=engine``, docs/testing.md): the binomial windows and the potential's integrand stay
quiet (no RuntimeWarning) at the degenerate ends they handle on purpose (mu in {0, 1}, a
survival factor of 0), and the product of the survival factors keeps a nonnegative relative
error bound that covers its own rounding, each against values computed independently (exact
rationals, brute-force sums in 50-digit decimals)."""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

U = 2.0**-53


def test_pmf_windows_is_exact_and_quiet_at_the_degenerate_means():
    """Binomial(5, mu) on windows: mu = 1/2 on {0..5} (C(5, k) / 32, exact in binary), mu = 1
    on {3..5} (0, 0, 1) and mu = 0 on {0..2} (1, 0, 0). rho = mu / (1 - mu) divides by zero at
    mu = 1 (and the walk down from the anchor at mu = 0): handled on purpose, so no
    RuntimeWarning may escape. Every value is within its relative error bound of the exact
    pmf (zero where the pmf is zero)."""
    from privdtol.engine.exact.binomial import _pmf_windows

    want = [Fraction(math.comb(5, k), 32) for k in range(6)] + [0, 0, 1] + [1, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            b, e = _pmf_windows(5, np.array([0.5, 1.0, 0.0]), [0, 3, 0], [6, 3, 3])
    assert b.shape == e.shape == (12,)
    for got, err, w in zip(b, e, want, strict=True):
        assert abs(Fraction(float(got)) - w) <= Fraction(float(err)) * w
    assert (e >= 0).all() and e.max() < 1e-13


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


@pytest.mark.parametrize("om", [0.0, 1e-3, 0.25])
def test_powers_bound_covers_its_rounding_when_the_inputs_are_exact(om):
    """_powers for K = 2 (ns = 1, 1) with exact inputs (db = 0, c_r = 0: the F_h = e^(lf_h)
    are the given floats, taken as exact): Lg_1 = (lf_0 + lf_1) - lf_1, and rel must bound
    the relative error of e^(Lg_1) against e^(lf_0) in 50-digit decimals: the input term
    (n_tot - 1) 4 U = 4 U plus the rounding 4 U (|tot| + |lf_1| + 2) >= 8 U of the sums and
    of exp; a bound is never negative. (In the package c_r >= 268 hides a missing 16 U.)"""
    from privdtol.engine.exact.numerics import _powers

    ns = np.array([1.0, 1.0])
    F = np.array([[1 - om, 0.5], [0.9, 1 - om / 2], [0.3, 0.7]])  # 3 nodes x 2 groups
    lf = np.log(F).T.copy()  # groups x nodes
    ratio = np.minimum(1.0, (1 - F.T) / F.T)
    Lg, rel = _powers(lf, ratio, ns, np.zeros(2), 0.0)
    assert Lg.shape == rel.shape == (1, 3)
    assert (rel >= 0).all()
    with localcontext() as ctx:
        ctx.prec = 50
        for k in range(3):
            true = Decimal(float(lf[0, k])).exp()
            got = Decimal(float(np.exp(Lg[0, k])))
            assert abs(got - true) / true <= Decimal(float(rel[0, k])), k
    assert rel.max() < 30 * U
