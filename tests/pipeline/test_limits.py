"""Tests of :mod:`privdtol.pipeline.limits`: a cell's memory estimate against
``limits.max_memory_gb`` (in units of 1e9 bytes)."""

from __future__ import annotations

import pytest
from support.paths import SMOKE

from privdtol.errors import InputError
from privdtol.pipeline import config, limits


def _one(**exp) -> dict:
    """The smoke config with one experiment ``x`` of the keys given."""
    cfg = config.read_config_files([SMOKE])
    cfg["experiments"] = [{"name": "x", **exp}]
    return cfg


SMALL = {"algorithms": ["rps"], "K": [2], "gap": [0.5], "epsilon": [1.0], "horizon": [1023]}


def _message(cfg) -> str:
    with pytest.raises(InputError) as err:
        config.load_config(cfg)
    return str(err.value)


def test_the_memory_limit_is_max_memory_gb_times_1e9_bytes():
    """A limit set 5e-10 below the cell's estimate refuses it; at the estimate it runs."""
    need = limits.exact_memory_bytes("rps", [0.25, 0.75], 1.0, 1023)
    cfg = _one(**SMALL)
    cfg["limits"] = {"max_memory_gb": need / 1e9}
    config.load_config(cfg)
    cfg["limits"] = {"max_memory_gb": need / 1.0000000005e9}
    assert _message(cfg).startswith("experiments[0].horizon: rps at K=2, T=1023 needs about")
