"""Guards found by a third mutation sample of the exact engine (``make mutation GROUPS=engine``,
docs/testing.md), for its selection laws' error bounds: each bound is worked out from its
documented formula at a tiny input and checked against an independent computation (closed
forms, scipy quadrature)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

U = 2.0**-53


def _laplace_cdf(x: float, b: float) -> float:
    return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)


def _laplace_sf(x: float, b: float) -> float:
    return 1 - 0.5 * math.exp(x / b) if x < 0 else 0.5 * math.exp(-x / b)


def _quad(f, lo: float, hi: float, kinks) -> float:
    """int_lo^hi f, split at the kinks (the atoms), each piece to 1e-13 relative."""
    edges = [lo, *sorted(k for k in kinks if lo < k < hi), hi]
    return math.fsum(
        integrate.quad(f, a, c, epsabs=0, epsrel=1e-13, limit=200)[0]
        for a, c in itertools.pairwise(edges)
    )


@pytest.mark.parametrize(
    ("ys", "b", "p1", "n1"),
    [
        ([0.0, 1.0, 2.0], 2.0, [0.1, 0.3, 0.6], 1),  # unit gaps: the lfilter recursion
        ([0.0, 1.5, 3.0], 1.0, [0.1, 0.3, 0.6], 1),  # other gaps: the explicit loop
        ([0.0, 1.0, 2.0, 3.0], 1.5, [0.0, 0.3, 0.4, 0.3], 2),  # two actions in group 1
    ],
)
def test_laplace_error_bound_charges_each_pmf_error_to_its_survival_factors(ys, b, p1, n1):
    """Report-noisy-min law of a best group (one action, pmf p0 = (0.3, 0.4, 0.3, 0...)) and
    a group of n1 actions (pmf p1) on the atoms ys, Laplace(b) noise, the pmfs given with
    relative errors db = (1e-4, 3e-5).

    Documented bound (laplace.py, numerics._powers): P_1 = int f_1 S_0 S_1^(n1 - 1) dy, f_1
    the density of Y_1 + Z and S_h = P(Y_h + Z > y) = 1 - F_h; the error of S_h is relative
    to min(F_h, S_h), i.e. ratio = min(1, F_h / (1 - F_h)) of S_h, charged 2 db_h per factor,
    and f_1 carries db_1. Up to the last atom y_N that gives db_1 (P_1 - R)
    + 2 db_0 int f_1 S_1^(n1 - 1) min(F_0, S_0) + 2 (n1 - 1) db_1 int f_1 S_0 S_1^(n1 - 2)
    min(F_1, S_1); beyond it (closed form, R = int_(y_N)^inf f_1 S_0 S_1^(n1 - 1))
    2 (1 + n1) db_1 R. Each pmf is symmetric about an atom, so F_h = 1/2 exactly there: the
    kinks of min(F_h, S_h) sit on piece boundaries and Gauss-Kronrod integrates the bound to
    ~1e-13 relative. The rest of the bound is rounding, c_r U per factor with c_r = 8 +
    (256 + N/256 + 4) + 8 < 277: within 10 c_r U. The best group's error is n1 times the
    other's plus 4 U (and 1e-130 per action, lost in the sum)."""
    from privdtol.engine.exact.laplace import _laplace

    p0 = [0.3, 0.4, 0.3] + [0.0] * (len(ys) - 3)
    db0, db1 = 1e-4, 3e-5

    def cdf(p, y):
        return math.fsum(q * _laplace_cdf(y - a, b) for q, a in zip(p, ys, strict=True))

    def sf(p, y):
        return math.fsum(q * _laplace_sf(y - a, b) for q, a in zip(p, ys, strict=True))

    def dens1(y):
        return math.fsum(
            q * math.exp(-abs(y - a) / b) / (2 * b) for q, a in zip(p1, ys, strict=True)
        )

    def win(y):
        return dens1(y) * sf(p0, y) * sf(p1, y) ** (n1 - 1)

    def charge0(y):
        return dens1(y) * sf(p1, y) ** (n1 - 1) * min(cdf(p0, y), sf(p0, y))

    def charge1(y):
        return dens1(y) * sf(p0, y) * sf(p1, y) ** (n1 - 2) * min(cdf(p1, y), sf(p1, y))

    y_n = ys[-1]
    p_win = _quad(win, -math.inf, math.inf, ys)
    right = _quad(win, y_n, math.inf, ys)
    want = db1 * (p_win - right) + 2 * db0 * _quad(charge0, -math.inf, y_n, ys)
    if n1 > 1:
        want += 2 * (n1 - 1) * db1 * _quad(charge1, -math.inf, y_n, ys)
    want += 2 * (1 + n1) * db1 * right
    assert 1e-5 < want < 1e-4

    P, err = _laplace(
        np.array(ys), np.array([p0, p1]), np.array([db0, db1]), np.array([1.0, n1]), b, 8
    )
    c_r = 8 + (256 + len(ys) / 256 + 4) + 8
    assert abs(err[1] - want) <= 10 * c_r * U
    assert err[0] == n1 * err[1] + 4 * U
    assert abs(P[1] - p_win) <= err[1]
    assert P[0] == 1 - n1 * P[1]


