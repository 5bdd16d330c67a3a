"""Tests of :mod:`privdtol.environments.bernoulli`: independent Bernoulli losses, and the regret
simulated on them by the fast and explicit engines, against each other and against the exact
K = 2 regret."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.environments import (
    BernoulliProduct,
)
from privdtol.errors import InputError


@pytest.mark.parametrize("means", [[0.5], [0.2, 0.2, 0.5], [-0.1, 0.5], [0.1, 1.01]])
def test_bad_means(means):
    with pytest.raises(InputError, match="means"):
        BernoulliProduct(np.array(means))
