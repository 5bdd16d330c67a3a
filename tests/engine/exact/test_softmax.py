"""Tests of :mod:`privdtol.engine.exact.softmax`: the softmax selection law of the RPS family
(Section 4: A = j with probability E softmax(-eta S)_j, S the Binomial block sums) against
brute-force sums over the lattice and, through the exact regret, the K = 2 random walk of
``support.exact_k2``; its rounding constant; the refusal of a temperature below the kernel's
reach."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from support.engine_laws import U
from support.exact_k2 import rps_regret_k2

from privdtol.algorithms import make_algorithm
from privdtol.engine.exact import expected_regret
from privdtol.engine.exact.spec import _Spec


@pytest.mark.parametrize(
    ("eta", "want_c_r"),
    [
        # p = 1, Q = 3, kernel W = 6 + 80 + 1 = 87 points <= CHUNK: chunk L = 87, h = 87 +
        # ceil(173 / 87) + 1 = 90 > W; c_r = 90 + (256 + 601/256 + 4) + 8
        (1.0, 90 + 256 + 601 / 256 + 4 + 8),
        # p = 3 (nodes every 3 lattice points), E = (47 + 640) / 3 + 1 = 230; the kernel
        # indices e < e_c = 182 (u = (-640 + 3 e - r) / 8 <= -12 iff e <= 181) are the tail's
        # recursions: tail.tail_terms = ceil(3 + (2 x 3/8 x |-640 + 543 - 2| + 1) + 182 x (3 +
        # 6 x 3/8) + 8) = ceil(1041.75) = 1042, above the direct sum's 3 + 48 + 1 + 3;
        # c_r = 1042 + (3 + 256 + 201/256 + 4) + 8, nj = ceil(601 / 3) = 201 blocks
        (0.125, 1042 + 3 + 256 + 201 / 256 + 4 + 8),
        # p = 12 (eps = 1/16), dl = -2560, e_c = 182 (12 e <= 2176): ceil(12 + (2 x 3/32 x
        # |-2560 + 2172 - 11| + 1) + 182 x (3 + 6 x 12/32) + 8) = ceil(1051.3125) = 1052;
        # c_r = 1052 + (12 + 256 + 51/256 + 4) + 8, nj = ceil(601 / 12) = 51 blocks
        (1 / 32, 1052 + 12 + 256 + 51 / 256 + 4 + 8),
    ],
)
def test_batched_softmax_convolutions_match_the_definition_and_their_rounding_constant(
    eta, want_c_r
):
    """The softmax law's node values for a pmf wider than DENSE_N = 600 lattice points (the
    chunked block-Toeplitz products of conv.batched_conv): at every node x (lattice units),
    phi = sum_k B_k G(u), om = sum_k B_k (1 - G(u)), psi = sum_k B_k e^u G(u), G(u) =
    exp(-e^u), u = eta (x - k), for the rows B = Binomial(600, 0.3), Binomial(600, 0.6) on
    601 points, each convolved on its own support (its values >= 1e-150); polyphase grids
    (p > 1) sum the kernel's far tail u <= -12 by tail.py's recursions. The rounding constant
    c_r is nconv + c_sum + 8 (softmax._rows_conv), nconv the larger of the direct sum's p + E +
    1 (W for p = 1) and conv.conv_terms' tree height, or the tail's constant when larger,
    worked out by hand above.
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


@pytest.mark.parametrize(("eta", "batched"), [(1 / 8, True), (1 / 32, True), (1 / 64, False)])
def test_polyphase_grids_up_to_batch_p_convolve_all_rows_in_one_product(eta, batched):
    """Nodes every p = floor(0.4 / eta) lattice points: p = 3 (eta = 1/8, every eps >= 1/4) and
    p = 12 (eps = 1/16), the worst-instance searches' two temperatures, go through
    conv.batched_conv's block-Toeplitz product, p = 25 (eps = 1/32) row by row (measured
    faster there: docs/performance.md); either path's values are checked against the
    definition above."""
    from privdtol.engine.exact.softmax import BATCH_P, _grid

    p, *_, TS = _grid(eta)
    assert p == {1 / 8: 3, 1 / 32: 12, 1 / 64: 25}[eta]
    assert (TS is not None) is batched and (p <= BATCH_P) is batched


