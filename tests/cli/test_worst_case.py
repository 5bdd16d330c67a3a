"""Tests of `privdtol worst-case` (:mod:`privdtol.cli.worst_case`): deterministic output files and
one-line refusals of bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest


def _cli(args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "privdtol", "worst-case", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


BASE = ["--K", "3", "--gap", "0.25", "--epsilon", "1", "--budget", "8", "--horizon", "1023"]


def test_cli_is_deterministic_and_writes_its_files(tmp_path):
    for name in ("a", "b"):
        out = [f"--out={name}.json", f"--trace={name}.csv", f"--table={name}.parquet"]
        proc = _cli([*BASE, "--seed", "5", *out], tmp_path)
        assert proc.returncode == 0, proc.stderr
    for ext in ("json", "csv", "parquet"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes()
    result = json.loads((tmp_path / "a.json").read_text())
    for key in ("means", "horizon", "regret", "bound", "objective", "evaluations"):
        assert key in result
    assert len(pd.read_csv(tmp_path / "a.csv")) == result["evaluations"]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        (["--K", "1"], "--K"),
        (["--gap", "1.0"], "--gap"),
        (["--epsilon", "-1"], "--epsilon"),
        (["--objective", "nope"], "--objective"),
        (["--family", "nope"], "--family"),
        (["--budget", "2"], "--budget"),
        (["--horizon", "0"], "--horizon"),
        (["--out", "x.txt"], "--out"),
        (["--algorithm", "rnm_ftnl", "--objective", "lemma5"], "--algorithm"),
    ],
)
def test_cli_refuses_bad_input_in_one_line(tmp_path, extra, field):
    proc = _cli(BASE + extra, tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"privdtol worst-case: error: {field}:"), lines
    assert not list(tmp_path.iterdir())
