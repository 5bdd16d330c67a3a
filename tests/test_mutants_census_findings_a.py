"""Guards found by the census of ``privdtol.analysis``'s mutants (``make mutation
GROUPS=analysis``, docs/testing.md), findings page, first share: the records of the findings
that are not available (no ablations experiment, no common cell, no cell where the cap binds,
fewer than four grid cells), the experiment and instance each finding reads, the boundary
eps = 1/4 of the eta cap, an ablation mask given as 0/1 values and a mean column of Python
objects, on small fabricated tables (the builders of tests/test_mutants_findings.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_mutants_findings import GRID, _table

from privdtol.analysis import findings

# ----------------------------------------------------------------------------- ablations

#: rps and rps_full_prefix at K = 4, gap 1/4: ratios 10/40 = 0.25 and 20/16 = 1.25
PREFIX = [
    ("rps", 4, 0.25, 0.125, 10.0),
    ("rps", 4, 0.25, 1.0, 20.0),
    ("rps_full_prefix", 4, 0.25, 0.125, 40.0),
    ("rps_full_prefix", 4, 0.25, 1.0, 16.0),
]


def test_ablation_costs_read_the_ablations_experiment_only():
    """The same rps and ablated cells in the grid experiment are not the ablation's: without
    an ablations experiment neither cost is available, and the record says why."""
    tables = {"grid": _table("grid", PREFIX)}
    expected = {"available": False, "text": "No ablations experiment."}
    assert findings.prefix_cost(tables) == expected
    assert findings.prefix_cost({}) == expected


def test_prefix_cost_without_a_common_cell():
    """rps at eps 1/8 and rps_full_prefix at eps 1 only: no cell has both, so no ratio."""
    ablation = [PREFIX[0], PREFIX[3]]
    assert findings.prefix_cost({"ablations": _table("ablations", ablation)}) == {
        "available": False,
        "text": "No common rps and rps_full_prefix cells.",
    }


#: rps against rps_uncapped at K = 4, gap 1/4: eps 1/4 (eps/2 = 1/8 exactly, the cap does not
#: bind; ratio 1), eps 0.3 (binds; 12/8 = 1.5) and eps 1 (binds; 20/10 = 2)
CAP = [
    ("rps", 4, 0.25, 0.25, 10.0),
    ("rps", 4, 0.25, 0.3, 12.0),
    ("rps", 4, 0.25, 1.0, 20.0),
    ("rps_uncapped", 4, 0.25, 0.25, 10.0),
    ("rps_uncapped", 4, 0.25, 0.3, 8.0),
    ("rps_uncapped", 4, 0.25, 1.0, 10.0),
]


def test_cap_cost_binds_above_eps_one_quarter_and_not_at_it():
    """The cap eta <= 1/8 binds where eps/2 > 1/8: at eps 0.3 (just above 1/4) and 1, not at
    eps = 1/4 itself (eta = 1/8 for both algorithms).  Two cells, ratios 1.5 and 2 (median
    1.75), the eps = 1/4 cell counted apart."""
    assert findings.cap_cost({"ablations": _table("ablations", CAP)}) == {
        "available": True,
        "n": 2,
        "min": 1.5,
        "median": 1.75,
        "max": 2.0,
        "where": "where the cap binds (eps > 1/4)",
        "left_out": 1,
        "text": "Cost of the eta cap: rps / rps_uncapped over 2 cells where the cap binds "
        "(eps > 1/4): median 1.75 (range [1.5, 2]); the 1 other cells, where it does not "
        "matter, are left out.",
    }


def test_cap_cost_where_the_cap_binds_in_no_common_cell():
    """Only the eps = 1/4 cell (eps/2 = 1/8: the cap does not bind) is common."""
    ablation = [CAP[0], CAP[3], CAP[2]]  # rps at eps 1 has no rps_uncapped cell
    assert findings.cap_cost({"ablations": _table("ablations", ablation)}) == {
        "available": False,
        "text": "No common cell where the cap binds (eps > 1/4).",
    }


def test_ablation_mask_of_zeros_and_ones_is_a_mask_not_positions():
    """``where`` is a mask of the common cells: given as 0/1 values (1 at eps 0.3 and 1), it
    selects the same two cells as the booleans would, the eps = 1/4 cell counted apart (not
    the 0/1 read as positions, nor ~1 = -2 counted as left out)."""
    found = findings._ablation(
        {"ablations": _table("ablations", CAP)},
        "rps_uncapped",
        "Cost",
        where=lambda idx: (idx.get_level_values("epsilon") > 0.25).astype(int),
        where_text="somewhere",
    )
    assert (found["n"], found["min"], found["max"], found["left_out"]) == (2, 1.5, 2.0, 1)


# ----------------------------------------------------------------------------- the grid's fit


def test_constants_need_four_rps_cells_of_the_grid_experiment():
    """Three of the four cells of the exact law in the grid, the fourth in the ablations
    experiment: the grid has fewer than four rps cells, so no fit (with all four there is
    one, tests/test_mutants_findings.py)."""
    tables = {
        "grid": _table("grid", GRID[:3]),
        "ablations": _table("ablations", GRID[3:]),
    }
    assert findings.constants(tables) == {
        "available": False,
        "text": "Fewer than four rps cells in the grid.",
    }
    both = pd.concat([tables["grid"], tables["ablations"]], ignore_index=True)
    assert findings.constants({"grid": both})["n"] == 4


# ----------------------------------------------------------------------------- theta band

LN4 = np.log(4.0)


def test_theta_band_reads_the_standard_instance_only():
    """Reg / (log 4/min(1/4, 1)) of the standard rps cell: 8 log 4/(4 log 4) = 2; the same
    cell on another instance (ratio 100) is not the grid's standard cell."""
    standard = _table("grid", [("rps", 4, 0.25, 1.0, 8 * LN4)])
    other = _table("grid", [("rps", 4, 0.25, 1.0, 400 * LN4)], instance="spread")
    found = findings.theta_band({"grid": pd.concat([standard, other.assign(cell_id="o")])})
    assert (found["n"], found["min"], found["max"]) == (1, 2.0, 2.0)


def test_theta_band_over_a_mean_column_of_objects():
    """A grid table concatenated with one whose means are all missing has a mean column of
    Python objects: the missing cell is left out and the others are read as numbers (ratios
    2 and 8 log 4/(8 log 4) = 1 at gap 1/2, eps 1/8)."""
    known = _table("grid", [("rps", 4, 0.25, 1.0, 8 * LN4), ("rps", 4, 0.5, 0.125, 8 * LN4)])
    missing = _table("grid", [("rps", 4, 0.5, 1.0, 1.0)]).assign(cell_id="m", mean=None)
    grid = pd.concat([known, missing], ignore_index=True)
    assert grid["mean"].dtype == object
    found = findings.theta_band({"grid": grid})
    assert (found["n"], found["min"], found["median"], found["max"]) == (2, 1.0, 1.5, 2.0)