@pytest.mark.parametrize(
    ("eta", "want_c_r"),
    [
        # p = 1, Q = 3, kernel W = 6 + 80 + 1 = 87 points <= CHUNK: chunk L = 87, h = 87 +
        # ceil(173 / 87) + 1 = 90 > W; c_r = 90 + (256 + 601/256 + 4) + 8
        (1.0, 90 + 256 + 601 / 256 + 4 + 8),
        # p = 3 (nodes every 3 lattice points), E = (47 + 640) / 3 + 1 = 230: chunk L = 128 // 3
        # = 42, h = 3 x 42 + ceil(272 / 42) + 1 = 134 < p + E + 1 = 234; c_r = 234 + (3 + 256
        # + 201/256 + 4) + 8, nj = ceil(601 / 3) = 201 blocks
        (0.125, 234 + 3 + 256 + 201 / 256 + 4 + 8),
    ],
)
def test_batched_softmax_convolutions_match_the_definition_and_their_rounding_constant(
    eta, want_c_r
):
    """The softmax law's node values for a pmf wider than DENSE_N = 600 lattice points (the
    chunked block-Toeplitz products of conv.batched_conv): at every node x (lattice units),
    phi = sum_k B_k G(u), om = sum_k B_k (1 - G(u)), psi = sum_k B_k e^u G(u), G(u) =
    exp(-e^u), u = eta (x - k), for the rows B = Binomial(600, 0.3), Binomial(600, 0.6) on
    601 points, each convolved on its own support (its values >= 1e-150). The rounding
    constant c_r is nconv + c_sum + 8 (softmax._rows_conv), nconv the larger of the direct
    sum's p + E + 1 (W for p = 1) and conv.conv_terms' tree height, worked out by hand above.
    Tolerance: the engine's c_r U relative plus 2 e^-A (the kernel window u in [-A, b],
    A = 80, b = 5.84), plus the reference's own rounding: a 601-term dot product (601 U) and
    the rounding of u, which moves G by e^u |u| U <= e^b b U < 2010 U (beyond b the kernel is
    dropped)."""
    from scipy.stats import binom

    from privdtol.engine.exact.softmax import _rows_conv

    k = np.arange(601)
    B = binom.pmf(k[None, :], 600, np.array([[0.3], [0.6]]))
    B = np.where(B < 1e-150, 0.0, B)
    B /= B.sum(axis=1, keepdims=True)
    sup = [(int(np.flatnonzero(r)[0]), int(np.flatnonzero(r)[-1])) for r in B]
    phi, om, psi, xs, c_r, _, _ = _rows_conv(B, eta, sup)
    assert c_r == want_c_r
    u = eta * (xs[:, None] - k[None, :])
    with np.errstate(over="ignore"):
        eu = np.exp(u)
        want = (np.exp(-eu) @ B.T, -np.expm1(-eu) @ B.T, np.exp(u - eu) @ B.T)
    for got, ref in zip((phi, om, psi), want, strict=True):
        assert got.shape == (2, xs.size)
        assert np.all(np.abs(got - ref.T) <= (c_r + 601 + 2010) * U * ref.T + 2 * math.exp(-80))
    assert phi.max() > 0.99 and om.max() > 0.99 and psi.max() > 0.03  # not vacuous


def test_law_key_is_the_same_for_integer_and_float_means():
    """Means read from a config as integers (0, 1) are the same instance as (0.0, 1.0): the
    key of the selection laws (``_Spec.law_key``, which lets cells share their laws) holds
    the means as floats, whatever their type on input."""
    from privdtol.engine.exact.spec import _Spec

    ints = _Spec("rnm_ftnl", [0, 1], 1.0, "deterministic")
    floats = _Spec("rnm_ftnl", [0.0, 1.0], 1.0, "deterministic")
    assert ints.law_key() == floats.law_key()
    assert ints.mu.tobytes() == np.array([0.0, 1.0]).tobytes()


def test_binomial_pmf_edges_carry_the_documented_bound():
    """Binomial(6, 1/4) by Loader's formula with edge points (so not every point is inner):
    at k = 0 and k = m the log-pmf is m log(1 - mu) and m log(mu), with absolute error
    6 U (|edge| + 1), so the value's relative bound is 2 x that + 4 U: 12 U (6 log(4/3) + 1)
    + 4 U = 36.7 U and 12 U (6 log 4 + 1) + 4 U = 115.8 U (to their own rounding, 1e-12
    relative). Beyond m the pmf is 0 with bound 4 U. Every value is within its bound of the
    exact rational pmf (0.75^6, C(6, 3)/4^6 and 4^-6)."""
    from privdtol.engine.exact.binomial import _pmf

    m, mu = 6, 0.25
    b, e = _pmf(np.array([0.0, 3.0, 6.0, 7.0]), m, mu)
    want_e = [
        12 * U * (abs(m * math.log1p(-mu)) + 1) + 4 * U,
        12 * U * (abs(m * math.log(mu)) + 1) + 4 * U,
    ]
    assert e[[0, 2]] == pytest.approx(want_e, rel=1e-12, abs=0)
    assert b[3] == 0.0 and e[3] == 4 * U
    p = Fraction(1, 4)
    for v, err, k in zip(b[:3], e[:3], (0, 3, 6), strict=True):
        exact = math.comb(m, k) * p**k * (1 - p) ** (m - k)
        assert abs(Fraction(float(v)) - exact) <= Fraction(float(err)) * exact
    assert e[1] < 1e-13
