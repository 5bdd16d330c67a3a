"""Tests of :mod:`privdtol.report.provenance`."""

from __future__ import annotations

import subprocess

from support.paths import ROOT

from privdtol.report.provenance import report_date, source_date_epoch

# --- from tests/test_report.py


def test_report_date_is_the_commit_time(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert source_date_epoch(tmp_path) == 0  # not a git checkout
    assert report_date(0) == "undated"
    assert report_date(86400 * 365) == "1971-01-01"
    git = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True
    )
    if git.returncode == 0 and git.stdout.strip():
        assert source_date_epoch(ROOT) == int(git.stdout)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")
    assert source_date_epoch(tmp_path) == 1234567890
