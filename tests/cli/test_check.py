"""Tests of :mod:`privdtol.cli.check`: ``privdtol check`` refuses a bad threshold or output
location in one line before it writes a verdict."""

from __future__ import annotations

import pytest
from support.cli import one_line_error, write_config
from support.paths import SMOKE


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
