"""Tests of `privdtol lower-bound` (:mod:`privdtol.cli.lower_bound`): the bound of one instance
as JSON on stdout or in an ``--out`` file, against the plain reference of
tests/support/lower_bound_reference.py, and one-line refusals of bad input with no file
written."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from support import lower_bound_reference as ref
from support.cli import one_line_error, run_cli

from privdtol.cli import main

KEYS = [
    "K",
    "mu",
    "gap",
    "epsilon",
    "horizon",
    "statistical",
    "privacy",
    "combined",
    "two_point",
    "best",
    "statistical_error",
    "privacy_error",
    "combined_error",
    "two_point_error",
    "best_error",
    "exact",
]
#: K = 16, mu = 17/32, gap = 1/16, ε = 1/4, T = 300: the statistical term wins after the
#: privacy term (the reference sums both round by round)
ARGS = ["--K", "16", "--mu", "0.53125", "--gap", "0.0625", "--epsilon", "0.25"]
ARGS += ["--horizon", "300"]


@pytest.fixture(scope="module")
def want():
    return ref.sums(16, Fraction(17, 32), Fraction(1, 16), 0.25, 300)


def _check(got: dict, want: dict) -> None:
    assert list(got) == KEYS
    assert (got["K"], got["mu"], got["gap"], got["epsilon"]) == (16, 0.53125, 0.0625, 0.25)
    assert got["horizon"] == 300 and got["exact"] is True
    for part in ("statistical", "privacy", "combined", "two_point", "best"):
        assert got[part] == pytest.approx(want[part], rel=1e-6), part
        assert got[f"{part}_error"] == 0.0
    assert got["privacy"] < got["statistical"] < got["combined"]


def test_the_bound_is_printed_as_json(capsys, want):
    assert main(["lower-bound", *ARGS]) == 0
    out, err = capsys.readouterr()
    _check(json.loads(out), want)
    assert err == ""


def test_out_writes_the_json_file_and_prints_nothing(capsys, tmp_path, want):
    path = tmp_path / "lb.json"
    assert main(["lower-bound", *ARGS, "--out", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and str(path) in err
    _check(json.loads(path.read_text()), want)
    assert [p.name for p in tmp_path.iterdir()] == ["lb.json"]  # no temporary file left


def test_the_command_runs_as_a_module(tmp_path):
    proc = run_cli("lower-bound", "--K", "2", "--mu", "1", "--gap", "1", "--epsilon", "0.5",
                   "--horizon", "1099511627775", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["privacy"] == pytest.approx(
        0.67563936464993593, rel=1e-12
    )  # 2 - (e - 1)/(2(√e - 1))
    assert got["exact"] is True


@pytest.mark.parametrize(
    "change, flag",
    [
        ({"--mu": "0.03"}, "--mu"),  # mu < gap
        ({"--K": "1"}, "--K"),
        ({"--epsilon": "0"}, "--epsilon"),
        ({"--epsilon": "-2"}, "--epsilon"),
        ({"--horizon": "0"}, "--horizon"),
        ({"--out": "x.txt"}, "--out"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_no_file(capsys, tmp_path, change, flag):
    opts = dict(zip(ARGS[::2], ARGS[1::2], strict=True)) | {"--out": "bad.json"} | change
    opts["--out"] = str(tmp_path / opts["--out"])
    line = one_line_error(capsys, ["lower-bound", *(x for kv in opts.items() for x in kv)], flag)
    assert line.startswith(f"privdtol lower-bound: error: {flag}"), line
    assert "allowed" in line
    assert list(tmp_path.iterdir()) == []


def test_the_table_of_an_agg_dir(tmp_path, capsys):
    import pandas as pd
    from support.tables import contract_table

    from privdtol.pipeline.io import write_table

    agg = tmp_path / "agg"
    cells = [{"algorithm": "rps", "K": 4, "gap": 0.5, "epsilon": 0.5, "mean": 1.0}]
    write_table(contract_table(cells, (1, 12), experiment="grid"), agg / "grid.parquet")
    out = tmp_path / "lb.parquet"
    assert main(["lower-bound-table", "--agg-dir", str(agg), "--out", str(out)]) == 0
    table = pd.read_parquet(out)
    want = ref.sums(4, Fraction(3, 4), Fraction(1, 2), 0.5, 12)["best"]
    assert table["horizon"].tolist() == [1, 12]
    assert table["best"].iloc[-1] == pytest.approx(want, rel=1e-9)
    assert "1 instances at 2 (instance, horizon) pairs" in capsys.readouterr().err
    code = run_cli("lower-bound-table", "--agg-dir", str(agg), "--out", str(tmp_path / "x.txt"))
    assert code.returncode == 2 and not (tmp_path / "x.txt").exists()


# ------------------------------------------------------------------------ any mean vector
#: an instance seen nowhere else: three levels, gaps 1/16, 3/16, 1/2 above mu_1 = 1/8
MEANS = "0.1875,0.125,0.3125,0.3125,0.625"


def test_means_gives_the_instances_own_bound(capsys):
    from support import lower_bound_means_reference as mref

    assert main(["lower-bound", "--means", MEANS, "--epsilon", "0.5", "--horizon", "250"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert list(got)[:4] == ["means", "K", "model", "gap"]
    assert got["K"] == 5 and got["model"] == "bernoulli" and got["gap"] == 0.0625
    assert got["means"] == [0.1875, 0.125, 0.3125, 0.3125, 0.625] and got["exact"] is True
    means = [Fraction(3, 16), Fraction(1, 8), Fraction(5, 16), Fraction(5, 16), Fraction(5, 8)]
    want = mref.sums(means, 0.5, 250)
    for part in ("statistical", "privacy", "combined", "two_point", "best"):
        assert got[part] == pytest.approx(want[part], rel=1e-6), part


def test_means_of_a_two_level_instance_equal_the_two_level_flags(capsys, want):
    means = ",".join(["0.46875"] + ["0.53125"] * 15)  # K = 16, mu = 17/32, gap = 1/16
    assert main(["lower-bound", "--means", means, "--epsilon", "0.25", "--horizon", "300"]) == 0
    got = json.loads(capsys.readouterr().out)
    for part in ("statistical", "privacy", "combined", "two_point", "best"):
        assert got[part] == pytest.approx(want[part], rel=1e-12), part


@pytest.mark.parametrize(
    "extra, flag",
    [
        (["--means", "0.5,0.5,0.7"], "--means"),  # no single best action
        (["--means", "0.2,x"], "--means"),
        (["--means", "0.2,1.2"], "--means"),
        (["--means", "0.2"], "--means"),
        (["--means", "0.2,0.4", "--model", "gauss"], "--model"),
        (["--means", "0.2,0.4", "--K", "2"], "--K"),
        (["--K", "4", "--mu", "0.5"], "--gap"),
    ],
)
def test_bad_means_are_one_line(capsys, tmp_path, extra, flag):
    args = ["lower-bound", *extra, "--epsilon", "1", "--horizon", "10"]
    line = one_line_error(capsys, [*args, "--out", str(tmp_path / "lb.json")], flag)
    assert line.startswith(f"privdtol lower-bound: error: {flag}"), line
    assert list(tmp_path.iterdir()) == []


def test_a_tiny_epsilon_is_refused_in_one_line_under_a_memory_limit():
    """epsilon 1e-9 at T = 2^40 - 1 allocated 12 GiB and died with a traceback: the privacy
    term's windows (~log K / epsilon values of d) are refused before they are allocated."""

    args = ["--K", "4", "--mu", "0.5", "--gap", "0.25", "--epsilon", "1e-9"]
    proc = run_cli("lower-bound", *args, "--horizon", str(2**40 - 1), limited=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("privdtol lower-bound: error: --epsilon: the privacy term")
    assert "MAX_WINDOW" in proc.stderr and "Traceback" not in proc.stderr
