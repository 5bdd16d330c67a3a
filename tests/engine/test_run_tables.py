"""Tests of :mod:`privdtol.engine.run_tables`: the run table of a simulated cell (one row per
run and checkpoint, with the algorithm's eps and eta) and the table of the actions played."""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import make_algorithm


def test_run_table_records_eps_and_eta_of_each_algorithm():
    """rps at eps = 1: eta = min(1/2, 1/8) = 1/8; ftl is not private: no eps, no eta."""
    from privdtol.engine.fast import simulate
    from privdtol.engine.run_tables import run_table
    from privdtol.environments.bernoulli import BernoulliProduct

    env = BernoulliProduct([0.25, 0.5])
    for name, eps, eta in (("rps", 1.0, 0.125), ("ftl", None, None)):
        alg = make_algorithm(name, eps)
        res = simulate(alg, env, 3, 2, {"test": name}, mode="fast")
        tab = run_table(res, alg, env, "standard")
        assert tab["horizon"].tolist() == [1, 3, 1, 3]
        assert tab["gap"].tolist() == [0.25] * 4 and tab["mu_best"].tolist() == [0.25] * 4
        assert tab["epsilon"].dtype == np.float64 and tab["eta"].dtype == np.float64
        if eps is None:
            assert tab["epsilon"].isna().all() and tab["eta"].isna().all()
        else:
            assert tab["epsilon"].tolist() == [eps] * 4 and tab["eta"].tolist() == [eta] * 4


def test_run_table_ends_with_the_error_bound_the_instance_and_the_model_parameters():
    """The last columns of a cell file, in its order: error_bound (tiled over the runs) if
    given, the instance's label, rho (correlated at 0.25) and kappa (beta at 5); NaN for a
    model without them."""
    from privdtol.engine.fast import SimResult
    from privdtol.engine.run_tables import run_table
    from privdtol.environments.beta import BetaLosses
    from privdtol.environments.correlated import CorrelatedBernoulli

    res = SimResult(np.array([1, 3]), np.zeros((2, 2)), np.zeros((2, 2)), "block_rb")
    alg = make_algorithm("rps", 1.0)
    tab = run_table(res, alg, CorrelatedBernoulli([0.25, 0.5], rho=0.25), "staircase", [0.5, 2])
    assert list(tab.columns)[-5:] == ["estimator", "error_bound", "instance", "rho", "kappa"]
    assert tab["error_bound"].tolist() == [0.5, 2.0, 0.5, 2.0]
    assert tab["instance"].tolist() == ["staircase"] * 4 and tab["rho"].tolist() == [0.25] * 4
    assert tab["kappa"].isna().all()
    tab = run_table(res, alg, BetaLosses([0.25, 0.5], kappa=5.0), "worst_theorem1")
    assert list(tab.columns)[-4:] == ["estimator", "instance", "rho", "kappa"]
    assert tab["rho"].isna().all() and tab["kappa"].tolist() == [5.0] * 4
    assert tab["rho"].dtype == np.float64 and tab["instance"].iloc[0] == "worst_theorem1"


def test_actions_table_has_one_row_per_run_and_block():
    from privdtol.engine.fast import SimResult
    from privdtol.engine.run_tables import actions_table

    acts = np.array([[0, 1, 1], [1, 0, 2]])
    res = SimResult(np.array([1, 3]), np.zeros((2, 2)), np.zeros((2, 2)), "block_rb", acts)
    tab = actions_table(res)
    assert list(tab.columns) == ["run", "block", "action"]
    assert tab["run"].tolist() == [0, 0, 0, 1, 1, 1]
    assert tab["block"].tolist() == [0, 1, 2, 0, 1, 2]
    assert tab["action"].tolist() == [0, 1, 1, 1, 0, 2]
