"""Tests of :mod:`privdtol.cli.check`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support.paths import ROOT

from privdtol.cli import main

# --- from tests/test_bad_input.py


SMOKE = ROOT / "config" / "smoke.yaml"


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


# ----------------------------------------------------------------- a verdict changed by a bad value
@pytest.mark.parametrize(
    "checks, key",
    [
        ({"horizon_free_ratio_max": float("inf")}, "checks.horizon_free_ratio_max"),
        ({"confidence": float("nan")}, "checks.confidence"),
        ({"rate_form_factor": 1e300}, "checks.rate_form_factor"),
        ({"exponent_range": [float("-inf"), 1.2]}, "checks.exponent_range[0]"),
    ],
)
def test_bad_threshold_refused_before_a_verdict(tmp_path, capsys, checks, key):
    bad = write(tmp_path, {"checks": checks}, "thr.yaml")
    out = tmp_path / "c.json"
    args = ["check", "--claim", "C3", "--control", "ftl_egreedy", "--config", SMOKE]
    one_line(capsys, [*args, "--config", bad, "--out", out], key)
    assert not out.exists()


def test_check_out_in_a_missing_directory(tmp_path, capsys):
    out = tmp_path / "no" / "dir" / "a.json"
    args = ["check", "--claim", "C3", "--config", SMOKE, "--out", out]
    one_line(capsys, args, "does not exist")
    assert not (tmp_path / "no").exists()
