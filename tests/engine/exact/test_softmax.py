"""Tests of :mod:`privdtol.engine.exact.softmax`."""

from __future__ import annotations

import math

import numpy as np
import pytest

# --- from tests/test_mutants_engine_r3b.py

U = 2.0**-53


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
