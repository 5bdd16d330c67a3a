"""Tests of :mod:`privdtol.cli.exact`: ``privdtol exact`` writes the columns of ``privdtol
simulate`` plus each value's error bound, deterministically, and refuses bad input in one line."""

from __future__ import annotations

import pandas as pd
import pytest
from support.cli import one_line_error, run_cli


def test_exact_cli_writes_the_simulate_columns_plus_error_bound(tmp_path):
    out = tmp_path / "x.csv"
    res = run_cli(
        "exact", "--algorithm", "wu_wang", "--K", "8", "--gap", "0.1", "--epsilon", "0.5",
        "--horizon", "65535", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    df = pd.read_csv(out)
    sim_columns = ["algorithm", "env", "K", "gap", "mu_best", "epsilon", "eta", "horizon"]
    assert list(df.columns) == [*sim_columns, "run", "regret", "regret_realized", "estimator",
                                "error_bound", "instance", "rho", "kappa"]  # fmt: skip
    assert (df["instance"] == "standard").all() and df[["rho", "kappa"]].isna().all().all()
    assert list(df["horizon"]) == [(1 << k) - 1 for k in range(1, 17)]
    assert (df["estimator"] == "exact").all() and (df["run"] == 0).all()
    assert (df["error_bound"] > 0).all() and (df["error_bound"] < 1e-6 * df["regret"]).all()
    again = tmp_path / "y.csv"
    run_cli(*res.args[:-2], "--out", str(again))
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
    res = run_cli("exact", *args, "--epsilon", "1", "--horizon", "1023", "--out", str(out))
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2
    assert flag in lines[-1]
    assert not out.exists()


def test_exact_eta_floor_is_one_line(capsys):
    args = ["exact", "--algorithm", "rps", "--epsilon", "1e-6", "--K", "2", "--gap", "0.25"]
    one_line_error(capsys, [*args, "--horizon", "1000"], "--epsilon")


def test_a_cell_past_the_time_limit_is_refused_before_it_runs(capsys):
    """A gap of 1e-12 at T = 2^40 - 1 ran past 120 s and 2.2 GB without a word; the cost model
    puts it at about 107 s (--max-seconds 60 by default); a gap of 0.1 costs a second."""
    args = ["exact", "--algorithm", "rps", "--epsilon", "1", "--K", "3", "--gap", "1e-12"]
    line = one_line_error(capsys, [*args, "--horizon", str(2**40 - 1)], "--max-seconds")
    assert "past the limit of 60 s" in line and "raise --max-seconds" in line
    from privdtol.cli.exact import check_seconds
    from privdtol.engine.runner import make_spec

    check_seconds(make_spec("rps", 1.0, 2**40 - 1, 0, K=3, gap=0.1), 60.0)  # no error
