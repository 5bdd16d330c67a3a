"""Tests of :mod:`privdtol.engine.selection`: the next block's actions and the law charged for
them (the explicit softmax, or the point mass at the action drawn)."""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import make_algorithm
from privdtol.engine.selection import select_next


def test_select_next_charges_a_point_mass_where_the_law_is_not_explicit():
    """rnm_ftnl draws Laplace noise (no explicit law): the law charged is the point mass at the
    action drawn; rps's is its softmax, explicit."""
    rng = np.random.default_rng(3)
    sums = np.array([[0.0, 50.0, 50.0], [50.0, 50.0, 0.0]])  # a lead of 50 >> noise 2/eps
    act, law, explicit = select_next(make_algorithm("rnm_ftnl", 8.0), rng, sums, 2)
    assert act.tolist() == [0, 2] and explicit is False
    np.testing.assert_array_equal(law, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    act, law, explicit = select_next(make_algorithm("rps", 1.0), rng, np.zeros((2, 3)), 2)
    assert explicit is True
    np.testing.assert_allclose(law, np.full((2, 3), 1 / 3), rtol=1e-15)
