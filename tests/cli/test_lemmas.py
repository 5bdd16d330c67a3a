"""Tests of `privdtol lemmas` (:mod:`privdtol.cli.lemmas`): the exact terms of Lemmas 4-5 as JSON,
`python -m privdtol` and one-line refusals of bad input with no file written."""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import numpy as np
import pytest

from privdtol.engine.exact.proof import (
    proof_terms,
)

H40 = (1 << 40) - 1


@functools.cache
def terms(algorithm, means, eps, horizon=H40, env="bernoulli"):
    return proof_terms(algorithm, np.array(means), eps, horizon=horizon, env=env)


REQUIRED = (
    "eta",
    "sum_F",
    "small_gap",
    "large_gap",
    "sum_V",
    "max_ratio_eq4",
    "groups",
    "regret",
    "regret_limit",
    "bounds",
    "error_bound",
    "blocks",
)


def _cli(args, cwd, module="privdtol.cli"):
    """``python -m privdtol.cli lemmas ...`` (the ``privdtol`` console script's entry point)."""
    return subprocess.run(
        [sys.executable, "-m", module, "lemmas", *args], cwd=cwd, capture_output=True, text=True
    )


def test_python_dash_m_privdtol_runs_the_cli(tmp_path):
    proc = _cli(["--help"], tmp_path, module="privdtol")
    assert proc.returncode == 0 and "--means" in proc.stdout, proc.stderr


@pytest.mark.slow
def test_cli_writes_the_terms_as_json(tmp_path):
    out = tmp_path / "terms.json"
    args = [
        "--algorithm",
        "rps",
        "--means",
        "0.2,0.5,0.8",
        "--epsilon",
        "8",
        "--horizon",
        "1023",
        "--out",
        str(out),
    ]
    proc = _cli(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(out.read_text())
    assert set(REQUIRED) <= set(got), set(REQUIRED) - set(got)
    assert {"lemma4", "lemma5", "eq5", "eq6"} <= set(got["bounds"])
    t = terms("rps", (0.2, 0.5, 0.8), 8.0, 1023)
    for key in ("sum_F", "small_gap", "large_gap", "sum_V", "regret"):
        assert got[key] == pytest.approx(t[key], rel=1e-12, abs=0), key
    assert all({"r", "sum", "error_bound"} <= set(b) for b in got["blocks"])


@pytest.mark.parametrize(
    "change, field",
    [
        ({"--epsilon": "-1"}, "epsilon"),
        ({"--means": "0.5,0.5"}, "means"),
        ({"--means": "0.2,x"}, "means"),
        ({"--out": "foo.txt"}, "out"),
        ({"--algorithm": "rnm_ftnl"}, "algorithm"),
    ],
)
def test_cli_bad_input_is_one_line_and_no_file(tmp_path, change, field):
    opts = {
        "--algorithm": "rps",
        "--means": "0.4,0.6",
        "--epsilon": "1",
        "--horizon": "1023",
        "--out": "bad.json",
    } | change
    proc = _cli([x for kv in opts.items() for x in kv], tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(lines) == 1 and lines[0].startswith(f"privdtol lemmas: error: --{field}:"), lines
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())


def test_lemmas_command_computes_the_uniform_mix_control(tmp_path, capsys):
    """``privdtol lemmas --algorithm rps_uniform_mix`` (registered through PROOF_ALGORITHMS):
    its JSON holds the lower values, its line shows Lemma 5 and eq. (5) far above their bounds."""
    from privdtol.cli import main
    from privdtol.engine.exact.proof import PROOF_ALGORITHMS

    assert {"rps_uniform_mix", "rps_hot"} <= set(PROOF_ALGORITHMS)
    out = tmp_path / "mix.json"
    args = ["lemmas", "--algorithm", "rps_uniform_mix", "--means", "0.2,0.3,0.9"]
    assert main([*args, "--epsilon", "1", "--env", "deterministic", "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    mix = terms("rps_uniform_mix", (0.2, 0.3, 0.9), 1.0, env="deterministic")
    assert written["sum_F"] == mix["sum_F"] and written["regret_limit"] is None
    line = capsys.readouterr().err
    assert line.startswith("rps_uniform_mix: K=3 gap=0.1 eps=1  Lemma 4 1.83252e+10 <= 7.33008e+10")
    assert "Lemma 5 1.83252e+10 <= " in line and "eq.(5) 2.29065e+09 <= " in line
