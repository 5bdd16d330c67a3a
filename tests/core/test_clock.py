"""Tests of :mod:`privdtol.core.clock`: the dyadic blocks B_r = {2^r, ..., 2^(r+1) - 1} of
Section 4, the checkpoints T = 2^R - 1 where regret is recorded, and the horizon's range."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.core import clock
from privdtol.engine.fast import simulate
from privdtol.environments import BernoulliProduct
from privdtol.errors import InputError


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


def test_the_dyadic_clock():
    """B_r = {2^r, ..., 2^(r+1) - 1}, so T = 10 has blocks of 1, 2, 4 and 3 rounds."""
    np.testing.assert_array_equal(clock.block_lengths(10), [1, 2, 4, 3])
    np.testing.assert_array_equal(clock.checkpoints(10)[0], [1, 3, 7, 10])
    assert clock.block_start(5) == 32
    assert clock.MAX_HORIZON == 1099511627776


def test_checkpoints_and_partial_last_block():
    horizons, _covered = clock.checkpoints(100)
    np.testing.assert_array_equal(horizons, [1, 3, 7, 15, 31, 63, 100])
    np.testing.assert_array_equal(clock.block_lengths(100), [1, 2, 4, 8, 16, 32, 37])
    env = BernoulliProduct(np.array([0.35, 0.5, 0.55, 0.9]))
    key = {"test": "rps", "mode": "fast", "tag": 0}
    res = simulate(make_algorithm("rps", 0.7), env, 100, 50, key, mode="fast")
    np.testing.assert_array_equal(res.checkpoints, horizons)
    assert res.regret.shape == (50, 7)
