"""Tests of :mod:`privdtol.algorithms.ftl`: Follow-The-Leader plays uniformly among the actions
of smallest cumulative loss."""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import ALGORITHMS


def test_ftl_law_uniform_over_leaders():
    law = ALGORITHMS["ftl"]().law(np.array([[2.0, 1.0, 1.0, 3.0]]), 5)
    np.testing.assert_array_equal(law[0], [0, 0.5, 0.5, 0])
