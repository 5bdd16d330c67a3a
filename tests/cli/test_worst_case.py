"""Tests of `privdtol worst-case` and `privdtol searches-table` (:mod:`privdtol.cli.worst_case`):
deterministic output files, the result on stdout without ``--out``, the searches' table, and
one-line refusals of bad input with no file written."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from support.cli import one_line_error, run_cli

from privdtol.cli import main

SEARCH = ["--K", "3", "--gap", "0.25", "--epsilon", "1", "--budget", "12", "--unseen", "2"]
SEARCH += ["--horizon", "1023"]
BASE = ["worst-case", "--algorithm", "rnm_ftnl", *SEARCH]


def test_cli_is_deterministic_and_writes_its_files(tmp_path, capsys):
    """wu_wang_gumbel (a softmax rule: it has proof terms) twice with the same seed: the same
    bytes in every file."""
    base = ["worst-case", "--algorithm", "wu_wang_gumbel", *SEARCH]
    base += ["--seed", "5", "--tolerance", "0.01"]
    for name in ("a", "b"):
        stem = tmp_path / name
        files = [f"--out={stem}.json", f"--trace={stem}.trace.csv"]
        files += [f"--table={stem}.parquet", f"--proof={stem}.proof.json"]
        assert main([*base, *files]) == 0
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("worst-case wu_wang_gumbel: K=3 gap=0.25 eps=1:")
    assert lines[0].endswith(f"12 evaluations -> {tmp_path / 'a'}.json")
    for ext in ("json", "trace.csv", "parquet", "proof.json"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes()
    result = json.loads((tmp_path / "a.json").read_text())
    assert result["search"] == {
        "algorithm": "wu_wang_gumbel",
        "K": 3,
        "gap": 0.25,
        "epsilon": 1.0,
        "horizon": 1023,
        "budget": 12,
        "seed": 5,
        "unseen": 2,
        "tolerance": 0.01,
        "objectives": ["theorem1", "lower_max", "lower_min"],
    }
    assert result["evaluations"] == 12 and result["unseen"]["count"] == 2
    assert len(pd.read_csv(tmp_path / "a.trace.csv")) == 14
    assert set(pd.read_parquet(tmp_path / "a.parquet")["instance"]) == {
        "worst_theorem1",
        "worst_lower_max",
        "worst_lower_min",
    }


def test_cli_prints_the_result_without_out(tmp_path):
    """In a child process (what a shell runs): the result JSON on stdout, nothing written."""
    proc = run_cli(*BASE, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["algorithm"], result["K"], result["budget"]) == ("rnm_ftnl", 3, 12)
    assert set(result["objectives"]) == {"theorem1", "lower_max", "lower_min"}
    assert os.listdir(tmp_path) == []


def test_searches_table_command(tmp_path, capsys):
    """Two searches (seeds 0 and 1) written with their traces, then collected: 6 rows."""
    results = []
    for seed in ("0", "1"):
        stem = tmp_path / f"s{seed}"
        files = ["--out", f"{stem}.json", "--trace", f"{stem}.trace.csv"]
        assert main([*BASE, "--seed", seed, *files]) == 0
        results.append(f"{stem}.json")
    table = tmp_path / "searches.parquet"
    assert main(["searches-table", "--out", str(table), *results]) == 0
    _, err = capsys.readouterr()
    want = f"searches-table: 2 searches, 6 rows (one per objective) -> {table}"
    assert err.strip().splitlines()[-1] == want
    got = pd.read_parquet(table)
    assert len(got) == 6 and got["search_id"].nunique() == 2


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        (["--algorithm", "nope"], "--algorithm"),
        (["--K", "1"], "--K"),
        (["--gap", "1.0"], "--gap"),
        (["--gap", "0"], "--gap"),
        (["--epsilon", "-1"], "--epsilon"),
        (["--epsilon", "inf"], "--epsilon"),
        (["--budget", "11"], "--budget"),
        (["--seed", "-1"], "--seed"),
        (["--unseen", "-1"], "--unseen"),
        (["--tolerance", "-0.1"], "--tolerance"),
        (["--tolerance", "nan"], "--tolerance"),
        (["--horizon", "0"], "--horizon"),
        (["--out", "x.txt"], "--out"),
        (["--trace", "x.json"], "--trace"),
        (["--table", "x.txt"], "--table"),
        (["--proof", "x.txt"], "--proof"),
        (["--proof", "x.json"], "--proof"),  # rnm_ftnl is not a softmax rule
        (["--objectives", "theorem1,nope"], "--objectives"),
        (["--objectives", "theorem1,theorem1"], "--objectives"),
        (["--objectives", "eq6"], "--objectives"),  # rnm_ftnl is not a softmax rule
    ],
)
def test_cli_refuses_bad_input_in_one_line(tmp_path, monkeypatch, capsys, extra, field):
    monkeypatch.chdir(tmp_path)
    line = one_line_error(capsys, [*BASE, *extra], f"{field}:")
    assert line.startswith(f"privdtol worst-case: error: {field}:"), line
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("flag", "value"), [("--budget", "1000000000"), ("--unseen", "100000000"), ("--seed", "-1")]
)
def test_search_effort_beyond_the_schema_refused(flag, value):
    """The worst_case block's ranges bound the command too (before the fix --budget 1e9 ran
    unbounded): one line, fast, under a memory limit."""
    args = ["--K", "4", "--gap", "0.2", "--epsilon", "1", flag, value]
    proc = run_cli("worst-case", *args, limited=True)
    seconds = proc.seconds
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"privdtol worst-case: error: {flag}: got {value}")
    assert seconds < 15


@pytest.mark.parametrize(
    ("args", "naming"),
    [
        # the exact engine's cost model: hours of one core (it ran past every timeout)
        (["--K", "3", "--gap", "1e-6", "--epsilon", "1"], "--max-seconds: the search of rps"),
        # the lower bound's privacy term: ~12 GB (its limit MAX_WINDOW), with the time raised
        (["--K", "4", "--gap", "0.25", "--epsilon", "1e-9", "--max-seconds", "1e300"], "--epsilon"),
    ],
)
def test_a_search_s_cost_is_refused_before_it_is_spent(args, naming):
    """One line naming the limit, fast, under a memory limit, and nothing written."""
    proc = run_cli("worst-case", *args, limited=True)
    seconds = proc.seconds
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"privdtol worst-case: error: {naming}"), lines[0]
    assert "raise --max-seconds" in lines[0] or "MAX_WINDOW" in lines[0], lines[0]
    assert seconds < 15 and proc.stdout == ""
