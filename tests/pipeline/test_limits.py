"""Tests of :mod:`privdtol.pipeline.limits`: a cell's memory estimate against
``limits.max_memory_gb`` (in units of 1e9 bytes)."""

from __future__ import annotations

from support.configs import SMALL, refusal_message, smoke_with_one

from privdtol.pipeline import config, limits


def test_the_memory_limit_is_max_memory_gb_times_1e9_bytes():
    """A limit set 5e-10 below the cell's estimate refuses it; at the estimate it runs."""
    need = limits.exact_memory_bytes("rps", [0.25, 0.75], 1.0, 1023)
    cfg = smoke_with_one(**SMALL)
    cfg.pop("privacy", None)  # its audits are held to the same bound (tests/privacy/test_cost.py)
    cfg["limits"] = {"max_memory_gb": need / 1e9}
    config.load_config(cfg)
    cfg["limits"] = {"max_memory_gb": need / 1.0000000005e9}
    assert refusal_message(cfg).startswith("experiments[0].horizon: rps at K=2, T=1023 needs about")
