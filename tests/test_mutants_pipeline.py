"""Guards found by mutation testing of ``privdtol.pipeline``'s config and plan
(``make mutation GROUPS=pipeline``, docs/testing.md): messages word for word, boundaries."""

from __future__ import annotations

import math

import pytest

from privdtol.errors import InputError
from privdtol.pipeline import config


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_check_values_refuses_a_non_finite_number_in_one_line(value):
    with pytest.raises(InputError) as err:
        config.check_values({"thresholds": {"z_max": value}})
    assert str(err.value) == f"thresholds.z_max: got {value!r} (allowed: finite numbers)"
