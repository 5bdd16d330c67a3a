"""Tests of :mod:`privdtol.pipeline.proof`: the proof cells (the exact softmax cells, each in one
home experiment) and the flat row of a cell's proof terms (Lemmas 4 and 5, eqs. (5) and (6))
with the error bound of every number."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from privdtol.analysis.registry import proof_algorithms
from privdtol.errors import InputError
from privdtol.pipeline import plan as grid
from privdtol.pipeline.config import load_config
from privdtol.pipeline.proof import (
    PROOF_EXPERIMENTS,
    cell_terms,
    flat_row,
    proof_cells,
    proof_homes,
    read_terms,
)


def _plan(config_experiments):
    config = {
        "seed": 0,
        "runs": 10,
        "exact": "auto",
        "batching": {"target_seconds": 30, "max_cells": 500},
        "experiments": config_experiments,
    }
    return grid.plan(load_config(config))


def test_proof_cells_are_the_exact_softmax_cells_once_each():
    common = {"K": [2, 4], "gap": [0.5], "epsilon": [1.0], "horizon": [1023]}
    plan = _plan(
        [
            {"name": "gap", "algorithms": ["rps", "rnm_ftnl", "ftl"], **common},
            {"name": "grid", "algorithms": ["rps", "rps_eta_logk", "rps_uniform_mix"], **common},
            {"name": "ablations", "algorithms": ["rps"], **common, "K": [8]},
        ]
    )
    homes = proof_cells(plan, proof_algorithms())
    assert set(homes) == {"gap", "grid"} and "ablations" not in PROOF_EXPERIMENTS
    assert [c.algorithm for c in homes["gap"]] == ["rps", "rps"]  # rnm_ftnl: no softmax
    # rps: home gap; rps_eta_logk is no proof claim's control
    assert [c.algorithm for c in homes["grid"]] == ["rps_uniform_mix"] * 2
    ids = proof_homes(plan, proof_algorithms())
    assert ids == {name: {c.cell_id for c in cells} for name, cells in homes.items()}


def test_flat_row_carries_every_number_and_its_error_bound():
    cell = grid.Cell("rps", "bernoulli", "standard", 4, 0.5, None, 0.0625, 1023, 0, None, None, 0)
    row = flat_row(cell_terms(cell))
    for key in ("sum_F", "small_gap", "large_gap", "sum_V", "regret", "regret_limit"):
        assert np.isfinite(row[key]) and 0 <= row[f"{key}_err"] < 1e-6 * max(1.0, row[key])
    assert row["n_small"] == 0 and row["n_large"] == 3 and row["groups"] == 0
    assert row["bound_eq6"] == pytest.approx(4 * math.log(4) / (1 / 32), rel=1e-12)
    assert row["large_gap"] <= row["sum_V"] <= row["bound_drift"] <= row["bound_eq6"]
    assert row["drift_max"] <= row["drift_max_err"]


# ----------------------------------------------------------------- proof-terms files
PROOF_CELL = grid.Cell("rps", "bernoulli", "standard", 4, 0.5, None, 0.0625, 1023, 0, None, None, 0)


@pytest.fixture(scope="module")
def terms_text():
    return json.dumps(cell_terms(PROOF_CELL), indent=1, sort_keys=True, allow_nan=False)


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda t: t.replace('"sum_F": ', '"sum_F": NaN, "x": ', 1), "NaN is not a finite"),
        (lambda t: json.dumps({k: v for k, v in json.loads(t).items() if k != "sum_V"}),
         "missing key 'sum_V'"),
        (lambda t: json.dumps({**json.loads(t), "K": "4"}), "key 'K' is 'str'"),
        (lambda t: json.dumps({**json.loads(t), "tail_bound": None}), "key 'tail_bound' is"),
        (lambda t: json.dumps({**json.loads(t), "cell_id": "0" * 16}), "not of"),
        (lambda t: t[: len(t) // 2], "not readable JSON"),
    ],
)  # fmt: skip
def test_a_bad_proof_terms_file_is_one_line_naming_it(tmp_path, terms_text, edit, says):
    """Before the fix NaN was accepted, a missing key or a wrong type was a traceback."""
    path = tmp_path / f"{PROOF_CELL.cell_id}.json"
    path.write_text(edit(terms_text))
    with pytest.raises(InputError) as err:
        read_terms(path, PROOF_CELL)
    assert str(err.value).startswith(f"proof: {path}: ") and says in str(err.value)


def test_a_good_proof_terms_file_is_read(tmp_path, terms_text):
    path = tmp_path / f"{PROOF_CELL.cell_id}.json"
    path.write_text(terms_text)
    assert read_terms(path, PROOF_CELL)["cell_id"] == PROOF_CELL.cell_id
