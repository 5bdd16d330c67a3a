"""Block-sum sampling against explicit per-round draws (same law), and instance generators.

Statistical tolerances follow conftest.py: every comparison is a z test whose standard error is
computed from the exact law under test (never from the sample), or a goodness-of-fit test, and
the comparisons of one test function share the familywise level ``ALPHA_FW`` (Bonferroni).
Seeds are fixed, so each test is deterministic; a wrong law fails by many standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from support.stats import ALPHA_FW, assert_within_se, chisquare_against, two_sample_chisquare

from privdtol.environments import (
    BernoulliProduct,
    BetaLosses,
    BlockedLosses,
    CorrelatedBernoulli,
    DeterministicLosses,
    ReplayLosses,
    read_loss_matrix,
    staircase_means,
    standard_means,
)
from privdtol.errors import InputError

MEANS = np.array([0.3, 0.45, 0.45, 0.8])
N = 20_000


def _explicit(env, rng, start, lengths, resample=False):
    return env._explicit_window_sums(rng, start, lengths, resample=resample)


def _lengths(n, rng):
    return rng.integers(3, 9, size=n)  # different window per run, as M_r gives


def binomial_mixture_pmf(lengths, p):
    """Law of one draw of Binomial(L, p) with L drawn uniformly from ``lengths``: the pooled law
    of draws i ~ Binomial(lengths[i], p).  (A chi-square test of such draws against the pooled
    law is conservative: their counts vary less than multinomial counts.)"""
    values, counts = np.unique(np.asarray(lengths), return_counts=True)
    k = np.arange(values.max() + 1)
    pmf = sum(c * stats.binom.pmf(k, v, p) for v, c in zip(values, counts, strict=True))
    return pmf / counts.sum()


def assert_fits_binomial(sums, lengths, p, m, what):
    """Integer window sums against their exact law Binomial(lengths[i], p) (level ALPHA_FW / m)."""
    draws = np.asarray(sums)
    assert np.array_equal(draws, np.round(draws)), f"{what}: sums are not integers"
    pmf = binomial_mixture_pmf(lengths, p)
    pvalue = chisquare_against(draws.astype(np.int64), pmf, pmf.size)
    assert pvalue > ALPHA_FW / m, f"{what}: p = {pvalue:.3g} against the exact Binomial law"


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
    lengths = _lengths(N, rng)
    fast = env.window_sums(np.random.default_rng(1), 0, lengths)
    slow = _explicit(env, np.random.default_rng(2), 0, lengths)
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


def test_blocked_losses_repeat_one_vector_per_dyadic_block():
    """X_t = Y_r on B_r = {2^r, ..., 2^(r+1) - 1} (round index 2^r - 1 onwards); a window sum
    is the overlap with each block times that block's vector."""
    env = BlockedLosses(MEANS)
    x = env.sample_rounds(np.random.default_rng(6), 50, 0, 31)
    for r in range(5):
        block = x[:, 2**r - 1 : 2 ** (r + 1) - 1, :]
        assert np.array_equal(block, np.repeat(block[:, :1, :], 2**r, axis=1)), r
    # the prefix of block r = 3 (rounds 7..14): m copies of one Bernoulli(mu) vector
    lengths = np.random.default_rng(7).integers(1, 9, size=N)
    sums = env.window_sums(np.random.default_rng(8), 7, lengths)
    y = sums / lengths[:, None]
    assert np.array_equal(y, np.round(y)) and set(np.unique(y)) <= {0.0, 1.0}
    assert_within_se(y.mean(axis=0), MEANS, np.sqrt(MEANS * (1 - MEANS) / N), env.K, "means")
    # a window over two blocks (rounds 2..5: one round of B_1, three of B_2) uses two vectors
    two = env.window_sums(np.random.default_rng(9), 2, np.full(N, 4))
    assert set(np.unique(two)) == {0.0, 1.0, 3.0, 4.0}


def test_beta_window_sums_are_explicit_and_resampling_is_binomial():
    kappa = 3.0
    env = BetaLosses(MEANS, kappa=kappa)
    rng = np.random.default_rng(5)
    lengths = _lengths(5000, rng)
    n = lengths.size
    m = 2 * env.K + env.K + 1 + env.K  # means, variances; resampled: 2-sample, pair, exact law
    sums = env.window_sums(np.random.default_rng(6), 0, lengths)
    # one loss: Beta(kappa mu, kappa (1 - mu)), variance s2, fourth central moment mu4
    a, b = kappa * MEANS, kappa * (1 - MEANS)
    s2 = MEANS * (1 - MEANS) / (kappa + 1)
    mu4 = (stats.beta.stats(a, b, moments="k") + 3) * s2**2
    L = lengths[:, None].astype(float)
    dev = sums - L * MEANS  # a sum of L centered losses: mean 0, variance L s2
    assert_within_se(
        dev.mean(axis=0), 0.0, np.sqrt((L * s2).sum(axis=0)) / n, m, "mean of window sums - L mu"
    )
    # E[dev^2] = L s2 and Var(dev^2) = L mu4 + (2 L^2 - 3 L) s2^2 (sum of L i.i.d. terms)
    var_dev2 = L * mu4 + (2 * L**2 - 3 * L) * s2**2
    assert_within_se(
        (dev**2).mean(axis=0),
        (L * s2).mean(axis=0),
        np.sqrt(var_dev2.sum(axis=0)) / n,
        m,
        "mean of (window sum - L mu)^2",
    )
    fast = env.resampled_window_sums(np.random.default_rng(7), 0, lengths)
    slow = _explicit(env, np.random.default_rng(8), 0, lengths, resample=True)
    for j in range(env.K):
        pvalue = two_sample_chisquare(fast[:, j], slow[:, j])
        assert pvalue > ALPHA_FW / m, f"action {j}: p = {pvalue:.3g}"
        # resampling a Beta(mu) loss gives exactly Bernoulli(mu): the explicit sums are Binomial
        assert_fits_binomial(slow[:, j], lengths, MEANS[j], m, f"explicit resampled, action {j}")
    assert two_sample_chisquare(fast[:, [0, 1]], slow[:, [0, 1]]) > ALPHA_FW / m


