"""Tests of :mod:`privdtol.environments.deterministic`: constant losses mu, whose window sums are
L mu and whose Bernoulli resampling is Binomial(L, mu)."""

from __future__ import annotations

import numpy as np
from support.laws import MEANS, assert_fits_binomial, explicit_window_sums
from support.stats import ALPHA_FW, two_sample_chisquare

from privdtol.environments import DeterministicLosses

N = 20_000


def test_deterministic_sums_and_resampling():
    env = DeterministicLosses(MEANS)
    lengths = np.array([1, 5, 8])
    np.testing.assert_allclose(env.window_sums(None, 0, lengths), lengths[:, None] * MEANS)
    window = np.full(N, 6)
    fast = env.resampled_window_sums(np.random.default_rng(1), 0, window)
    slow = explicit_window_sums(env, np.random.default_rng(2), 0, window, resample=True)
    m = 3 * env.K
    for j in range(env.K):
        pvalue = two_sample_chisquare(fast[:, j], slow[:, j])
        assert pvalue > ALPHA_FW / m, f"action {j}: p = {pvalue:.3g}"
        assert_fits_binomial(fast[:, j], window, MEANS[j], m, f"fast, action {j}")
        assert_fits_binomial(slow[:, j], window, MEANS[j], m, f"explicit, action {j}")
