"""The exact engine (:mod:`privdtol.engine.exact`) against independent computations: the
K = 2 pmf propagation of :mod:`privdtol.engine.exact_k2`, brute-force enumeration of the joint
Binomial law of a block's sums for small K, and the deterministic-loss closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binom
from support.exact_k2 import rps_regret_k2

from privdtol.algorithms import laplace_noisy_min_law, make_algorithm, softmax_law
from privdtol.algorithms.controls import short_prefix
from privdtol.engine.exact import EXACT_ALGORITHMS, block_law, expected_regret

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
    if algorithm == "rps_short_prefix":
        support = [short_prefix(r)]
    law = np.zeros(K)
    for m in support:
        pmfs = [binom.pmf(np.arange(m + 1), m, mu) for mu in means]
        for sums in itertools.product(range(m + 1), repeat=K):
            p = np.prod([pmfs[j][s] for j, s in enumerate(sums)])
            s = np.array(sums, dtype=float)[None, :]
            if algorithm in ("rnm_ftnl", "wu_wang"):
                sel = laplace_noisy_min_law(s[0], 2 / eps)
            else:  # softmax: the class's own law (its eta, eta_for(K), or eps/2)
                sel = alg.law(s, r)[0]
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


def test_short_prefix_regret_matches_brute_force_sum():
    """rps_short_prefix: Reg_T = sum_r |B_r ∩ [1, T]| sum_j Delta_j P(A_r = j) with every block
    law enumerated (A_r reads the first ceil(2^(2(r-1)/3)) rounds of block r - 1)."""
    means, eps, k_max = np.array([0.3, 0.5, 0.55]), 0.7, 7
    gaps = means - means.min()
    law = [brute_block_law("rps_short_prefix", means, eps, r - 1) for r in range(1, k_max)]
    per_round = [gaps.mean()] + [gaps @ p for p in law]  # A_0 uniform
    want = np.cumsum([(1 << r) * per_round[r] for r in range(k_max)])  # T = 2^k - 1
    horizons = (1 << np.arange(1, k_max + 1)) - 1
    got, err = expected_regret("rps_short_prefix", means, eps, horizons)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * want.max() + err.max())


CONTROLS = ("rps_eta_logk", "rps_eta_sq", "rps_short_prefix")


@pytest.mark.parametrize("algorithm", CONTROLS)
def test_rps_family_controls_match_monte_carlo(algorithm):
    """The negative controls against the fast Monte Carlo engine (4 standard errors)."""
    from support.stats import assert_mean_close

    from privdtol.engine.fast import simulate
    from privdtol.environments import BernoulliProduct

    means, eps, k_max = np.array([0.35, 0.5, 0.55, 0.9]), 0.3, 12
    res = simulate(
        make_algorithm(algorithm, eps),
        BernoulliProduct(means),
        (1 << k_max) - 1,
        4000,
        {"test": "exact-controls", "algorithm": algorithm},
        mode="fast",
    )
    got, err = expected_regret(algorithm, means, eps, res.checkpoints)
    assert (err <= 1e-8 * got).all()
    for k in (3, 8, 12):
        assert_mean_close(res.regret[:, k - 1], got[k - 1], z=4.0)


@pytest.mark.parametrize("algorithm", CONTROLS)
def test_controls_take_eta_and_prefix_from_their_class(algorithm):
    """rps_eta_logk / rps_eta_sq differ from rps only by eta, rps_short_prefix only by its
    deterministic prefix: with K = 2 and eta equal to rps's, their regret is rps's."""
    means = np.array([0.4, 0.6])
    horizons = (1 << np.arange(1, 11)) - 1
    if algorithm == "rps_short_prefix":  # n_0 = 1, n_1 = 2: the full prefix up to T = 7 ...
        got, _ = expected_regret(algorithm, means, 1.0, horizons[:3])
        want, _ = expected_regret("rps_full_prefix", means, 1.0, horizons[:3])
        assert expected_regret(algorithm, means, 1.0, [15])[0] > want[-1] + 1e-3  # n_2 = 3 < 4
    else:  # eta = min(eps/2, 1/8)/log2 2 = rps's; eps = 0.5: eps^2/2 = 1/8 = rps's
        eps = 0.5
        got, _ = expected_regret(algorithm, means, eps, horizons)
        want, _ = expected_regret("rps", means, eps, horizons)
    np.testing.assert_array_equal(got, want)


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


def test_too_small_eta_is_refused_with_one_clear_line():
    """A temperature below the kernel's reach (rps_eta_sq at eps = 2^-12: eta = 2^-25) is
    refused before any allocation, naming the way out, instead of exhausting memory."""
    from privdtol.engine.exact import expected_regret as regret

    with pytest.raises(ValueError, match=r"too small for the exact engine.*exact: off"):
        regret("rps_eta_sq", [0.25, 0.75], 2.0**-12, [7])


@pytest.mark.parametrize(
    "algorithm, gap, eps, m",
    [
        ("rps", 2.0**-16, 8.0, 1 << 36),  # optimal theta ~ 2 gap, far below eta / 800
        ("rps_uncapped", 2.0**-10, 8.0, 1 << 24),  # eta = 4: the same, at a larger gap
        ("rnm_ftnl", 2.0**-10, 8.0, 1 << 24),  # Laplace scale 1/4: theta < 4
    ],
)
def test_chernoff_bounds_are_tight_at_small_gaps(algorithm, gap, eps, m):
    """The per-group Chernoff bound (which ends the block loop and the M-average) is about
    exp(-m gap^2 / (2 var)), var = 1/2 at means 1/2 -+ gap/2, even where the optimal theta lies
    below the first step of a linear theta grid; a bound stuck at 1 there made rps at gap
    2^-16 and rps_uncapped at eps = 8 run for hours (issue 11's stalled paper cells)."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec(algorithm, [0.5 - gap / 2, 0.5 + gap / 2], eps, "bernoulli")
    assert spec.chernoff(m)[1] <= np.exp(-0.9 * m * gap * gap)


@pytest.mark.parametrize("algorithm", ["rps", "rps_uncapped", "rnm_ftnl"])
def test_chernoff_bounds_bound_the_exact_law(algorithm):
    """Validity: the bound at the block's smallest prefix is >= the exact law of the block."""
    from privdtol.engine.exact.spec import _Spec

    means = [0.45, 0.5, 0.55]
    spec = _Spec(algorithm, means, 4.0, "bernoulli")
    for r in range(1, 9):
        P, err = block_law(algorithm, means, 4.0, r)
        cb = spec.chernoff(spec.m_range(r)[0])[spec.inv]
        assert (P - err <= cb).all()


@pytest.mark.parametrize("algorithm", ["rps", "rnm_ftnl"])
def test_chernoff_sums_bound_the_summed_laws(algorithm):
    """The geometric Chernoff sum (the error of groups the M-average bounds instead of
    interpolating) bounds the exact sum of the laws over m and is at most n times the bound at
    the first m."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec(algorithm, [0.4, 0.5, 0.6], 4.0, "bernoulli")
    for a, b in ((1, 40), (33, 64), (200, 260)):
        P, err = spec.laws(np.arange(a, b + 1))
        cs = spec.chernoff_sum(a, b)
        assert ((P - err).sum(axis=0) <= cs).all()
        assert (cs <= (b - a + 1) * spec.chernoff(a) * (1 + 1e-12)).all()
    assert spec.chernoff_sum(200, 260)[2] < 0.7 * 61 * spec.chernoff(200)[2]  # geometric decay
