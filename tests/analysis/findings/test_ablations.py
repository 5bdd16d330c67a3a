"""Tests of :mod:`privdtol.analysis.findings.ablations`: what the randomized prefix and the cap
η ≤ 1/8 cost, measured on the ablations' common cells."""

from __future__ import annotations

import pytest
from support.tables import final_rows_table

from privdtol.analysis import (
    findings,
)


def test_prefix_cost_over_infinite_ratios_only_counts_no_cell():
    """rps_full_prefix's regret 0 makes rps / rps_full_prefix infinite: no finite ratio."""
    ablation = [("rps", 4, 0.25, 1.0, 10.0), ("rps_full_prefix", 4, 0.25, 1.0, 0.0)]
    assert findings.ablations.prefix_cost(
        {"ablations": final_rows_table("ablations", ablation)}
    ) == {
        "available": True,
        "n": 0,
        "min": None,
        "median": None,
        "max": None,
        "where": "",
        "left_out": 0,
        "text": "Cost of the random prefix: rps / rps_full_prefix over 0 cells: median nan "
        "(range [nan, nan]).",
    }


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
    tables = {"grid": final_rows_table("grid", PREFIX)}
    expected = {"available": False, "text": "No ablations experiment."}
    assert findings.ablations.prefix_cost(tables) == expected
    assert findings.ablations.prefix_cost({}) == expected


def test_prefix_cost_without_a_common_cell():
    """rps at eps 1/8 and rps_full_prefix at eps 1 only: no cell has both, so no ratio."""
    ablation = [PREFIX[0], PREFIX[3]]
    assert findings.ablations.prefix_cost(
        {"ablations": final_rows_table("ablations", ablation)}
    ) == {
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
    assert findings.ablations.cap_cost({"ablations": final_rows_table("ablations", CAP)}) == {
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
    assert findings.ablations.cap_cost({"ablations": final_rows_table("ablations", ablation)}) == {
        "available": False,
        "text": "No common cell where the cap binds (eps > 1/4).",
    }


def test_ablation_mask_of_zeros_and_ones_is_a_mask_not_positions():
    """``where`` is a mask of the common cells: given as 0/1 values (1 at eps 0.3 and 1), it
    selects the same two cells as the booleans would, the eps = 1/4 cell counted apart (not
    the 0/1 read as positions, nor ~1 = -2 counted as left out)."""
    found = findings.ablations._ablation(
        {"ablations": final_rows_table("ablations", CAP)},
        "rps_uncapped",
        "Cost",
        where=lambda idx: (idx.get_level_values("epsilon") > 0.25).astype(int),
        where_text="somewhere",
    )
    assert (found["n"], found["min"], found["max"], found["left_out"]) == (2, 1.5, 2.0, 1)


#: rps against its two ablations at K = 4, gap = 1/4 and four epsilons; the cap binds where
#: eps/2 > 1/8, i.e. at eps = 0.5, 1 and 2 (not at 0.125)
ABLATION = [
    ("rps", 4, 0.25, 0.125, 10.0),
    ("rps", 4, 0.25, 0.5, 12.0),
    ("rps", 4, 0.25, 1.0, 20.0),
    ("rps", 4, 0.25, 2.0, 30.0),
    ("rps_uncapped", 4, 0.25, 0.125, 10.0),  # ratio 1
    ("rps_uncapped", 4, 0.25, 0.5, 8.0),  # 1.5
    ("rps_uncapped", 4, 0.25, 1.0, 10.0),  # 2
    ("rps_uncapped", 4, 0.25, 2.0, 12.0),  # 2.5
    ("rps_full_prefix", 4, 0.25, 0.125, 40.0),  # 0.25
    ("rps_full_prefix", 4, 0.25, 0.5, 16.0),  # 0.75
    ("rps_full_prefix", 4, 0.25, 1.0, 16.0),  # 1.25
    ("rps_full_prefix", 4, 0.25, 2.0, 15.0),  # 2
]


def test_cap_cost_counts_the_cells_where_the_cap_does_not_bind_apart():
    tables = {"ablations": final_rows_table("ablations", ABLATION)}
    assert findings.ablations.cap_cost(tables) == {
        "available": True,
        "n": 3,
        "min": 1.5,
        "median": 2.0,
        "max": 2.5,
        "where": "where the cap binds (eps > 1/4)",
        "left_out": 1,
        "text": "Cost of the eta cap: rps / rps_uncapped over 3 cells where the cap binds "
        "(eps > 1/4): median 2 (range [1.5, 2.5]); the 1 other cells, where it does not "
        "matter, are left out.",
    }


@pytest.mark.parametrize("env", ["bernoulli", "beta"])
def test_prefix_cost_is_the_ratio_over_every_common_cell(env):
    """Ratios 0.25, 0.75, 1.25, 2: median (0.75 + 1.25)/2 = 1; the ablations experiment of a
    config may use another loss model (``env: beta``): its cells are still the ablation's."""
    tables = {"ablations": final_rows_table("ablations", ABLATION, env=env)}
    assert findings.ablations.prefix_cost(tables) == {
        "available": True,
        "n": 4,
        "min": 0.25,
        "median": 1.0,
        "max": 2.0,
        "where": "",
        "left_out": 0,
        "text": "Cost of the random prefix: rps / rps_full_prefix over 4 cells: median 1 "
        "(range [0.25, 2]).",
    }
