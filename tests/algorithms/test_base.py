"""Tests of :mod:`privdtol.algorithms.base`: sampling one action per run by inversion of the row
CDF, the check of eps, and how an algorithm keeps the eps it is given."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.stats import P_MIN, chisquare_against

from privdtol.algorithms import ALGORITHMS
from privdtol.algorithms.base import check_epsilon, sample_from
from privdtol.errors import InputError

N = 40_000


class _FixedUniforms:
    """A stand-in generator whose ``random(n)`` returns the given uniforms."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=float)

    def random(self, n):
        assert n == self.values.size
        return self.values


def test_sample_from_matches_law():
    probs = np.array([0.1, 0.0, 0.6, 0.3])
    draws = sample_from(np.random.default_rng(5), np.tile(probs, (N, 1)))
    assert chisquare_against(draws, probs, 4) > P_MIN
    assert not np.any(draws == 1)


def test_sample_from_accepts_unnormalised_weights():
    """Row weights (1, 3): P(1) = 3/4; (2, 0, 2): never 1, halves on 0 and 2.  40000 draws:
    standard error sqrt(3/16 / 40000) = 0.0022, tolerance 5 standard errors."""
    rng = np.random.default_rng(20261201)
    n = 40000
    draws = sample_from(rng, np.tile([1.0, 3.0], (n, 1)))
    assert abs(draws.mean() - 0.75) < 5 * math.sqrt(0.75 * 0.25 / n)
    draws = sample_from(rng, np.tile([2.0, 0.0, 2.0], (n, 1)))
    assert not (draws == 1).any()
    assert abs((draws == 2).mean() - 0.5) < 5 * math.sqrt(0.25 / n)


def test_sample_from_puts_a_uniform_on_a_cdf_step_into_the_next_action():
    """Inversion with u in [0, 1): action j owns [cdf_(j-1), cdf_j), so u = 0 never picks an
    action of probability 0 and u = 1/2 with cdf (0, 1/2, 1) picks action 2."""
    probs = np.tile([0.0, 0.5, 0.5], (4, 1))
    draws = sample_from(_FixedUniforms([0.0, 0.25, 0.5, 0.75]), probs)
    np.testing.assert_array_equal(draws, [1, 1, 2, 2])
    # unnormalised weights (0, 2, 2): u is scaled by the row total 4, steps at 0 and 2
    draws = sample_from(_FixedUniforms([0.0, 0.5]), np.tile([0.0, 2.0, 2.0], (2, 1)))
    np.testing.assert_array_equal(draws, [1, 2])


def test_sample_from_keeps_a_draw_in_range_when_u_rounds_up_to_the_row_total():
    """Weights (0, 5e-324): u = U * 5e-324 rounds to 0 or to 5e-324 itself (no float lies
    between); at u = 5e-324 every cdf entry is <= u, and the last action is the only one of
    positive weight."""
    probs = np.tile([0.0, 5e-324], (200, 1))
    draws = sample_from(np.random.default_rng(0), probs)
    assert draws.tolist() == [1] * 200


@pytest.mark.parametrize("eps", [-1.0, 0.0, math.inf, math.nan])
def test_check_epsilon_refuses_in_one_line(eps):
    with pytest.raises(InputError) as err:
        check_epsilon(eps)
    assert str(err.value) == f"epsilon: got {eps} (allowed: a finite number > 0)"


def test_a_non_private_algorithm_keeps_the_eps_it_is_given():
    """ftl is not private: no eps is needed, and one given is kept as a float (not checked)."""
    assert ALGORITHMS["ftl"]().epsilon is None
    assert ALGORITHMS["ftl"](2).epsilon == 2.0
    assert isinstance(ALGORITHMS["ftl"](2).epsilon, float)
