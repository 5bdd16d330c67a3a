"""Tests of :mod:`privdtol.engine.optimal.reductions`: the merged alphabet's probabilities and
the orbits of the relabellings, counted by hand."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.engine.optimal import reductions as red


def test_symbol_probabilities_k2():
    # mu = 3/4, gap = 1/2; placement 0 (action 1 best, mean 1/4); masks: bit 0 = action 1 lost
    p = red.symbol_probabilities(2, 0.75, 0.5)
    # all equal: (3/4)(1/4) + (1/4)(3/4) = 3/8; only action 1: (1/4)(1/4); only action 2: 9/16
    assert p[0] == pytest.approx([3 / 8, 1 / 16, 9 / 16])
    assert p[1] == pytest.approx([3 / 8, 9 / 16, 1 / 16])


def test_symbol_probabilities_sum_to_one():
    assert red.symbol_probabilities(3, 0.6, 0.2).sum(axis=1) == pytest.approx([1, 1, 1])


def test_orbits_k2_one_round():
    # one round of data (3 symbols), two actions: 12 items; swapping the actions pairs them
    # except none (mask 1 <-> 2, actions 0 <-> 1): 6 orbits, 6 representatives
    index, reps, n = red.orbits(1, 2, 2)
    assert n == 6 and reps.sum() == 6 and len(index) == 12
    # (all equal, actions 0 0) and (all equal, actions 1 1) are one orbit
    assert index[0 * 4 + 0] == index[0 * 4 + 3]
    # (only action 1 lost, actions 0 1) and (only action 2 lost, actions 1 0)
    assert index[1 * 4 + 1] == index[2 * 4 + 2]


def test_orbits_k3_first_action():
    index, _reps, n = red.orbits(0, 1, 3)
    assert n == 1 and np.all(index == 0)


def test_symbol_images_fix_all_equal():
    images = red.symbol_images(3, red.permutations(3))
    assert np.all(images[:, 0] == 0)
    assert sorted(images[:, 1]) == [1, 1, 2, 2, 4, 4]
