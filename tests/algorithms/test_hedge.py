"""Tests of :mod:`privdtol.algorithms.hedge`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privdtol.algorithms.hedge import DecreasingHedge

# --- from tests/test_mutants_algorithms_fresh.py


def test_decreasing_hedge_with_more_runs_than_actions():
    """K = 2, t = 4: eta_4 = 2 sqrt(ln 2 / 4) = sqrt(ln 2), the same for each of 3 runs;
    P(action 1) = 1 / (1 + e^(eta (L_1 - L_0)))."""
    eta = math.sqrt(math.log(2))
    law = DecreasingHedge().law(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), 4)
    p = 1 / (1 + math.exp(eta))
    np.testing.assert_allclose(law, [[1 - p, p], [p, 1 - p], [0.5, 0.5]], rtol=1e-12)
    one = DecreasingHedge().law(np.array([[0.0, 1.0]]), 4)
    np.testing.assert_allclose(one, [[1 - p, p]], rtol=1e-12)


# --- from tests/test_paper_constants.py

#: relative tolerance of a literal against the formula: rounding only
REL = 1e-12


def test_hedge_learning_rate():
    """Decreasing Hedge (Mourtada & Gaiffas 2019): eta_t = 2 sqrt(log K/t)."""
    assert DecreasingHedge.learning_rate(10, 4) == pytest.approx(1.5174271293851465, rel=REL)
    assert DecreasingHedge.learning_rate(2, 1) == pytest.approx(1.6651092223153954, rel=REL)
