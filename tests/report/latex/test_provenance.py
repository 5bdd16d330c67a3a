"""Tests of :mod:`privdtol.report.latex.provenance`: the report's date is the commit time (or
``SOURCE_DATE_EPOCH``), and its appendix names the run archive and its sha256 file."""

from __future__ import annotations

import subprocess

from support.cli import committed_run
from support.paths import ROOT, SMOKE

from privdtol.archive.layout import archive_name, git_info
from privdtol.pipeline.config import load_config_files
from privdtol.report.latex.provenance import archive_row, report_date, source_date_epoch


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


def test_report_appendix_names_the_archive_and_its_sha256_file(tmp_path):
    run = committed_run(tmp_path)
    cfg = load_config_files([SMOKE])
    name = archive_name(git_info(run), cfg)
    row = archive_row(git_info(run), cfg).replace(r"\allowbreak{}", "")
    assert f"results/archive/{name}" in row and f"{name}.sha256" in row
