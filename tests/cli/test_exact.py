"""Tests of :mod:`privdtol.cli.exact`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support.paths import ROOT

from privdtol.cli import main
from privdtol.pipeline import plan as grid
from privdtol.pipeline.config import load_config

# --- from tests/test_bad_input.py


SMOKE = ROOT / "config" / "smoke.yaml"


def smoke() -> dict:
    return yaml.safe_load(SMOKE.read_text())


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


def write(tmp_path, cfg, name="c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg) if isinstance(cfg, dict) else cfg)
    return path


@pytest.mark.parametrize(
    "privacy, key",
    [
        ({"K": [100000000]}, "privacy.K[0]"),
        ({"statistical": {"runs": 1e14}}, "privacy.statistical.runs"),
        ({"statistical": {"alpha": 7}}, "privacy.statistical.alpha"),
        ({"exact": {"n_random": -5}}, "privacy.exact.n_random"),
        ({"algorithms": ["nope"]}, "privacy.algorithms[0]"),
        ({"sequence": {"horizon": "abc"}}, "privacy.sequence.horizon"),
        ({"sequence": {"typo": 1}}, "privacy.sequence.typo"),
    ],
)
def test_privacy_block_validated(tmp_path, capsys, privacy, key):
    cfg = smoke()
    cfg["privacy"].update(privacy)
    one_line(capsys, ["check-config", write(tmp_path, cfg)], key)
    out = tmp_path / "p.parquet"
    one_line(capsys, ["audit-grid", "--grid-json", json.dumps(privacy), "--out", out], key)
    assert not out.exists()


def test_exact_eta_floor_is_one_line(capsys):
    args = ["exact", "--algorithm", "rps", "--epsilon", "1e-6", "--K", "2", "--gap", "0.25"]
    one_line(capsys, [*args, "--horizon", "1000"], "--epsilon")


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


def test_exact_off_gives_monte_carlo_everywhere_also_as_bare_yaml_off():
    cfg = yaml.safe_load("exact: off\n")  # YAML 1.1 reads a bare off as False
    assert cfg == {"exact": False}
    got = cells({**config(), **cfg})
    assert not any(c.exact for c in got.values())
    assert got["rps"].runs == 50


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