@pytest.mark.parametrize(
    ("epsilon", "m"),
    [
        (8.0, 20),  # eta = 4: 10 node offsets, no cached dense matrix (one built per offset)
        (4.0, 2000),  # eta = 2: 727 > 600 lattice points kept, short kernel: per-row np.convolve
        (2.0, 2000),  # eta = 1: 727 points, block-Toeplitz GEMM over 3 offsets x 3 kernels
        (0.25, 2000),  # eta = 1/8: polyphase (nodes every 3 points), block-Toeplitz GEMM
    ],
)
def test_softmax_law_on_a_binomial_lattice_matches_brute_force(epsilon, m):
    """rps_uncapped (eta = eps/2) after m Bernoulli rounds, means (0.4, 0.5): P(A = 1) =
    sum_d P(S_1 - S_0 = d) / (1 + e^(eta d)), S_0 ~ Bin(m, 0.4), S_1 ~ Bin(m, 0.5) (scipy.stats
    pmfs, the law of the difference by direct convolution); the engine's value is within its
    error bound of it (plus 64 U of the brute force's own rounding)."""
    from scipy import stats

    eta, k = epsilon / 2, np.arange(m + 1)
    p0, p1 = stats.binom.pmf(k, m, 0.4), stats.binom.pmf(k, m, 0.5)
    pd = np.convolve(p1, p0[::-1])  # P(S1 - S0 = d), d = -m..m
    d = np.arange(-m, m + 1)
    want = math.fsum(pd * np.exp(-np.logaddexp(0.0, eta * d)))
    spec = _Spec("rps_uncapped", [0.4, 0.5], epsilon, "bernoulli")
    assert spec.eta == eta
    P, err = spec.law(m)
    for g, v in ((0, 1 - want), (1, want)):
        assert abs(P[g] - v) <= err[g] + 64 * 2.0**-53
        assert err[g] <= 1e-9


@pytest.mark.parametrize("algorithm", ["rps", "rps_uncapped"])
def test_windowed_law_matches_brute_force_at_k2(algorithm):
    """The law from m = 401 rounds (windowed supports, m > SMALL_M) against the sum over all
    402^2 pairs of Binomial sums; rps_uncapped at eps = 1 (eta = 1/2) has two node offsets per
    lattice point (their node positions are not sorted: a kept-node filter that assumed so
    halved this law)."""
    from scipy.stats import binom

    means, eps, m = np.array([0.4, 0.6]), 1.0, 401
    spec = _Spec(algorithm, means, eps, "bernoulli")
    P, err = spec.law(m)
    k = np.arange(m + 1)
    s = np.stack(np.meshgrid(k, k, indexing="ij"), axis=-1).reshape(-1, 2).astype(float)
    prob = np.outer(binom.pmf(k, m, means[0]), binom.pmf(k, m, means[1])).ravel()
    want = prob @ make_algorithm(algorithm, eps).law(s, 9)
    # (the brute-force sum of 402^2 positive terms: relative rounding well below 1e-11)
    assert abs(P[1] - want[1]) <= err[1] + 1e-11 * want[1]


K2_CASES = [(0.4, 0.6, 1.0), (0.3, 0.55, 0.1), (0.45, 0.5, 4.0)]


@pytest.mark.parametrize("mu1, mu2, eps", K2_CASES)
@pytest.mark.parametrize(
    "algorithm, prefix",
    [("rps", "random"), ("rps_full_prefix", "full"), ("rps_uncapped", "random")],
)
def test_softmax_algorithms_match_the_k2_random_walk(algorithm, prefix, mu1, mu2, eps):
    eta = make_algorithm(algorithm, eps).eta
    k_max = 12  # the reference propagates a pmf: O(T^2)
    want = rps_regret_k2(mu1, mu2, eta, k_max, prefix=prefix)
    horizons = (1 << np.arange(1, k_max + 1)) - 1
    got, err = expected_regret(algorithm, np.array([mu1, mu2]), eps, horizons)
    assert (err >= 0).all() and (err <= 1e-8 * np.maximum(got, 1)).all()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


# the references of support.exact_k2 against an enumeration of every loss sequence


def _walk_mean(mu1: float, mu2: float, m: int, f) -> float:
    """E[f(D_m)], D_m = L_(m,2) - L_(m,1), by enumerating all 4^m pairs of Bernoulli losses
    (independent of the pmf propagation of support.exact_k2)."""
    pairs = [
        (x2 - x1, (mu1 if x1 else 1 - mu1) * (mu2 if x2 else 1 - mu2))
        for x1 in (0, 1)
        for x2 in (0, 1)
    ]
    return math.fsum(
        math.prod(p for _, p in seq) * f(sum(d for d, _ in seq))
        for seq in itertools.product(pairs, repeat=m)
    )


