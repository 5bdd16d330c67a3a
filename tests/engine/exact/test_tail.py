"""Tests of :mod:`privdtol.engine.exact.tail`: the softmax kernels' far tail u <= -12 by
first-order recursions (the law of Section 4 of Cesari & Colomboni, A_(r+1) ~
softmax(-eta L_r(M_r))): where the tail starts, the truncation of its series (in 250-digit
decimal arithmetic), its sums against the direct sums of the definition, and its rounding
constant worked out by hand."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from support.engine_laws import U

from privdtol.engine.exact.tail import C_TAIL, tail_start, tail_sums, tail_terms


@pytest.mark.parametrize(
    ("eta", "dl", "p", "ec"),
    [
        (1 / 8, -640, 3, 182),  # 3 e <= 640 - 96 = 544: e <= 181
        (1 / 32, -2560, 12, 182),  # 12 e <= 2560 - 384 = 2176: e <= 181
        (1 / 64, -5120, 25, 175),  # 25 e <= 5120 - 768 = 4352: e <= 174
        (0.1, -800, 4, 171),  # 4 e <= 800 - 120 = 680: e <= 170 (u = -12 at e = 170, r = 0)
    ],
)
def test_the_tail_is_every_kernel_index_whose_phases_all_sit_at_or_below_minus_12(eta, dl, p, ec):
    """e_c by hand (u = eta (dl + p e - r), largest at r = 0); and from the definition: every
    phase of e < e_c has u <= -12 (up to the rounding of u itself, which the series' bound
    absorbs), some phase of e_c has u > -12."""
    assert C_TAIL == 12.0
    assert tail_start(eta, dl, p) == ec
    r = np.arange(p)
    assert np.all(eta * (dl + p * (ec - 1) - r) <= -C_TAIL * (1 - 4 * U))
    assert eta * (dl + p * ec) > -C_TAIL


@pytest.mark.parametrize("u", [-12.0, -12.4, -20.0, -80.0])
def test_the_truncated_series_are_within_their_next_term_and_below_half_a_unit(u):
    """1 - G = x - x^2/2 + x^3/6 - R, 0 <= R <= x^4/24, and x G = x - x^2 + x^3/2 - R',
    0 <= R' <= x^4/6 (x = e^u, G = e^-x; alternating series with decreasing terms), in
    250-digit decimals; relative to the value, at most e^(3u) / (6 (1 - e^u)) < U/2 for
    u <= -12: the module docstring's bound."""
    with localcontext() as ctx:
        ctx.prec = 250  # 1 - e^-x at x = e^-80 cancels 35 digits
        x = Decimal(u).exp()
        om, g = 1 - (-x).exp(), x * (-x).exp()
        r_om = x - x**2 / 2 + x**3 / 6 - om
        r_g = x - x**2 + x**3 / 2 - g
        assert 0 <= r_om <= x**4 / 24 and 0 <= r_g <= x**4 / 6
        bound = x**3 / (6 * (1 - x))
        assert r_om / om <= bound and r_g / g <= bound
        assert bound < Decimal(U / 2)


def _direct(X, eta, dl, ec, n_out):
    """The definition: sums over j >= a - e_c + 1 and every phase r of X[j, r] f(u)."""
    _, nj, p = X.shape
    a = np.arange(n_out)[:, None, None]
    j = np.arange(nj)[None, :, None]
    u = eta * (dl + p * (a - j) - np.arange(p)[None, None, :])
    inside = j >= a - ec + 1
    with np.errstate(over="ignore"):
        x = np.where(inside, np.exp(u), 0.0)
    om = np.einsum("ajr,sjr->sa", -np.expm1(-x), X)
    psi = np.einsum("ajr,sjr->sa", x * np.exp(-x), X)
    return om, psi, np.abs(np.where(inside, u, 0.0)).max()


@pytest.mark.parametrize(("eta", "p"), [(1 / 8, 3), (1 / 32, 12)])
def test_tail_sums_match_the_definition_within_their_rounding_constant(eta, p):
    """Random nonnegative rows (2 rows of 40 blocks, some spread over 1e-30..1) against the
    direct sums of the definition; tolerance: tail_terms U relative, plus the reference's own
    rounding (its 40 p terms, and e^u's relative error |u| U for the largest |u|)."""
    dl = math.floor(-80 / eta)
    ec = tail_start(eta, dl, p)
    rng = np.random.default_rng(7)
    X = rng.random((2, 40, p)) * 10.0 ** rng.integers(-30, 1, size=(2, 40, 1))
    n_out = 40 + ec + 5
    om, psi = tail_sums(X, eta, dl, ec, n_out)
    want_om, want_psi, umax = _direct(X, eta, dl, ec, n_out)
    tol = (tail_terms(p, ec, eta, dl) + 40 * p + umax + 4) * U
    for got, want in ((om, want_om), (psi, want_psi)):
        assert got.shape == (2, n_out)
        assert np.all(np.abs(got - want) <= tol * want)
        assert np.all(want[:, ec - 1 : 40 + ec - 1] > 0)  # not vacuous: every node sees a block


def test_tail_terms_counts_each_rounding():
    """eta = 1/8, p = 3, e_c = 182, dl = -640: the largest weight's argument 3/8 x |-640 + 543
    - 2| = 37.125; 3 + (2 x 37.125 + 1) + 182 x (3 + 6 x 3/8) + 8 = 1041.75, rounded up."""
    assert tail_terms(3, 182, 1 / 8, -640) == 1042


def test_a_tail_that_does_not_fit_its_output_is_refused():
    X = np.ones((1, 10, 3))
    with pytest.raises(ValueError, match="tail start e_c = 0"):
        tail_sums(X, 1 / 8, -640, 0, 20)
    with pytest.raises(ValueError, match=r"outside \[1, 11\]"):
        tail_sums(X, 1 / 8, -640, 12, 20)
