"""Tests of :mod:`privdtol.cli.check`: ``privdtol check`` refuses a bad threshold or output
location in one line before it writes a verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import one_line_error, write_config
from support.paths import SMOKE

from privdtol.analysis.registry import (
    CLAIMS,
)
from privdtol.cli import main


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
    bad = write_config(tmp_path, {"checks": checks}, "thr.yaml")
    out = tmp_path / "c.json"
    args = ["check", "--claim", "C3", "--control", "ftl_egreedy", "--config", SMOKE]
    one_line_error(capsys, [*args, "--config", bad, "--out", out], key)
    assert not out.exists()


def test_check_out_in_a_missing_directory(tmp_path, capsys):
    out = tmp_path / "no" / "dir" / "a.json"
    args = ["check", "--claim", "C3", "--config", SMOKE, "--out", out]
    one_line_error(capsys, args, "does not exist")
    assert not (tmp_path / "no").exists()


def _check(claim, out, *extra, agg_dir=None):
    args = ["check", "--claim", claim, "--config", str(SMOKE), "--out", str(out), *extra]
    return main(args + (["--agg-dir", str(agg_dir)] if agg_dir else []))


def test_cli_check_merges_configs_in_order(tiny_agg, tmp_path):
    override = tmp_path / "override.yaml"
    override.write_text("checks:\n  confidence: 0.5\n")
    out = tmp_path / "C4.json"
    assert _check("C4", out, "--config", str(override), agg_dir=tiny_agg) == 0
    assert json.loads(out.read_text())["threshold"].startswith("every cell's 50% interval")


def test_cli_check_reads_the_config_agg_dir(tiny_agg, tmp_path, monkeypatch):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "agg").symlink_to(tiny_agg)
    monkeypatch.chdir(tmp_path)
    assert _check("C4a", "C4a.json") == 0
    assert json.loads(Path("C4a.json").read_text())["inputs"] == ["results/agg/gap.parquet"]


@pytest.mark.parametrize(
    "claim, name, flag",
    [
        ("C9", "C.json", "--claim"),
        ("c2", "C.json", "--claim"),
        ("C2", "C.txt", "--out"),
        ("C1", "C.json", "--agg-dir"),
    ],
)  # C1: no privacy.parquet in the agg dir
def test_cli_check_bad_input_one_line_exit_2_no_file(tiny_agg, tmp_path, capsys, claim, name, flag):
    out = tmp_path / name
    assert _check(claim, out, agg_dir=tiny_agg) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("privdtol check: error: ") and flag in err
    if flag == "--claim":
        assert "allowed: " + ", ".join(CLAIMS) in err
    assert not out.exists() and not list(tmp_path.iterdir())


def test_cli_check_missing_tables_exit_2(tmp_path, capsys):
    empty = tmp_path / "agg"
    empty.mkdir()
    out = tmp_path / "C3.json"
    assert _check("C3", out, agg_dir=empty) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--agg-dir" in err and "horizon.parquet" in err
    assert not out.exists()
