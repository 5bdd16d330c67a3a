"""Tests of :mod:`privdtol.algorithms.rps`: the paper's algorithm (Section 4), a softmax of
-eta L over the block's first M_r rounds, M_0 = 1 and M_r ~ Unif{2^(r-1) + 1, ..., 2^r}."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import softmax
from support.stats import P_MIN, chisquare_against

from privdtol.algorithms import make_algorithm, random_prefix, softmax_law
from privdtol.algorithms.rps import prefix_range


def test_the_random_prefix_range():
    """M_0 = 1; M_r ~ Unif{2^(r-1) + 1, ..., 2^r}."""
    assert [prefix_range(r) for r in (0, 1, 2, 3, 10)] == [
        (1, 1),
        (2, 2),
        (3, 4),
        (5, 8),
        (513, 1024),
    ]
    m = make_algorithm("rps", 1.0).prefix_lengths(np.random.default_rng(0), 3, 4000)
    assert set(np.unique(m).tolist()) == {5, 6, 7, 8}


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


def test_random_prefix_indexes_prefix_sums_at_every_block():
    """M_0 = 1 and M_2 in {3, 4} (Section 4), as integers that index an array of prefix sums."""
    rng = np.random.default_rng(7)
    cum = np.arange(10.0) * 10
    np.testing.assert_array_equal(cum[random_prefix(rng, 0, 3)], [10.0, 10.0, 10.0])
    m = random_prefix(rng, 2, 200)
    assert set(cum[m].tolist()) == {30.0, 40.0}


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


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(arrays(float, (3, 6), elements=st.floats(0, 2.0**40)), st.floats(1e-6, 10))
def test_softmax_law_agrees_with_scipy_and_never_overflows(sums, eta):
    law = make_algorithm("rps", 2 * eta).law(sums, 0)
    assert np.all(np.isfinite(law))
    np.testing.assert_allclose(law.sum(axis=1), 1, rtol=1e-12)
    np.testing.assert_allclose(law, softmax(-min(eta, 1 / 8) * sums, axis=1), atol=1e-12)
