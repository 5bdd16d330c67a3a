"""Tests of :mod:`privdtol.cli.batch`."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from privdtol.cli.batch import cell_table
from privdtol.pipeline import plan as grid
from privdtol.pipeline.aggregate import aggregate_tables
from privdtol.pipeline.config import load_config

# --- from tests/test_exact_pipeline.py

T20 = (1 << 20) - 1


def config(exact=None, **exp):
    base = {
        "name": "e",
        "algorithms": ["rps", "rnm_ftnl", "ftl"],
        "K": [4],
        "gap": [0.25],
        "epsilon": [0.5],
        "horizon": [T20],
    }
    base.update(exp)
    cfg = {"runs": 50, "seed": 7, "experiments": [base]}
    if exact is not None:
        cfg["exact"] = exact
    return cfg


def cells(cfg):
    (cells, _), *_ = grid.plan(load_config(cfg)).values()
    return {c.algorithm: c for c in cells}


def test_block_algorithms_on_bernoulli_are_exact_by_default():
    got = cells(config())
    assert got["rps"].exact and got["rnm_ftnl"].exact
    assert (got["rps"].runs, got["rps"].seed) == (0, 0)  # no runs, no seed
    assert not got["ftl"].exact and got["ftl"].runs == 50  # per-round: Monte Carlo


@pytest.mark.parametrize("env", ["correlated", "beta"])
def test_dependent_and_beta_losses_stay_monte_carlo(env):
    assert not any(c.exact for c in cells(config(env=env, algorithms=["rps"])).values())


def test_exact_cell_aggregates_to_its_value_with_the_error_bound_as_interval():
    cell = cells(config())["rps"]
    table = cell_table(cell)
    assert set(table["run"]) == {0} and set(table["estimator"]) == {"exact"}
    agg = aggregate_tables([table], "e")
    assert (agg["runs"] == 0).all()
    np.testing.assert_array_equal(agg["mean"], table.sort_values("horizon")["regret"])
    eb = table.sort_values("horizon")["error_bound"].to_numpy()
    np.testing.assert_array_equal(agg["ci_high"], agg["mean"] + eb)
    np.testing.assert_array_equal(agg["ci_low"], agg["mean"] - eb)
    assert agg["q50"].isna().all() and agg["mean_realized"].isna().all()
    assert agg["tail_mean"].iloc[-1] == 0.0


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "privdtol.cli", "exact", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--algorithm", "ftl", "--K", "4", "--gap", "0.2"], "--algorithm"),
        (["--algorithm", "rps", "--K", "4", "--gap", "0.2", "--env", "beta"], "--env"),
        (["--algorithm", "rps", "--K", "4"], "--means"),
        (["--algorithm", "rps", "--K", "1", "--gap", "0.2"], "--K"),
    ],
)
def test_exact_cli_bad_input_is_one_line_and_no_file(tmp_path, args, flag):
    out = tmp_path / "x.csv"
    res = run_cli(*args, "--epsilon", "1", "--horizon", "1023", "--out", str(out))
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2
    assert flag in lines[-1]
    assert not out.exists()
