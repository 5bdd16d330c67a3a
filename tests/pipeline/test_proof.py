"""Tests of :mod:`privdtol.pipeline.proof`."""

from __future__ import annotations

from privdtol.analysis.registry import proof_algorithms
from privdtol.pipeline import plan as grid
from privdtol.pipeline.proof import PROOF_EXPERIMENTS, proof_cells, proof_homes

# --- from tests/test_proof_checks.py


def _plan(config_experiments):
    config = {
        "seed": 0,
        "runs": 10,
        "exact": "auto",
        "batching": {"target_seconds": 30, "max_cells": 500},
        "experiments": config_experiments,
    }
    from privdtol.pipeline.config import load_config

    return grid.plan(load_config(config))


def test_proof_cells_are_the_exact_softmax_cells_once_each():
    common = {"K": [2, 4], "gap": [0.5], "epsilon": [1.0], "horizon": [1023]}
    plan = _plan(
        [
            {"name": "gap", "algorithms": ["rps", "rnm_ftnl", "ftl"], **common},
            {"name": "grid", "algorithms": ["rps", "rps_eta_logk"], **common},
            {"name": "ablations", "algorithms": ["rps"], **common, "K": [8]},
        ]
    )
    homes = proof_cells(plan, proof_algorithms())
    assert set(homes) == {"gap", "grid"} and "ablations" not in PROOF_EXPERIMENTS
    assert [c.algorithm for c in homes["gap"]] == ["rps", "rps"]  # rnm_ftnl: no softmax
    assert [c.algorithm for c in homes["grid"]] == ["rps_eta_logk"] * 2  # rps: home gap
    ids = proof_homes(plan, proof_algorithms())
    assert ids == {name: {c.cell_id for c in cells} for name, cells in homes.items()}
