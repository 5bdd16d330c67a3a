"""The exact engine (:mod:`privdtol.engine.exact`) against independent computations: the
K = 2 pmf propagation of :mod:`privdtol.engine.exact_k2`, brute-force enumeration of the joint
Binomial law of a block's sums for small K, and the deterministic-loss closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binom

from privdtol.algorithms import laplace_noisy_min_law, make_algorithm, softmax_law
from privdtol.engine.exact import EXACT_ALGORITHMS, block_law, expected_regret
from privdtol.engine.exact_k2 import rps_regret_k2

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


def brute_block_law(algorithm: str, means, eps: float, r: int) -> np.ndarray:
    """P(A_(r+1) = j) by enumerating every vector of block-r sums (prefix m) with its
    product-Binomial probability and the algorithm's own selection law, averaged over M_r."""
    alg = make_algorithm(algorithm, eps)
    K, n = len(means), 1 << r
    support = [1] if r == 0 else list(range((n >> 1) + 1, n + 1))
    if algorithm in ("rps_full_prefix", "rnm_ftnl", "wu_wang", "wu_wang_gumbel"):
        support = [n]
    law = np.zeros(K)
    for m in support:
        pmfs = [binom.pmf(np.arange(m + 1), m, mu) for mu in means]
        for sums in itertools.product(range(m + 1), repeat=K):
            p = np.prod([pmfs[j][s] for j, s in enumerate(sums)])
            s = np.array(sums, dtype=float)[None, :]
            if algorithm in ("rnm_ftnl", "wu_wang"):
                sel = laplace_noisy_min_law(s[0], 2 / eps)
            elif algorithm == "wu_wang_gumbel":
                sel = softmax_law(s, eps / 2)[0]
            else:
                sel = softmax_law(s, alg.eta)[0]
            law += p * sel / len(support)
    return law


LAPLACE = ("rnm_ftnl", "wu_wang")  # their reference is a quadrature: slow, blocks up to r = 2


@pytest.mark.parametrize(
    "algorithm, r",
    [
        pytest.param(a, r, marks=[pytest.mark.slow] if (a in LAPLACE and r == 2) else [])
        for a in EXACT_ALGORITHMS
        for r in (0, 2, 3)
        if not (r == 3 and a in LAPLACE)
    ],
)
def test_block_law_matches_brute_force_enumeration(algorithm, r):
    means = np.array([0.3, 0.5, 0.55])
    eps = 0.7
    got, err = block_law(algorithm, means, eps, r)
    want = brute_block_law(algorithm, means, eps, r)
    tol = 1e-9 if algorithm in LAPLACE else 1e-11  # quadrature reference
    np.testing.assert_allclose(got, want, atol=tol + err)
    assert abs(got.sum() - 1) < 1e-12


def test_deterministic_losses_full_prefix_closed_form():
    """Deterministic losses, full prefix: block r+1 plays softmax(−η 2^r μ) exactly."""
    means = np.array([0.2, 0.5, 0.9])
    eps, r = 0.5, 5
    got, _ = block_law("rps_full_prefix", means, eps, r, env="deterministic")
    want = softmax_law((1 << r) * means[None, :], min(eps / 2, 1 / 8))[0]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.slow
def test_equal_means_cost_one_factor_and_huge_k_is_finite():
    from privdtol.environments import standard_means

    horizons = (1 << np.arange(1, 61, dtype=np.int64)) - 1  # T up to 2^60
    reg, err = expected_regret("rps", standard_means(1 << 16, 1 / 1024), 0.001, horizons)
    assert np.isfinite(reg).all() and np.isfinite(err).all()
    assert (np.diff(reg) >= -err[1:] - err[:-1]).all()  # regret never decreases
    assert reg[-1] == pytest.approx(reg[-2], rel=1e-9)  # horizon-free at 2^60
