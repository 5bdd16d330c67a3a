"""Tests of :mod:`privdtol.environments.deterministic`."""

from __future__ import annotations

import numpy as np
from scipy import stats
from support.stats import ALPHA_FW, chisquare_against, two_sample_chisquare

from privdtol.environments import (
    DeterministicLosses,
)

# --- from tests/test_environments.py

MEANS = np.array([0.3, 0.45, 0.45, 0.8])


N = 20_000


def _explicit(env, rng, start, lengths, resample=False):
    return env._explicit_window_sums(rng, start, lengths, resample=resample)


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
