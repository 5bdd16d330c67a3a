"""Tests of :mod:`privdtol.analysis.findings.rates`: the band of Θ constants over rps's grid cells
and rps's constants fitted on the grid, compared with Theorem 1's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.tables import EXACT_LAW_GRID, exact_law_tables, final_rows_table

from privdtol.analysis import (
    findings,
)

LN4 = np.log(4.0)


def test_theta_band_over_the_rps_grid_cells_by_hand():
    """Reg / (log K/min(gap, eps)) at K = 4: gap 1/4, eps 1 (lower 4 log 4, regret 8 log 4:
    2); gap 1/2, eps 1/8 (lower 8 log 4, regret 24 log 4: 3); gap 1/4, eps 1/4 (lower 4 log 4,
    regret 20 log 4: 5).  The ftl cell is not rps's."""
    grid = final_rows_table(
        "grid",
        [
            ("rps", 4, 0.25, 1.0, 8 * LN4),
            ("rps", 4, 0.5, 0.125, 24 * LN4),
            ("rps", 4, 0.25, 0.25, 20 * LN4),
            ("ftl", 4, 0.25, 1.0, 1.0),
        ],
    )
    assert findings.rates.theta_band({"grid": grid}) == {
        "available": True,
        "n": 3,
        "min": 2.0,
        "median": 3.0,
        "max": 5.0,
        "text": "Reg / (log K/min(gap, eps)) ranges over [2, 5] over 3 rps grid cells (bounded "
        "on any finite grid: a finding, not a verdict).",
    }


def test_theta_band_without_rps_cells():
    grid = final_rows_table("grid", [("ftl", 4, 0.25, 1.0, 1.0)])
    assert findings.rates.theta_band({"grid": grid}) == {
        "available": False,
        "text": "No rps cells in the grid.",
    }


def test_constants_need_four_rps_cells_of_the_grid_experiment():
    """Three of the four cells of the exact law in the grid, the fourth in the ablations
    experiment: the grid has fewer than four rps cells, so no fit (with all four there is
    one)."""
    tables = {
        "grid": final_rows_table("grid", EXACT_LAW_GRID[:3]),
        "ablations": final_rows_table("ablations", EXACT_LAW_GRID[3:]),
    }
    assert findings.rates.constants(tables) == {
        "available": False,
        "text": "Fewer than four rps cells in the grid.",
    }
    both = pd.concat([tables["grid"], tables["ablations"]], ignore_index=True)
    assert findings.rates.constants({"grid": both})["n"] == 4


@pytest.mark.parametrize(
    "other",
    [
        {"gap": final_rows_table("gap", [("rps", 4, 0.5, 1.0, 200 * LN4)])},
        {
            "grid": final_rows_table(
                "grid", [("rps", 4, 0.25, 1.0, 400 * LN4)], instance="spread"
            ).assign(cell_id="o")
        },
    ],
    ids=["another-experiment", "another-instance"],
)
def test_theta_band_reads_the_standard_cells_of_the_grid_only(other):
    """Reg / (log 4/min(1/4, 1)) of the standard rps grid cell: 8 log 4/(4 log 4) = 2; an rps
    cell of another experiment (the gap one, ratio 100) or the same cell on another instance
    (ratio 100) is not the grid's standard cell."""
    standard = final_rows_table("grid", [("rps", 4, 0.25, 1.0, 8 * LN4)])
    tables = {"grid": standard}
    for experiment, table_ in other.items():
        tables[experiment] = pd.concat([tables.get(experiment), table_])
    found = findings.rates.theta_band(tables)
    assert (found["n"], found["min"], found["max"]) == (1, 2.0, 2.0)


def test_theta_band_over_a_mean_column_of_objects():
    """A grid table concatenated with one whose means are all missing has a mean column of
    Python objects: the missing cell is left out and the others are read as numbers (ratios
    2 and 8 log 4/(8 log 4) = 1 at gap 1/2, eps 1/8)."""
    known = final_rows_table(
        "grid", [("rps", 4, 0.25, 1.0, 8 * LN4), ("rps", 4, 0.5, 0.125, 8 * LN4)]
    )
    missing = final_rows_table("grid", [("rps", 4, 0.5, 1.0, 1.0)]).assign(cell_id="m", mean=None)
    grid = pd.concat([known, missing], ignore_index=True)
    assert grid["mean"].dtype == object
    found = findings.rates.theta_band({"grid": grid})
    assert (found["n"], found["min"], found["median"], found["max"]) == (2, 1.0, 1.5, 2.0)


def test_constants_recover_an_exact_law_and_compare_it_with_theorem_1():
    found = findings.rates.constants(exact_law_tables())
    fit = {k: found.pop(k) for k in ("a", "b", "c")}
    assert fit == pytest.approx({"a": 2.0, "b": 4.0, "c": 1.0}, rel=1e-9)
    assert found == {
        "available": True,
        "paper_a": 800.0,
        "paper_b": 16.0,
        "n": 4,
        "text": "Over 4 rps grid cells regret ~ 2 log K/gap + 4 log K/eta + 1: the constants "
        "are 400 and 4 times below Theorem 1's 800 and 16 (which the paper does not "
        "optimize).",
    }
