"""Tests of :mod:`privdtol.environments.correlated`: Bernoulli losses with pairwise correlation
rho (negative rho: the best action against the others), whose window sums are drawn from their
exact joint law."""

from __future__ import annotations

import numpy as np
import pytest
from support.laws import MEANS, assert_fits_binomial, explicit_window_sums, window_lengths
from support.stats import ALPHA_FW, assert_within_se, two_sample_chisquare

from privdtol.environments import (
    BernoulliProduct,
    CorrelatedBernoulli,
    standard_means,
)

N = 20_000


@pytest.mark.parametrize(
    "env",
    [
        BernoulliProduct(MEANS),
        CorrelatedBernoulli(MEANS, rho=0.7),
        CorrelatedBernoulli(MEANS, rho=1.0),
        CorrelatedBernoulli(MEANS, rho=-0.7),
        CorrelatedBernoulli(MEANS, rho=-1.0),
    ],
    ids=lambda e: f"{e.name}-{getattr(e, 'rho', '')}",
)
def test_exact_window_sums_match_explicit_joint_law(env):
    rng = np.random.default_rng(11)
    lengths = window_lengths(N, rng)
    fast = env.window_sums(np.random.default_rng(1), 0, lengths)
    slow = explicit_window_sums(env, np.random.default_rng(2), 0, lengths)
    pairs = [(0, 1), (1, 2), (0, 3)]
    m = len(pairs) + env.K  # the family: pair laws (fast vs explicit) and each exact marginal
    for i, j in pairs:  # joint law of pairs: catches missing dependence
        pvalue = two_sample_chisquare(fast[:, [i, j]], slow[:, [i, j]])
        assert pvalue > ALPHA_FW / m, f"actions {i},{j}: p = {pvalue:.3g}"
    for j in range(env.K):  # every marginal is Binomial(L, mu_j), whatever the dependence
        assert_fits_binomial(fast[:, j], lengths, MEANS[j], m, f"action {j}")


def test_correlated_pair_laws_are_as_documented():
    """X_i, X_j are Bernoulli(mu_i), Bernoulli(mu_j) with Cov = rho (min(mu) - mu_i mu_j): with
    the marginals, the covariance fixes each pair's joint law.  Estimates with the known means,
    whose exact variances follow from that joint law."""
    rho, n = 0.6, 200_000
    env = CorrelatedBernoulli(MEANS, rho=rho)
    x = env.sample_rounds(np.random.default_rng(3), 1, 0, n)[0]
    pairs = [(i, j) for i in range(env.K) for j in range(i + 1, env.K)]
    m = env.K + len(pairs)
    assert_within_se(x.mean(axis=0), MEANS, np.sqrt(MEANS * (1 - MEANS) / n), m, "means")
    for i, j in pairs:
        mi, mj = MEANS[i], MEANS[j]
        cov = rho * (min(mi, mj) - mi * mj)
        p11 = cov + mi * mj  # joint law of (X_i, X_j) on {0,1}^2
        law = {(1, 1): p11, (1, 0): mi - p11, (0, 1): mj - p11, (0, 0): 1 - mi - mj + p11}
        second = sum(p * ((a - mi) * (b - mj)) ** 2 for (a, b), p in law.items())
        se = np.sqrt((second - cov**2) / n)
        estimate = np.mean((x[:, i] - mi) * (x[:, j] - mj))
        assert_within_se(estimate, cov, se, m, f"Cov(X_{i}, X_{j})")


def test_anticorrelated_pair_laws_are_as_documented():
    """rho < 0: the best action against the others, Cov(X_1, X_j) = |rho| (max(0, mu_1 + mu_j
    - 1) - mu_1 mu_j) (negative here); the others among themselves as for rho = |rho|."""
    rho, n = -0.6, 200_000
    env = CorrelatedBernoulli(MEANS, rho=rho)
    x = env.sample_rounds(np.random.default_rng(4), 1, 0, n)[0]
    pairs = [(i, j) for i in range(env.K) for j in range(i + 1, env.K)]
    m = env.K + len(pairs)
    assert_within_se(x.mean(axis=0), MEANS, np.sqrt(MEANS * (1 - MEANS) / n), m, "means")
    for i, j in pairs:
        mi, mj = MEANS[i], MEANS[j]
        # the best action (MEANS[0], the smallest) against another, or two others
        both = max(0.0, mi + mj - 1) if i == 0 else min(mi, mj)
        cov = -rho * (both - mi * mj)
        p11 = cov + mi * mj
        law = {(1, 1): p11, (1, 0): mi - p11, (0, 1): mj - p11, (0, 0): 1 - mi - mj + p11}
        second = sum(p * ((a - mi) * (b - mj)) ** 2 for (a, b), p in law.items())
        se = np.sqrt((second - cov**2) / n)
        estimate = np.mean((x[:, i] - mi) * (x[:, j] - mj))
        assert_within_se(estimate, cov, se, m, f"Cov(X_{i}, X_{j})")
    # on the standard instance (mu_1 + mu_j = 1), rho = -1 makes X_j = 1 - X_1 in every round
    full = CorrelatedBernoulli(standard_means(4, 0.25), rho=-1.0)
    y = full.sample_rounds(np.random.default_rng(5), 2, 0, 500)
    assert np.array_equal(y[..., 1:], np.repeat(1 - y[..., :1], 3, axis=-1))


def test_huge_windows_do_not_overflow():
    env = CorrelatedBernoulli(MEANS, rho=0.5)
    lengths = np.array([1 << 40, 1 << 39])
    sums = env.window_sums(np.random.default_rng(0), 0, lengths)
    assert np.all(np.isfinite(sums))
    # marginally Binomial(L, mu_j): the mean loss has standard error sqrt(mu (1 - mu) / L)
    L = lengths[:, None].astype(float)
    assert_within_se(sums / L, MEANS, np.sqrt(MEANS * (1 - MEANS) / L), sums.size, "window sum / L")
