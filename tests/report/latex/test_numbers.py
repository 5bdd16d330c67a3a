"""Tests of :mod:`privdtol.report.latex.numbers`: the counts of ``numbers.tex`` by hand (the macros'
rendering is tested through the whole report in tests/report/latex/test_assets.py)."""

from __future__ import annotations

import pandas as pd

from privdtol.report.latex.numbers import estimator_counts, regret_experiments, runs_tex, total_runs


def test_estimator_counts_name_block_cells_simulated_by_monte_carlo():
    """The methods paragraph states how many cells were exact and which block-algorithm cells
    (on a loss model the exact engine covers) were simulated instead, by experiment; a cell
    shared by two experiments counts once."""

    def rows(exp, specs):
        return pd.DataFrame(
            [
                {"experiment": exp, "cell_id": c, "algorithm": a, "env": e, "estimator": s}
                for c, a, e, s in specs
            ]
        )

    agg = {
        "gap": rows("gap", [("a", "rps", "bernoulli", "exact"), ("b", "ftl", "bernoulli", "mc")]),
        "grid": rows("grid", [("a", "rps", "bernoulli", "exact")]),  # shared with gap
        "dependent": rows("dependent", [("c", "rps", "correlated", "block_sums")]),
        "agreement": rows("agreement", [("d", "rnm_ftnl", "bernoulli", "block_sums")]),
    }
    got = estimator_counts(agg)
    assert (got["ExactCells"], got["AllCells"], got["BlockMonteCarloCells"]) == (1, 4, 1)
    assert "agreement" in got["exps"] and "dependent" not in got["exps"]


def test_total_runs_counts_each_cell_once_at_its_largest_runs():
    """Two experiments: a cell's rows (one per checkpoint) count once, with its runs, and a
    cell two experiments share (``a``) counts once: 200 + 0 + 1000, not 1400."""
    agg = {
        "gap": pd.DataFrame({"cell_id": ["a", "a", "b"], "runs": [200, 200, 0]}),
        "grid": pd.DataFrame({"cell_id": ["c", "a"], "runs": [1000, 200]}),
        "empty": pd.DataFrame({"cell_id": [], "runs": []}),
    }
    assert total_runs(agg) == 1200
    assert total_runs({}) == 0


def test_runs_tex_names_exact_cells_and_ranges():
    assert runs_tex([0]) == "exact"
    assert runs_tex([200]) == r"\num{200}"
    assert runs_tex([0, 200]) == r"exact or \num{200}"
    assert runs_tex([100, 2000]) == r"\num{100}--\num{2000}"


def test_the_regret_experiments_leave_out_the_audit_tables():
    names = regret_experiments()
    assert names and not {"privacy", "proof", "searches", "lower_bound"} & set(names)
    assert "horizon" in names and len(names) == len(set(names))
