"""Tests of :mod:`privdtol.core.clock`."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.algorithms import ALGORITHMS, make_algorithm
from privdtol.algorithms.rps import prefix_range
from privdtol.core import clock
from privdtol.engine.fast import simulate
from privdtol.environments import BernoulliProduct
from privdtol.errors import InputError

# --- from tests/test_mutation_guards.py


@pytest.mark.parametrize("horizon", [0, -3, 1.5, 1099511627777])
def test_check_horizon_refuses_in_one_line(horizon):
    with pytest.raises(InputError) as err:
        clock.check_horizon(horizon)
    assert str(err.value) == (
        f"horizon: got {horizon} (allowed: integers 1 .. 2^40 = 1099511627776)"
    )


def test_check_horizon_accepts_the_range_ends():
    assert clock.check_horizon(1) == 1
    assert clock.check_horizon(1099511627776) == 1099511627776
    assert clock.check_horizon(7.0) == 7


def test_clock_arrays_are_int64():
    """Block lengths and checkpoints index arrays and key cells: integers, not floats."""
    assert clock.block_lengths(10).dtype == np.int64
    horizons, covered = clock.checkpoints(10)
    assert horizons.dtype == np.int64
    np.testing.assert_array_equal(covered, [1, 2, 3, 4])


# --- from tests/test_paper_constants.py


def test_the_random_prefix_and_the_dyadic_clock():
    """M_0 = 1; M_r ~ Unif{2^(r-1) + 1, ..., 2^r}; the full-prefix ablation reads 2^r rounds;
    B_r = {2^r, ..., 2^(r+1) - 1}, so T = 10 has blocks of 1, 2, 4 and 3 rounds."""
    assert [prefix_range(r) for r in (0, 1, 2, 3, 10)] == [
        (1, 1),
        (2, 2),
        (3, 4),
        (5, 8),
        (513, 1024),
    ]
    rng = np.random.default_rng(0)
    m = make_algorithm("rps", 1.0).prefix_lengths(rng, 3, 4000)
    assert set(np.unique(m).tolist()) == {5, 6, 7, 8}
    full = make_algorithm("rps_full_prefix", 1.0).prefix_lengths(rng, 3, 5)
    np.testing.assert_array_equal(full, [8, 8, 8, 8, 8])
    np.testing.assert_array_equal(clock.block_lengths(10), [1, 2, 4, 3])
    np.testing.assert_array_equal(clock.checkpoints(10)[0], [1, 3, 7, 10])
    assert clock.block_start(5) == 32
    assert clock.MAX_HORIZON == 1099511627776


# --- from tests/test_simulate.py

ENV = BernoulliProduct(np.array([0.35, 0.5, 0.55, 0.9]))


def _sim(name, env, horizon, runs, mode, eps=0.7, tag=0):
    alg = make_algorithm(name, eps if ALGORITHMS[name].private else None)
    return simulate(alg, env, horizon, runs, {"test": name, "mode": mode, "tag": tag}, mode=mode)


def test_checkpoints_and_partial_last_block():
    horizons, _covered = clock.checkpoints(100)
    np.testing.assert_array_equal(horizons, [1, 3, 7, 15, 31, 63, 100])
    np.testing.assert_array_equal(clock.block_lengths(100), [1, 2, 4, 8, 16, 32, 37])
    res = _sim("rps", ENV, 100, 50, "fast")
    np.testing.assert_array_equal(res.checkpoints, horizons)
    assert res.regret.shape == (50, 7)
