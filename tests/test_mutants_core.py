"""Guards found by mutation testing of ``privdtol.core`` (``make mutation GROUPS=core``,
docs/testing.md): the cases no earlier test reached."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.core import bounds


def _objects(*values):
    return np.array(values, dtype=object)


def test_lower_shape_of_an_object_column_with_none_is_nan():
    """A table column with gaps (dtype object, None for a missing value) gives NaN in that row,
    as every other bound does; before the fix ``np.minimum`` compared None with a float and
    raised TypeError."""
    out = bounds.lower_shape(10, _objects(0.5, None), _objects(0.1, 0.1))
    assert out.dtype == float
    assert out[0] == pytest.approx(np.log(10) / 0.1, rel=1e-12)
    assert np.isnan(out[1])
    out = bounds.lower_shape(10, _objects(0.5, 0.5), _objects(0.1, None))
    assert np.isnan(out[1])


def test_lower_shape_propagates_a_nan_gap_in_an_object_column():
    """On an object column ``np.minimum(nan, 0.5)`` is 0.5 (the comparison with NaN is False),
    so a missing gap silently became log K / eps (2.77 for K = 4, eps = 0.5); converted to float
    it is NaN, as for a float column."""
    out = bounds.lower_shape(4, _objects(np.nan, 0.5), _objects(0.5, np.nan))
    assert np.isnan(out).all()
    floats = bounds.lower_shape(4, np.array([np.nan, 0.5]), np.array([0.5, np.nan]))
    assert np.isnan(floats).all()
