"""Tests of :mod:`privdtol.cli.archive`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pandas as pd
import pytest
from support.paths import ROOT

from privdtol.cli import main
from privdtol.pipeline.io import write_table

# --- from tests/test_archive.py


BIN = Path(sys.executable).parent


SMOKE = ROOT / "config" / "smoke.yaml"


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z"},
    )
    return proc.stdout.strip()


@pytest.fixture
def run(tmp_path) -> Path:
    """A tiny committed repository that is also the working directory of a 'built' run."""
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / "Snakefile").write_text("rule all:\n    input: []\n")
    (repo / "requirements.lock").write_text("x==1 --hash=sha256:00\n")
    (repo / "config" / "smoke.yaml").write_bytes(SMOKE.read_bytes())
    (repo / ".gitignore").write_text("results/\nlogs/\n")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    write_table(pd.DataFrame({"a": [1, 2]}), repo / "results" / "agg" / "horizon.parquet")
    write_table(pd.DataFrame({"a": [1, 2]}), repo / "results" / "agg" / "horizon.csv")
    (repo / "results" / "checks").mkdir(parents=True)
    (repo / "results" / "checks" / "C2.json").write_text('{"verdict": "PASS"}\n')
    (repo / "results" / "sim").mkdir()
    (repo / "results" / "sim" / "cell.parquet").write_bytes(b"not archived")
    (repo / "results" / "benchmarks" / "simulate").mkdir(parents=True)
    (repo / "results" / "benchmarks" / "simulate" / "b.tsv").write_text("s\tmax_rss\n2.5\t10\n")
    (repo / "logs" / "archive").mkdir(parents=True)
    (repo / "logs" / "archive" / "archive.log").write_text("being written\n")
    (repo / "logs" / "aggregate").mkdir()
    (repo / "logs" / "aggregate" / "horizon.log").write_text("ok\n")
    return repo


def _members(path: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(path) as tar:
        return {m.name.split("/", 1)[1]: m for m in tar.getmembers()}


# ----------------------------------------------------------------------------- replay
@pytest.mark.pipeline
def test_archived_smoke_run_replays_byte_for_byte(smoke_run, tmp_path):
    """Archive the smoke build, unpack it into a fresh directory, run the README's replay
    command there (``make replay``; the environment is this one, with the unpacked source on
    PYTHONPATH, in place of ``make setup``): tables and checks are byte-identical."""
    out = tmp_path / "archive"
    rc = main(
        ["archive", "--config", "config/smoke.yaml", "--repo", str(ROOT),
         "--workdir", str(smoke_run), "--out-dir", str(out)]
    )  # fmt: skip
    assert rc == 0
    (archive,) = out.glob("*.tar.gz")
    print(f"archive {archive.name}: {archive.stat().st_size / 1e6:.2f} MB")
    members = _members(archive)
    for required in (
        "run/results/report/replication_report.pdf",
        "run/results/findings.json",
        "source/requirements.lock",
        "source/Makefile",
    ):
        assert required in members, required
    assert any(m.startswith("run/results/notebooks/") and m.endswith(".html") for m in members)
    assert any(m.startswith("run/results/figures/") for m in members)
    with tarfile.open(archive) as tar:
        readme = tar.extractfile(f"{archive.name[:-7]}/README.md").read().decode()
    assert "make -C source setup" in readme and "make -C source replay RUN=../run" in readme

    fresh = tmp_path / "fresh"
    with tarfile.open(archive) as tar:
        tar.extractall(fresh, filter="data")
    top = fresh / archive.name.removesuffix(".tar.gz")
    assert not (top / "source" / "results").exists()
    env = {
        **os.environ,
        "PYTHONPATH": str(top / "source" / "src"),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    venv = Path(sys.prefix)
    proc = subprocess.run(
        ["make", "-C", "source", "replay", "RUN=../run", f"VENV={venv}", "CORES=2"],
        cwd=top,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rebuilt = top / "source" / "results"
    assert sorted(p.name for p in (rebuilt / "agg").iterdir()) == sorted(
        p.name for p in (smoke_run / "results" / "agg").iterdir()
    )
    for sub in ("agg", "checks"):
        for path in sorted((smoke_run / "results" / sub).iterdir()):
            assert (rebuilt / sub / path.name).read_bytes() == path.read_bytes(), path.name
    verdicts = dict(line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line)
    for path in (smoke_run / "results" / "checks").glob("*.json"):
        record = json.loads(path.read_text())
        if "verdict" in record:  # power.json is the checks' size and power, not a record
            assert verdicts[path.stem] == record["verdict"]
    # the rebuilt directory held neither notebooks nor the report: only tables and checks ran
    assert not (rebuilt / "report").exists()
    # a tampered archived table is caught
    table = top / "run" / "results" / "agg" / "horizon.csv"
    table.write_text(table.read_text() + "\n")
    proc = subprocess.run(
        [str(BIN / "privdtol"), "archive-compare", "--run", "../run", "--results", "results"],
        cwd=top / "source",
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and "agg/horizon.csv: differs" in proc.stderr, proc.stderr
