"""Tests of :mod:`privdtol.cli.simulate`: ``privdtol simulate`` writes the run table of its
contract, the same bytes for the same call, and refuses bad arguments in one line naming the
flag, before allocating and without an output file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.cli import one_line_error, run_cli

from privdtol.cli import main

BASE = [
    "simulate",
    "--algorithm",
    "rps",
    "--epsilon",
    "1.0",
    "--horizon",
    "1023",
    "--runs",
    "200",
    "--seed",
    "3",
]


def test_contract_command_writes_expected_columns(tmp_path):
    out = tmp_path / "runs.csv"
    assert main([*BASE, "--means", "0.4,0.6", "--out", str(out)]) == 0
    df = pd.read_csv(out)
    for col in [
        "algorithm",
        "K",
        "epsilon",
        "horizon",
        "run",
        "regret",
        "regret_realized",
        "estimator",
    ]:
        assert col in df.columns
    assert len(df) == 200 * 10 and set(df.horizon) == {2**k - 1 for k in range(1, 11)}
    assert (df.estimator == "block_rb").all()


def test_same_call_same_bytes_csv_and_parquet(tmp_path):
    for ext in ("csv", "parquet"):
        paths = [tmp_path / f"a.{ext}", tmp_path / f"b.{ext}"]
        for p in paths:
            assert main([*BASE, "--K", "8", "--gap", "0.1", "--out", str(p)]) == 0
        assert paths[0].read_bytes() == paths[1].read_bytes()


def test_generator_form_equals_explicit_means(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    main([*BASE, "--K", "3", "--gap", "0.2", "--out", str(a)])
    main([*BASE, "--means", "0.4,0.6,0.6", "--out", str(b)])
    generated, given = pd.read_csv(a), pd.read_csv(b)
    # the same random stream; only the label of where the means came from differs
    assert set(generated["instance"]) == {"standard"} and set(given["instance"]) == {"given"}
    same = ["instance"]
    pd.testing.assert_frame_equal(generated.drop(columns=same), given.drop(columns=same))


def test_actions_out_and_replay(tmp_path):
    losses = tmp_path / "losses.csv"
    rng = np.random.default_rng(0)
    np.savetxt(
        losses, (rng.random((127, 3)) < [0.2, 0.5, 0.7]).astype(int), delimiter=",", fmt="%d"
    )
    out, acts = tmp_path / "r.parquet", tmp_path / "acts.csv"
    assert (
        main(
            [
                "simulate",
                "--algorithm",
                "rnm_ftnl",
                "--epsilon",
                "0.5",
                "--env",
                "replay",
                "--losses",
                str(losses),
                "--horizon",
                "127",
                "--runs",
                "50",
                "--out",
                str(out),
                "--actions-out",
                str(acts),
            ]
        )
        == 0
    )
    a = pd.read_csv(acts)
    assert list(a.columns) == ["run", "block", "action"] and len(a) == 50 * 7
    assert a.action.between(0, 2).all()


BAD = [
    (["--K", "1", "--gap", "0.1"], "--K"),
    (["--K", "4", "--gap", "0"], "--gap"),
    (["--K", "4", "--gap", "1.5"], "--gap"),
    (["--means", "0.4,1.2"], "--means"),
    (["--means", "0.4,0.4,0.6"], "--means"),
    (["--means", "0.4,abc"], "--means"),
    (["--means", "0.4,0.6", "--horizon", "0"], "--horizon"),
    (["--means", "0.4,0.6", "--runs", "0"], "--runs"),
    (["--means", "0.4,0.6", "--epsilon", "-1"], "--epsilon"),
    (["--means", "0.4,0.6", "--epsilon", "0"], "--epsilon"),
    ([], "--means"),
    (["--env", "replay"], "--losses"),
]


@pytest.mark.parametrize("extra,flag", BAD)
def test_bad_arguments_exit_nonzero_with_one_line_and_no_output(tmp_path, extra, flag):
    out = tmp_path / "out.csv"
    res = run_cli(*BASE, "--out", str(out), *extra)
    assert res.returncode == 2
    lines = [line for line in res.stderr.strip().splitlines() if line]
    assert len(lines) == 1 and flag in lines[0] and "allowed" in lines[0], res.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, flag",
    [
        (["--K", "1099511627776", "--gap", "0.25"], "--K"),
        (["--K", "2", "--gap", "0.25", "--runs", "100000000000"], "--runs"),
        (["--K", "2", "--gap", "nan"], "--gap"),
        (["--K", "2", "--gap", "0.25", "--epsilon", "inf"], "--epsilon"),
    ],
)
def test_cli_refuses_before_allocating(tmp_path, capsys, extra, flag):
    out = tmp_path / "s.csv"
    base = ["simulate", "--algorithm", "rps", "--epsilon", "1", "--horizon", "1000"]
    one_line_error(capsys, [*base, *extra, "--out", out], flag)
    assert not out.exists()


@pytest.mark.parametrize("content", ["0.1,x\n", "0.1,0.2\n0.3\n", "0.5,2\n"])
def test_malformed_replay_csv(tmp_path, content):
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    out = tmp_path / "out.csv"
    res = run_cli(
        "simulate",
        "--algorithm",
        "rps",
        "--epsilon",
        "1",
        "--env",
        "replay",
        "--losses",
        str(bad),
        "--horizon",
        "1",
        "--out",
        str(out),
    )
    assert res.returncode == 2 and "--losses" in res.stderr and not out.exists()


def test_argparse_errors_name_the_argument(tmp_path):
    res = run_cli("simulate", "--algorithm", "nope", "--horizon", "3", "--out", "x.csv")
    assert res.returncode == 2 and "--algorithm" in res.stderr and "rps" in res.stderr
    res = run_cli(*BASE, "--means", "0.4,0.6", "--out", str(tmp_path / "x.txt"))
    assert res.returncode == 2 and "--out" in res.stderr


@pytest.mark.parametrize(
    "extra", [["--env", "beta"], ["--mode", "explicit"]], ids=["beta", "explicit"]
)
def test_round_by_round_cell_at_t_2_40_refused_before_it_runs(tmp_path, extra):
    """Beta losses and the per-round reference cost O(K T) per run: at T = 2^40 the estimate
    (hundreds of CPU hours) is refused naming --horizon, under a memory limit and a timeout
    (before the fix both ran until killed)."""
    out = tmp_path / "x.csv"
    args = ["--algorithm", "rps", "--epsilon", "1", "--K", "4", "--gap", "0.2", "--runs", "2"]
    proc = run_cli(
        "simulate", *args, "--horizon", str(2**40), *extra, "--out", str(out), limited=True
    )
    seconds = proc.seconds
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("privdtol simulate: error: --horizon: ")
    assert "limits.max_cpu_hours" in lines[0]
    assert seconds < 15 and not out.exists()


@pytest.mark.parametrize("where", ["proc", "directory"])
def test_unwritable_out_is_one_line_before_any_work(tmp_path, capsys, where):
    """Before the fix: a FileNotFoundError (/proc) or IsADirectoryError traceback from the
    atomic writer, after the simulation."""
    out = "/proc/x.csv" if where == "proc" else tmp_path / "d.csv"
    if where == "directory":
        out.mkdir()
    args = ["simulate", "--algorithm", "rps", "--epsilon", "1", "--K", "2", "--gap", "0.5"]
    one_line_error(capsys, [*args, "--horizon", "63", "--runs", "10", "--out", out], "--out")


def test_a_negative_seed_is_refused_as_the_schema_refuses_it(tmp_path, capsys):
    args = ["simulate", "--algorithm", "rps", "--epsilon", "1", "--K", "2", "--gap", "0.5"]
    out = tmp_path / "s.csv"
    one_line_error(capsys, [*args, "--horizon", "63", "--seed", "-1", "--out", out], "--seed")
    assert not out.exists()


def test_a_write_that_the_file_system_refuses_is_one_line(tmp_path):
    """A full disk under ``--out`` (an OSError traceback before the fix), probed for real: the
    child's file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes the write fail with EFBIG, as
    a full file system fails it with ENOSPC; one line naming the file, nothing left behind."""
    import resource
    import signal
    import subprocess
    import sys

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    out = tmp_path / "cell.csv"
    args = ["--algorithm", "rps", "--epsilon", "1", "--K", "2", "--gap", "0.5", "--horizon", "63"]
    args += ["--runs", "200", "--out", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "privdtol.cli", "simulate", *args],
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        timeout=120,
    )
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("privdtol simulate: error: File too large: "), proc.stderr
    assert str(tmp_path) in proc.stderr and list(tmp_path.iterdir()) == []
