"""Guards found by the census of ``privdtol.analysis`` mutants (issue 24) in the diagnoses of
unexpected verdicts (privdtol.analysis.diagnosis) and the selection of cells
(privdtol.analysis.cells): how many offending cells a diagnosis names and how it counts the
rest, the diagnosis of a record without cells, the keys of a cell, the final rows at a given
horizon, the plateau ratio's reference checkpoint (its boundary, none, a zero mean, an empty
table), the selection by instance and the stacking of every table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.analysis import cells, diagnosis

# ----------------------------------------------------------------------------- diagnosis


def _inconclusive(n_cells):
    """An INCONCLUSIVE claim record whose ``n_cells`` cells (K = 1, 2, ...) are all
    INCONCLUSIVE, with a CI straddling its threshold."""
    return {
        "claim": "C4a",
        "algorithm": "rps",
        "control_of": None,
        "verdict": "INCONCLUSIVE",
        "ci_low": 0.9,
        "ci_high": 1.3,
        "threshold": "inside [0.8, 1.2]",
        "summary": "wide",
        "cells": [{"K": k, "verdict": "INCONCLUSIVE"} for k in range(1, n_cells + 1)],
    }


def test_a_diagnosis_names_six_offending_cells_and_counts_the_rest():
    """By default a diagnosis names at most 6 offending cells, separated by "; ": 6 of 6 are
    all named, of 7 the first 6 are named and the seventh counted ("and 1 more"), of 9 the
    last three ("and 3 more")."""
    names = "K=1; K=2; K=3; K=4; K=5; K=6"
    assert diagnosis.diagnose(_inconclusive(6))["cells"] == f"6 of 6: {names}"
    assert diagnosis.diagnose(_inconclusive(7))["cells"] == f"7 of 7: {names} and 1 more"
    assert diagnosis.diagnose(_inconclusive(9))["cells"] == f"9 of 9: {names} and 3 more"


def test_a_record_without_cells_is_diagnosed_as_no_data():
    """A record with no ``cells`` key at all is read as one with no cells: no cell named, the
    cause "no data" with the record's summary, and the follow-up word for word."""
    record = {"verdict": "INCONCLUSIVE", "summary": "No series of at least three rps cells."}
    assert diagnosis.diagnose(record) == {
        "cells": "none",
        "cause": "no data: No series of at least three rps cells.",
        "follow_up": "add the claim's experiments (or more cells per series) to the configuration",
    }


# ----------------------------------------------------------------------------- cells


def test_cells_are_keyed_by_experiment_and_cell_id_only_when_both_are_present():
    """(experiment, cell_id) key the cells even when they are a table's only columns; a
    cell_id alone does not, and the parameters of CELL_COLUMNS present do (in their order)."""
    assert cells.cell_keys(pd.DataFrame(columns=["experiment", "cell_id"])) == [
        "experiment",
        "cell_id",
    ]
    no_experiment = pd.DataFrame(columns=["gap", "cell_id", "K", "horizon", "mean"])
    assert cells.cell_keys(no_experiment) == ["K", "gap"]


def _cells_table(rows):
    """An aggregated table from ``(cell_id, horizon, mean)`` rows of experiment "grid"."""
    return pd.DataFrame(
        [{"experiment": "grid", "cell_id": c, "horizon": h, "mean": m} for c, h, m in rows]
    )


def test_final_rows_at_a_given_horizon_keep_only_that_horizon_with_a_fresh_index():
    """At horizon 1023: the rows of cells a and b there (a cell without it is dropped), the
    table's columns and nothing else, indexed from 0."""
    df = _cells_table([("a", 511, 1.0), ("a", 1023, 2.0), ("c", 511, 5.0), ("b", 1023, 3.0)])
    out = cells.final_rows(df, horizon=1023)
    assert out.to_dict("list") == {
        "experiment": ["grid", "grid"],
        "cell_id": ["a", "b"],
        "horizon": [1023, 1023],
        "mean": [2.0, 3.0],
    }
    assert out.index.tolist() == [0, 1]


def test_plateau_ratio_reference_boundary_and_cells_without_a_usable_reference():
    """One octave.  Cell a (checkpoints 255, 511, T_max = 1020): the reference is the largest
    checkpoint <= (1020 + 1)/2 = 510.5, i.e. 255 (mean 1), not 511, so the ratio is 2.2/1.
    Cell b has no checkpoint <= 512 and cell c's reference mean is 0: both keep their row with
    a NaN ratio."""
    df = _cells_table(
        [
            ("a", 255, 1.0),
            ("a", 511, 2.0),
            ("a", 1020, 2.2),
            ("b", 1023, 4.0),
            ("c", 511, 0.0),
            ("c", 1023, 3.0),
        ]
    )
    out = cells.plateau_ratio(df, 1)
    assert out["cell_id"].tolist() == ["a", "b", "c"]
    assert out["horizon"].tolist() == [1020, 1023, 1023]
    ratio = out["plateau_ratio"].to_numpy()
    assert ratio[0] == 2.2 and np.isnan(ratio[1]) and np.isnan(ratio[2])


def test_plateau_ratio_of_an_empty_table_is_an_empty_float_column():
    """No rows (an aggregated table's columns, emptied): the table comes back with a
    plateau_ratio column of floats."""
    out = cells.plateau_ratio(_cells_table([("a", 1023, 1.0)]).iloc[:0], 4)
    assert len(out) == 0 and out["plateau_ratio"].dtype == np.float64


def test_select_filters_by_instance():
    """Only the rows of instance "b" (any algorithm, any loss model)."""
    df = pd.DataFrame({"instance": ["a", "b", "b"], "K": [2, 4, 8]})
    assert cells.select(df, instance="b")["K"].tolist() == [4, 8]


def test_stack_without_experiments_takes_every_table_in_order():
    """experiments=None: every table, in the mapping's order, with a fresh index."""
    tables = {"b": pd.DataFrame({"K": [8]}), "a": pd.DataFrame({"K": [2, 4]})}
    out = cells.stack(tables)
    assert out["K"].tolist() == [8, 2, 4] and out.index.tolist() == [0, 1, 2]
