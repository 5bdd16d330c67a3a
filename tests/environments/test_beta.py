"""Tests of :mod:`privdtol.environments.beta`: Beta(kappa mu, kappa (1 - mu)) losses, whose window
sums have the moments of a sum of i.i.d. Beta losses and whose Bernoulli resampling is exactly
Binomial."""

from __future__ import annotations

import numpy as np
from scipy import stats
from support.laws import MEANS, assert_fits_binomial, explicit_window_sums, window_lengths
from support.stats import ALPHA_FW, assert_within_se, two_sample_chisquare

from privdtol.environments import BetaLosses


def test_beta_window_sums_are_explicit_and_resampling_is_binomial():
    kappa = 3.0
    env = BetaLosses(MEANS, kappa=kappa)
    rng = np.random.default_rng(5)
    lengths = window_lengths(5000, rng)
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
    slow = explicit_window_sums(env, np.random.default_rng(8), 0, lengths, resample=True)
    for j in range(env.K):
        pvalue = two_sample_chisquare(fast[:, j], slow[:, j])
        assert pvalue > ALPHA_FW / m, f"action {j}: p = {pvalue:.3g}"
        # resampling a Beta(mu) loss gives exactly Bernoulli(mu): the explicit sums are Binomial
        assert_fits_binomial(slow[:, j], lengths, MEANS[j], m, f"explicit resampled, action {j}")
    assert two_sample_chisquare(fast[:, [0, 1]], slow[:, [0, 1]]) > ALPHA_FW / m
