"""Tests of :mod:`privdtol.algorithms.hedge`: Decreasing Hedge (Mourtada & Gaiffas 2019), the
softmax of -eta_t L with eta_t = 2 sqrt(log K / t)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import softmax

from privdtol.algorithms import ALGORITHMS
from privdtol.algorithms.hedge import DecreasingHedge

#: relative tolerance of a literal against the formula: rounding only
REL = 1e-12


def test_hedge_learning_rate():
    """Decreasing Hedge (Mourtada & Gaiffas 2019): eta_t = 2 sqrt(log K/t)."""
    assert DecreasingHedge.learning_rate(10, 4) == pytest.approx(1.5174271293851465, rel=REL)
    assert DecreasingHedge.learning_rate(2, 1) == pytest.approx(1.6651092223153954, rel=REL)


def test_hedge_law_and_rate():
    alg = ALGORITHMS["hedge"]()
    L = np.array([[2.0, 1.0, 4.0]])
    eta = 2 * np.sqrt(np.log(3) / 7)
    np.testing.assert_allclose(alg.law(L, 7)[0], softmax(-eta * L[0]), rtol=1e-12)


def test_decreasing_hedge_with_more_runs_than_actions():
    """K = 2, t = 4: eta_4 = 2 sqrt(ln 2 / 4) = sqrt(ln 2), the same for each of 3 runs;
    P(action 1) = 1 / (1 + e^(eta (L_1 - L_0)))."""
    eta = math.sqrt(math.log(2))
    law = DecreasingHedge().law(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), 4)
    p = 1 / (1 + math.exp(eta))
    np.testing.assert_allclose(law, [[1 - p, p], [p, 1 - p], [0.5, 0.5]], rtol=1e-12)
    one = DecreasingHedge().law(np.array([[0.0, 1.0]]), 4)
    np.testing.assert_allclose(one, [[1 - p, p]], rtol=1e-12)