def test_deterministic_sums_and_resampling():
    env = DeterministicLosses(MEANS)
    lengths = np.array([1, 5, 8])
    np.testing.assert_allclose(env.window_sums(None, 0, lengths), lengths[:, None] * MEANS)
    window = np.full(N, 6)
    fast = env.resampled_window_sums(np.random.default_rng(1), 0, window)
    slow = _explicit(env, np.random.default_rng(2), 0, window, resample=True)
    m = 3 * env.K
    for j in range(env.K):
        pvalue = two_sample_chisquare(fast[:, j], slow[:, j])
        assert pvalue > ALPHA_FW / m, f"action {j}: p = {pvalue:.3g}"
        assert_fits_binomial(fast[:, j], window, MEANS[j], m, f"fast, action {j}")
        assert_fits_binomial(slow[:, j], window, MEANS[j], m, f"explicit, action {j}")


def test_replay_window_sums_are_prefix_sums(tmp_path):
    matrix = np.random.default_rng(0).random((37, 3))
    matrix[:, 0] *= 0.5
    path = tmp_path / "losses.csv"
    np.savetxt(path, matrix, delimiter=",", header="a,b,c", comments="")
    env = ReplayLosses.from_csv(path)
    lengths = np.array([1, 4, 10])
    expected = np.array([matrix[6 : 6 + n].sum(axis=0) for n in lengths])
    np.testing.assert_allclose(env.window_sums(None, 6, lengths), expected)
    np.testing.assert_allclose(_explicit(env, np.random.default_rng(0), 6, lengths), expected)
    with pytest.raises(InputError, match="horizon"):
        env.window_sums(None, 30, np.array([10]))


@pytest.mark.parametrize(
    "content,problem",
    [
        ("", "empty"),
        ("a,b\n0.1,x\n", "non-numeric"),
        ("0.1,0.2\n0.3\n", "different numbers"),
        ("0.1,1.5\n", "outside"),
        ("0.5\n0.2\n", "column"),
        ("a,b\n", "no data rows"),
    ],
)
def test_malformed_loss_files_are_rejected(tmp_path, content, problem):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(InputError, match=problem):
        read_loss_matrix(path)


def test_standard_and_staircase_instances():
    m = standard_means(5, 0.2)
    np.testing.assert_allclose(m, [0.4, 0.6, 0.6, 0.6, 0.6])
    s = staircase_means(5, 0.1, 0.2)
    assert s[0] == 0.2 and np.isclose(s[1] - s[0], 0.1) and np.isclose(s[-1], 1.0)
    assert np.all(np.diff(s[1:]) > 0)
    env = BernoulliProduct(m)
    assert env.best == 0 and np.isclose(env.delta_min, 0.2)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        (dict(K=1, gap=0.1), "K"),
        (dict(K=3, gap=0.0), "gap"),
        (dict(K=3, gap=1.2), "gap"),
        (dict(K=3, gap=0.5, mu_best=0.7), "mu_best"),
    ],
)
def test_bad_instances(kwargs, field):
    with pytest.raises(InputError) as err:
        standard_means(**kwargs)
    assert err.value.field == field


@pytest.mark.parametrize("means", [[0.5], [0.2, 0.2, 0.5], [-0.1, 0.5], [0.1, 1.01]])
def test_bad_means(means):
    with pytest.raises(InputError, match="means"):
        BernoulliProduct(np.array(means))


def test_huge_windows_do_not_overflow():
    env = CorrelatedBernoulli(MEANS, rho=0.5)
    lengths = np.array([1 << 40, 1 << 39])
    sums = env.window_sums(np.random.default_rng(0), 0, lengths)
    assert np.all(np.isfinite(sums))
    # marginally Binomial(L, mu_j): the mean loss has standard error sqrt(mu (1 - mu) / L)
    L = lengths[:, None].astype(float)
    assert_within_se(sums / L, MEANS, np.sqrt(MEANS * (1 - MEANS) / L), sums.size, "window sum / L")
