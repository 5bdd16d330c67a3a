"""Tests of :mod:`privdtol.cli.simulate`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from privdtol.cli import main

# --- from tests/test_bad_input.py


def one_line(capsys, args, naming: str) -> str:
    """Run the CLI; assert exit 2 with one stderr line that names ``naming``, no stdout."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert naming in lines[0], lines[0]
    assert "Traceback" not in err and out == ""
    return lines[0]


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
    one_line(capsys, [*base, *extra, "--out", out], flag)
    assert not out.exists()


# --- from tests/test_cli.py

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


def _run(args):
    return subprocess.run(
        [sys.executable, "-m", "privdtol.cli", *args], capture_output=True, text=True
    )


@pytest.mark.parametrize("content", ["0.1,x\n", "0.1,0.2\n0.3\n", "0.5,2\n"])
def test_malformed_replay_csv(tmp_path, content):
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    out = tmp_path / "out.csv"
    res = _run(
        [
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
        ]
    )
    assert res.returncode == 2 and "--losses" in res.stderr and not out.exists()


def test_argparse_errors_name_the_argument(tmp_path):
    res = _run(["simulate", "--algorithm", "nope", "--horizon", "3", "--out", "x.csv"])
    assert res.returncode == 2 and "--algorithm" in res.stderr and "rps" in res.stderr
    res = _run([*BASE, "--means", "0.4,0.6", "--out", str(tmp_path / "x.txt")])
    assert res.returncode == 2 and "--out" in res.stderr
