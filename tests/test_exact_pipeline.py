"""The exact engine in the pipeline (issue 11): which cells are exact, the ``privdtol exact``
command's contract, and how an exact cell is aggregated.  The engine's mathematics is tested
against explicit laws and Monte Carlo in tests/test_exact.py."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from privdtol.cli.batch import cell_table
from privdtol.engine.exact import EXACT_ALGORITHMS
from privdtol.pipeline import plan as grid
from privdtol.pipeline.aggregate import aggregate_tables
from privdtol.pipeline.config import load_config

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


def test_exact_off_gives_monte_carlo_everywhere_also_as_bare_yaml_off():
    cfg = yaml.safe_load("exact: off\n")  # YAML 1.1 reads a bare off as False
    assert cfg == {"exact": False}
    got = cells({**config(), **cfg})
    assert not any(c.exact for c in got.values())
    assert got["rps"].runs == 50


def test_bad_exact_value_is_one_line_naming_the_key():
    from privdtol.errors import InputError

    with pytest.raises(InputError) as err:
        load_config(config(exact="sometimes"))
    assert "exact" in str(err.value) and "auto" in str(err.value)


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


def assert_within_monte_carlo(exact, mc):
    """Every checkpoint within 4 standard errors of the Monte Carlo mean, plus float round-off
    (a Rao-Blackwellised estimate can have almost no variance).  A realized-action estimate
    (Laplace noise: no explicit law) whose runs all agree has a plug-in se of 0 although the
    rare event it missed has positive probability: such rows say nothing and are skipped."""
    both = exact.merge(mc, on="horizon", suffixes=("_x", "_mc"))
    blind = (both["se_mc"] == 0) & (both["estimator_mc"] == "block_realized")
    slack = 4 * both["se_mc"].fillna(0) + 1e-9 * both["mean_x"].abs()
    gap = (both["mean_x"] - both["mean_mc"]).abs()
    assert (gap <= slack)[~blind].all(), (gap / slack)[~blind].max()
    assert (~blind).sum() >= len(both) // 2


@pytest.mark.parametrize(
    "algorithm, env",
    [
        pytest.param(a, env, marks=[] if (a, env) == ("rps", "bernoulli") else [pytest.mark.slow])
        for a, env in [(a, "bernoulli") for a in EXACT_ALGORITHMS]
        + [("rps", "deterministic"), ("wu_wang", "deterministic")]
    ],
)
def test_exact_cell_lies_in_the_monte_carlo_interval_of_the_same_cell(algorithm, env):
    """The same cell by both engines: the exact value within 4 standard errors of the Monte
    Carlo mean at every checkpoint (a fixed seed; 4 SE is a 6e-5 two-sided level each)."""
    spec = {"algorithms": [algorithm], "env": env, "instance": "staircase"}
    exact = aggregate_tables([cell_table(cells(config(**spec))[algorithm])], "e")
    mc_cell = cells(config(exact="off", runs=2000, **spec))[algorithm]
    mc = aggregate_tables([cell_table(mc_cell)], "e")
    assert_within_monte_carlo(exact, mc)


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "privdtol.cli", "exact", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_exact_cli_writes_the_simulate_columns_plus_error_bound(tmp_path):
    out = tmp_path / "x.csv"
    res = run_cli(
        "--algorithm", "wu_wang", "--K", "8", "--gap", "0.1", "--epsilon", "0.5",
        "--horizon", "65535", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    df = pd.read_csv(out)
    sim_columns = ["algorithm", "env", "K", "gap", "mu_best", "epsilon", "eta", "horizon"]
    assert list(df.columns) == [*sim_columns, "run", "regret", "regret_realized", "estimator",
                                "error_bound"]  # fmt: skip
    assert list(df["horizon"]) == [(1 << k) - 1 for k in range(1, 17)]
    assert (df["estimator"] == "exact").all() and (df["run"] == 0).all()
    assert (df["error_bound"] > 0).all() and (df["error_bound"] < 1e-6 * df["regret"]).all()
    again = tmp_path / "y.csv"
    run_cli(*res.args[4:-2], "--out", str(again))
    assert again.read_bytes() == out.read_bytes()  # deterministic


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


@pytest.mark.slow
@pytest.mark.parametrize(
    "algorithm, K, instance",
    [
        (a, K, inst)
        for a in EXACT_ALGORITHMS
        for K, inst in ((8, "standard"), (64, "standard"), (1024, "standard"), (8, "staircase"))
    ],
)
def test_exact_agrees_with_monte_carlo_over_instance_sizes(algorithm, K, instance):
    """Issue 11's acceptance grid (K in {8, 64, 1024}, standard and staircase instances; the
    K = 64 and 1024 staircases are left out: tens of seconds each for rps): every checkpoint
    within 4 standard errors of 1000 Monte Carlo runs, plus round-off slack."""
    spec = {"algorithms": [algorithm], "K": [K], "gap": [1 / 16], "instance": instance}
    exact = aggregate_tables([cell_table(cells(config(**spec))[algorithm])], "e")
    mc = aggregate_tables(
        [cell_table(cells(config(exact="off", runs=1000, **spec))[algorithm])], "e"
    )
    assert_within_monte_carlo(exact, mc)
