"""Tests of :mod:`privdtol.environments.blocked`: one Bernoulli loss vector per dyadic block,
repeated on every round of the block."""

from __future__ import annotations

import numpy as np
from support.laws import MEANS
from support.stats import assert_within_se

from privdtol.environments import BlockedLosses

N = 20_000


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
