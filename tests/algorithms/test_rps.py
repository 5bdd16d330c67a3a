"""Tests of :mod:`privdtol.algorithms.rps`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.stats import P_MIN, chisquare_against

from privdtol.algorithms import (
    random_prefix,
    softmax_law,
)

# --- from tests/test_algorithms.py


@pytest.mark.parametrize("r", [0, 1, 4, 7])
def test_random_prefix_is_uniform_on_second_half(r):
    m = random_prefix(np.random.default_rng(r), r, 30_000)
    if r == 0:
        assert np.all(m == 1)
        return
    lo, hi = (1 << (r - 1)) + 1, 1 << r
    assert m.min() >= lo and m.max() <= hi
    width = hi - lo + 1
    assert chisquare_against(m - lo, np.full(width, 1 / width), width) > P_MIN


# --- from tests/test_mutants_algorithms.py


def test_random_prefix_indexes_prefix_sums_at_every_block():
    """M_0 = 1 and M_2 in {3, 4} (Section 4), as integers that index an array of prefix sums."""
    rng = np.random.default_rng(7)
    cum = np.arange(10.0) * 10
    np.testing.assert_array_equal(cum[random_prefix(rng, 0, 3)], [10.0, 10.0, 10.0])
    m = random_prefix(rng, 2, 200)
    assert set(cum[m].tolist()) == {30.0, 40.0}


# --- from tests/test_mutants_algorithms_fresh.py


def test_softmax_law_of_integer_counts_and_float32_sums_is_float64():
    """softmax(-eta L) of L = (0, 1): P(action 1) = e^-eta / (1 + e^-eta)."""
    law = softmax_law(np.array([[0, 1], [2, 2]]), 1)  # integer loss counts, integer eta
    p = math.exp(-1) / (1 + math.exp(-1))
    assert law.dtype == np.float64
    np.testing.assert_allclose(law, [[1 - p, p], [0.5, 0.5]], rtol=1e-15)
    law = softmax_law(np.array([[0.0, 1.0]], dtype=np.float32), 0.1)
    p = math.exp(-0.1) / (1 + math.exp(-0.1))
    assert law.dtype == np.float64
    np.testing.assert_allclose(law, [[1 - p, p]], rtol=1e-14)
