"""Tests of :mod:`privdtol.engine.optimal.size`: one-line refusals of bad input, the budget
(counted by hand), and the largest horizon named in the refusal."""

from __future__ import annotations

import math

import pytest

from privdtol.engine.optimal.size import MAX_ROWS, check, largest_horizon, privacy_rows
from privdtol.errors import InputError


def test_privacy_rows_by_hand():
    # K = 2, T = 3: R = 3 symbols, 3^2 2^3 = 72 items, 36 orbits, 2 rounds x 2 neighbours
    assert privacy_rows(2, 3) == 36 * 4
    # K = 3, T = 2: R = 7, 7 x 9 = 63 items, ceil(63/6) = 11, 1 round x 6 neighbours
    assert privacy_rows(3, 2) == 66


def test_largest_horizon():
    assert (largest_horizon(2), largest_horizon(3), largest_horizon(4)) == (6, 4, 3)
    assert privacy_rows(2, 6) <= MAX_ROWS < privacy_rows(2, 7)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((1, 0.75, 0.5, 1, 2), "K"),
        ((2.5, 0.75, 0.5, 1, 2), "K"),
        ((2, 0.4, 0.5, 1, 2), "mu"),
        ((2, 1.2, 0.5, 1, 2), "mu"),
        ((2, 0.75, 0.0, 1, 2), "gap"),
        ((2, 0.75, 0.5, -0.1, 2), "epsilon"),
        ((2, 0.75, 0.5, math.nan, 2), "epsilon"),
        ((2, 0.75, 0.5, 1, 0), "horizon"),
        ((2, 0.75, 0.5, 1, 7), "horizon"),
        ((3, 0.75, 0.5, 1, 5), "horizon"),
    ],
)
def test_refusals(args, field):
    with pytest.raises(InputError) as err:
        check(*args)
    assert err.value.field == field and "\n" not in str(err.value)


def test_too_large_names_the_largest():
    with pytest.raises(InputError, match=r"1 to 4 at K = 3"):
        check(3, 0.75, 0.5, 1, 5)


def test_accepts_infinity():
    assert check(2, 0.75, 0.5, math.inf, 3) == (2, 0.75, 0.5, math.inf, 3)
