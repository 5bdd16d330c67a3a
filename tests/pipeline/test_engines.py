"""Tests of :mod:`privdtol.pipeline.engines`: one row per experiment slice and algorithm."""

from __future__ import annotations

from privdtol.pipeline.config import load_config
from privdtol.pipeline.engines import engine_report


def test_one_row_per_slice_and_algorithm_with_the_slices_setting():
    config = load_config(
        {
            "experiments": [
                {
                    "name": "e",
                    "algorithms": ["rps", "ftl"],
                    "K": [3],
                    "gap": [0.25],
                    "epsilon": [1.0],
                    "horizon": [63],
                    "slices": [{"name": "a"}, {"name": "b", "exact": "off"}],
                }
            ]
        }
    )
    rows = {(r["slice"], r["algorithm"]): r["engine"] for r in engine_report(config)}
    assert rows == {
        ("a", "rps"): "exact",
        ("a", "ftl"): "monte carlo",
        ("b", "rps"): "monte carlo",
        ("b", "ftl"): "monte carlo",
    }
