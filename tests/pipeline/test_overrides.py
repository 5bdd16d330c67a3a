"""Tests of :mod:`privdtol.pipeline.overrides`: nested ``snakemake --config`` overrides (strings)
typed by the schema (the Snakemake run: tests/workflow/test_workflow_inputs.py)."""

from __future__ import annotations

import copy

from support.configs import SMALL, refusal_message, smoke_with_one

from privdtol.pipeline import config
from privdtol.pipeline.config import load_config
from privdtol.pipeline.overrides import coerce_overrides


def _with(mutate) -> dict:
    cfg = smoke_with_one(**SMALL)
    mutate(cfg)
    return cfg


def test_nested_overrides_are_coerced_by_the_schema_s_types():
    """Snakemake gives `--config checks="{confidence: 0.9, plateau_octaves: 5}"` as strings:
    before the fix the schema refused them (got '0.9')."""
    overrides = {
        "runs": "7",
        "checks": {
            "confidence": "0.9",
            "plateau_octaves": "5",
            "multiverse": {"exponent_range": [["0.9", "1.1"]], "confidence": ["0.8"]},
        },
        "limits": {"max_memory_gb": "4"},
        "allow_outside": "false",
    }
    cfg = _with(lambda c: config.merge_config(c, copy.deepcopy(overrides)))
    coerce_overrides(cfg, overrides)
    out = load_config(cfg)
    assert out["runs"] == 7 and out["checks"]["confidence"] == 0.9
    assert out["checks"]["plateau_octaves"] == 5 and out["limits"]["max_memory_gb"] == 4.0
    assert out["checks"]["multiverse"]["exponent_range"] == [[0.9, 1.1]]
    bad = _with(lambda c: c.update(checks={"confidence": "high"}))
    coerce_overrides(bad, {"checks": {"confidence": "high"}})
    assert refusal_message(bad).startswith("checks.confidence: got 'high'")
