"""Tests of `privdtol optimal` (:mod:`privdtol.cli.optimal`): the record as JSON on stdout or
in an ``--out`` file, and one-line refusals (exit 2, no file written)."""

from __future__ import annotations

import json
import math

import pytest
from support.cli import run_cli

from privdtol.cli import main

ARGS = ["--K", "2", "--mu", "0.6", "--gap", "0.2", "--epsilon", "0.3", "--horizon", "2"]


def test_prints_the_record(capsys):
    assert main(["optimal", *ARGS]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["status"] == "optimal" and got["duality_gap"] < 1e-9
    # randomized response: p01 = 0.6 * 0.6, p10 = 0.4 * 0.4
    w = math.exp(0.3)
    e2 = 0.36 / (1 + w) + 0.16 * w / (1 + w) + (1 - 0.52) / 2
    assert got["optimal"] == pytest.approx(0.2 * (0.5 + e2), rel=1e-8)
    assert [d["losses"] for d in got["first_decisions"]] == ["=", "10", "01"]


def test_writes_json(tmp_path):
    out = tmp_path / "opt.json"
    assert main(["optimal", *ARGS[:-1], "1", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["optimal"] == pytest.approx(0.1, rel=1e-9)


def test_infinity(capsys):
    assert main(["optimal", *ARGS[:-3], "inf", "--horizon", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["epsilon"] == "inf"


@pytest.mark.parametrize(
    ("change", "flag"),
    [
        (["--K", "1"], "--K"),
        (["--mu", "0.1"], "--mu"),
        (["--epsilon", "-1"], "--epsilon"),
        (["--epsilon", "nan"], "--epsilon"),
        (["--horizon", "0"], "--horizon"),
        (["--horizon", "7"], "--horizon"),
    ],
)
def test_refuses_in_one_line(tmp_path, capsys, change, flag):
    out = tmp_path / "opt.json"
    assert main(["optimal", *ARGS, *change, "--out", str(out)]) == 2 and not out.exists()
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"privdtol optimal: error: {flag}:")


def test_refuses_in_a_child_process(tmp_path):
    out = tmp_path / "opt.json"
    proc = run_cli("optimal", *ARGS[:-1], "9", "--out", str(out))
    assert proc.returncode == 2 and not out.exists()
    # 3^8 2^9 items / 2 relabellings x 8 rounds x 2 neighbours = 26873856
    assert proc.stderr.strip() == (
        "privdtol optimal: error: --horizon: got 9: the program at K = 2 has about 26873856 "
        "privacy rows, more than the budget of 100000 (allowed: 1 to 6 at K = 2)"
    )
