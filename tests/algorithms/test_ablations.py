"""Tests of :mod:`privdtol.algorithms.ablations`: the full-prefix ablation of Section 4 reads the
whole previous block, M_r = 2^r."""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import make_algorithm


def test_full_prefix_reads_whole_block():
    alg = make_algorithm("rps_full_prefix", 1.0)
    assert np.all(alg.prefix_lengths(np.random.default_rng(0), 5, 10) == 32)
    np.testing.assert_array_equal(alg.prefix_lengths(np.random.default_rng(0), 3, 5), [8] * 5)
