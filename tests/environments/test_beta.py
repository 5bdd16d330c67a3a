"""Tests of :mod:`privdtol.environments.beta`."""

from __future__ import annotations

import numpy as np
from scipy import stats
from support.stats import ALPHA_FW, assert_within_se, chisquare_against, two_sample_chisquare

from privdtol.environments import (
    BetaLosses,
)

# --- from tests/test_environments.py

MEANS = np.array([0.3, 0.45, 0.45, 0.8])


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
