"""Tests of :mod:`privdtol.analysis.cells`: selecting, stacking and deduplicating the cells of
the aggregated tables, their final rows, regimes and plateau ratios."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.analysis import cells
from privdtol.analysis.cells import regime


def test_final_rows_keep_cells_with_gaps_in_their_keys():
    """A non-private algorithm has no epsilon (NaN): its cell is a cell like any other; the
    rows come back in table order with a fresh index and the table's columns only."""
    df = pd.DataFrame(
        {
            "algorithm": ["ftl", "ftl", "rps", "rps"],
            "K": [2, 2, 2, 2],
            "epsilon": [np.nan, np.nan, 1.0, 1.0],
            "horizon": [7, 15, 15, 7],
            "mean": [1.0, 2.0, 3.0, 4.0],
        },
        index=[10, 11, 12, 13],
    )
    out = cells.final_rows(df)
    assert list(out.columns) == list(df.columns)
    assert out.index.tolist() == [0, 1]
    assert out["mean"].tolist() == [2.0, 3.0]


def test_dedupe_cells_keeps_the_first_of_repeated_cells_with_a_fresh_index():
    df = pd.DataFrame(
        {
            "algorithm": ["rps", "rps", "rps"],
            "K": [2, 2, 4],
            "horizon": [7, 7, 7],
            "mean": [1.0, 2.0, 3.0],
        },
        index=[5, 6, 7],
    )
    out = cells.dedupe_cells(df)
    assert out.to_dict("list") == {
        "algorithm": ["rps", "rps"],
        "K": [2, 4],
        "horizon": [7, 7],
        "mean": [1.0, 3.0],
    }
    assert out.index.tolist() == [0, 1]


def test_series_keys_add_the_loss_model_columns_present_only():
    df = pd.DataFrame({"K": [2], "gap": [0.5], "rho": [0.5]})
    assert cells.series_keys(df, ["K"]) == ["K", "rho"]
    assert cells.series_keys(df, ["K", "rho"]) == ["K", "rho"]


def _checkpoints(means, **cols):
    """One cell at the checkpoints 1, 3, 7 with the given means (no experiment, cell_id)."""
    return pd.DataFrame({"algorithm": "rps", "K": 2, "gap": 0.5, **cols, "horizon": [1, 3, 7],
                         "mean": means})  # fmt: skip


def test_plateau_ratio_reference_may_sit_exactly_at_t_max_plus_1_over_2_to_the_octaves():
    """T_max = 7, 3 octaves: (7 + 1)/2^3 = 1, so the reference is the checkpoint T = 1 itself
    (mean 0.5) and the ratio 2/0.5 = 4."""
    out = cells.plateau_ratio(_checkpoints([0.5, 1.0, 2.0], epsilon=1.0), 3)
    assert out["plateau_ratio"].tolist() == [4.0]


def test_plateau_ratio_of_a_cell_without_epsilon_found_by_its_parameters():
    """A table without (experiment, cell_id) keys its cells by their parameters; a non-private
    cell's epsilon is NaN and it still gets its ratio: 1 octave, (7 + 1)/2 = 4, reference T = 3
    (mean 2), ratio 4/2 = 2."""
    out = cells.plateau_ratio(_checkpoints([1.0, 2.0, 4.0], epsilon=np.nan), 1)
    assert out["plateau_ratio"].tolist() == [2.0]
    assert out["horizon"].tolist() == [7]


def test_select_gives_a_fresh_index_and_no_index_column():
    df = pd.DataFrame({"algorithm": ["ftl", "rps", "rps"], "K": [2, 4, 8]}, index=[5, 6, 7])
    out = cells.select(df, "rps")
    assert out.to_dict("list") == {"algorithm": ["rps", "rps"], "K": [4, 8]}
    assert out.index.tolist() == [0, 1]


def test_stack_puts_the_experiments_in_the_order_given_with_a_fresh_index():
    tables = {"a": pd.DataFrame({"K": [2, 4]}), "b": pd.DataFrame({"K": [8]})}
    out = cells.stack(tables, ["b", "a", "absent"])
    assert out["K"].tolist() == [8, 2, 4]
    assert out.index.tolist() == [0, 1, 2]


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


def test_regime_of_an_object_column_with_a_missing_epsilon():
    """A table column with gaps is an object column holding None (a non-private cell): the
    private cells get their regime, the cell without epsilon a label (which the actions
    notebook drops), not a TypeError."""
    gap = pd.Series([0.5, 0.5, 0.5, 0.5])
    eps = pd.Series([1.0, 0.25, 0.5, None], dtype=object)
    out = regime(gap, eps)
    assert out.shape == (4,)
    assert out[:3].tolist() == ["statistical", "privacy", "balanced"]