def _sigma(z: float) -> float:
    return 1 / (1 + math.exp(-z))


MU1, MU2, GAP = 0.25, 0.5, 0.25


@pytest.mark.parametrize("prefix", ["random", "full"])
def test_rps_k2_regret_is_the_block_sum_of_the_walk_expectations(prefix):
    """Reg_T at T = 1, 3, 7, 15 (Lemma 4's accounting with equality): Delta/2 for the uniform
    A_0, then block r+1 (2^(r+1) rounds) charged Delta E[sigma(-eta D_M)] averaged over its
    prefix M: M_0 = 1, M_1 = 2, M_2 uniform on {3, 4} ("random", Section 4) or 4 ("full")."""
    from support.exact_k2 import rps_regret_k2

    eta = 0.125
    e = [_walk_mean(MU1, MU2, m, lambda d: _sigma(-eta * d)) for m in range(5)]
    last = (e[3] + e[4]) / 2 if prefix == "random" else e[4]
    want = np.cumsum([GAP / 2, 2 * GAP * e[1], 4 * GAP * e[2], 8 * GAP * last])
    np.testing.assert_allclose(rps_regret_k2(MU1, MU2, eta, 4, prefix), want, rtol=1e-13)


@pytest.mark.parametrize("algorithm", ["ftl", "hedge"])
def test_round_k2_regret_sums_the_law_of_every_round(algorithm):
    """Reg_T = sum_(t <= T) Delta P(I_t = 2) at T = 1, 3, 7, with P(I_t = 2) = E[g(D_(t-1))]:
    FTL g(d) = 1 if d < 0, 1/2 if d = 0, else 0 (ties uniform); Decreasing Hedge
    g(d) = sigma(-eta_t d), eta_t = 2 sqrt(log 2 / t)."""
    from support.exact_k2 import round_regret_k2

    def g(t):
        if algorithm == "ftl":
            return lambda d: 1.0 if d < 0 else 0.5 if d == 0 else 0.0
        return lambda d: _sigma(-2 * math.sqrt(math.log(2) / t) * d)

    per_round = [GAP * _walk_mean(MU1, MU2, t - 1, g(t)) for t in range(1, 8)]
    want = np.cumsum(per_round)[[0, 2, 6]]
    np.testing.assert_allclose(round_regret_k2(MU1, MU2, 3, algorithm), want, rtol=1e-13)
    with pytest.raises(ValueError) as err:
        round_regret_k2(MU1, MU2, 3, "rps")
    assert str(err.value) == "algorithm must be 'ftl' or 'hedge', got 'rps'"


def test_too_small_eta_is_refused_with_one_clear_line():
    """A temperature below the kernel's reach (rps_eta_sq at eps = 2^-12: eta = 2^-25) is
    refused before any allocation, naming the way out, instead of exhausting memory."""
    from privdtol.engine.exact import expected_regret as regret

    with pytest.raises(ValueError, match=r"too small for the exact engine.*exact: off"):
        regret("rps_eta_sq", [0.25, 0.75], 2.0**-12, [7])


@pytest.mark.parametrize("p", range(1, 13))
def test_block_sums_are_numpys_sums_bit_for_bit(p):
    """_block_sums adds fewer than 8 phases in order, which is numpy's order for so few terms;
    from 8 on it is numpy's sum itself (pairwise: another order)."""
    from privdtol.engine.exact.softmax import _block_sums

    rng = np.random.default_rng(p)
    X = rng.random((2, 1000, p)) * np.exp(rng.normal(0, 20, (2, 1000, p)))
    assert np.array_equal(_block_sums(X), X.sum(axis=-1))


@pytest.mark.parametrize("shift", [-9, -3, -1, 0, 1, 2, 7, 12])
@pytest.mark.parametrize(("n", "W"), [(1, 1), (5, 3), (20, 8), (3, 12)])
def test_add_shifted_adds_the_clipped_gather(shift, n, W):
    """dst[:, q, a] += M[:, clip(a + shift, 0, W - 1)]: the same sums as the gather it
    replaces, whatever part of the clip's three ranges the nodes cover."""
    from privdtol.engine.exact.softmax import _add_shifted

    rng = np.random.default_rng([n, W, shift + 20])
    dst, M = rng.random((2, 3, n)), rng.random((2, W))
    want = dst + M[:, np.clip(np.arange(n) + shift, 0, W - 1)][:, None, :]
    _add_shifted(dst, M, shift)
    assert np.array_equal(dst, want)
