"""Tests of :mod:`privdtol.archive.layout`."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pandas as pd
import pytest
from support.paths import ROOT

from privdtol.archive.build import build_archive
from privdtol.archive.layout import archive_name, config_hash, git_info
from privdtol.pipeline.config import load_config_files
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


def _archive(repo: Path, out_dir: Path) -> Path:
    cfg = load_config_files([repo / "config" / "smoke.yaml"])
    return build_archive(cfg, ["config/smoke.yaml"], repo, repo, out_dir)


def _members(path: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(path) as tar:
        return {m.name.split("/", 1)[1]: m for m in tar.getmembers()}


def test_name_is_commit_and_config_hash(run):
    cfg = load_config_files([SMOKE])
    git = git_info(run)
    name = archive_name(git, cfg)
    assert name == f"privdtol-{git['commit'][:12]}-{config_hash(cfg)[:16]}.tar.gz"
    assert archive_name({"commit": "a" * 40, "dirty": True}, cfg).startswith(
        "privdtol-aaaaaaaaaaaa-dirty-"
    )
    assert archive_name({"commit": None, "dirty": None}, cfg).startswith("privdtol-nogit-")
    other = {**cfg, "seed": cfg["seed"] + 1}
    assert archive_name(git, other) != name


def test_report_appendix_names_the_archive_and_its_sha256_file(run):
    from privdtol.report.provenance import archive_row

    cfg = load_config_files([SMOKE])
    name = archive_name(git_info(run), cfg)
    row = archive_row(git_info(run), cfg).replace(r"\allowbreak{}", "")
    assert f"results/archive/{name}" in row and f"{name}.sha256" in row


def test_archive_contents_sha256_file_and_determinism(run, tmp_path):
    out = _archive(run, tmp_path / "a")
    members = _members(out)
    assert {
        "README.md",
        "ro-crate-metadata.json",
        "run/configfiles.txt",
        "source/Snakefile",
        "source/requirements.lock",
        "source/config/smoke.yaml",
        "source/run.sh",
        "run/results/agg/horizon.parquet",
        "run/results/agg/horizon.csv",
        "run/results/checks/C2.json",
        "run/results/benchmarks/simulate/b.tsv",
        "run/logs/aggregate/horizon.log",
    } == set(members) - {"source/.gitignore"}
    # the cell files and the archive rule's own log stay out; one top directory, fixed metadata
    top = {m.name.split("/")[0] for m in _members_raw(out)}
    assert top == {out.name.removesuffix(".tar.gz")}
    commit_time = int(_git(run, "log", "-1", "--format=%ct"))
    assert {(m.mtime, m.uid, m.gid, m.uname) for m in members.values()} == {(commit_time, 0, 0, "")}
    assert members["source/run.sh"].mode == 0o755 and members["source/Snakefile"].mode == 0o644
    assert [m.name for m in _members_raw(out)] == sorted(m.name for m in _members_raw(out))
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert (out.parent / f"{out.name}.sha256").read_text() == f"{digest}  {out.name}\n"
    # the same inputs give the same bytes
    again = _archive(run, tmp_path / "b")
    assert again.name == out.name and again.read_bytes() == out.read_bytes()
    # an output that changes changes the archive
    (run / "results" / "checks" / "C2.json").write_text('{"verdict": "FAIL"}\n')
    assert _archive(run, tmp_path / "c").read_bytes() != out.read_bytes()


def _members_raw(path: Path) -> list[tarfile.TarInfo]:
    with tarfile.open(path) as tar:
        return tar.getmembers()


def test_ro_crate_reads_back_and_lists_every_output_with_its_sha256(run, tmp_path):
    from rocrate.rocrate import ROCrate

    out = _archive(run, tmp_path)
    with tarfile.open(out) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    top = tmp_path / "x" / out.name.removesuffix(".tar.gz")
    crate = ROCrate(top)
    assert crate.mainEntity.id == "source/Snakefile"
    assert "ComputationalWorkflow" in crate.mainEntity.type
    assert crate.mainEntity["programmingLanguage"].id.endswith("#snakemake")
    profiles = {e.id for e in crate.root_dataset["conformsTo"]}
    assert {
        "https://w3id.org/ro/wfrun/process/0.5",
        "https://w3id.org/ro/wfrun/workflow/0.5",
    } <= profiles
    assert any(p.startswith("https://w3id.org/workflowhub/workflow-ro-crate/") for p in profiles)
    (action,) = crate.get_by_type("CreateAction")
    assert action["instrument"] is crate.mainEntity
    assert [e.id for e in action["object"]] == ["source/config/smoke.yaml"]
    assert action["startTime"] <= action["endTime"]
    outputs = sorted(p.relative_to(top).as_posix() for p in (top / "run").rglob("*") if p.is_file())
    outputs.remove("run/configfiles.txt")
    assert sorted(e.id for e in action["result"]) == outputs
    files = {e.id: e for e in crate.get_by_type("File")}
    for rel in [*outputs, "source/requirements.lock", "source/config/smoke.yaml"]:
        data = (top / rel).read_bytes()
        assert files[rel]["sha256"] == hashlib.sha256(data).hexdigest(), rel
        assert files[rel]["contentSize"] == str(len(data)), rel
    versions = {
        e["name"].lower(): e["softwareVersion"] for e in crate.mainEntity["softwareRequirements"]
    }
    assert versions["rocrate"] and versions["numpy"] == __import__("numpy").__version__
    assert "cores" in crate.get("#machine")["description"]


@pytest.mark.pipeline
def test_snakemake_archive_after_the_build_writes_one_archive(smoke_run, tmp_path):
    """``snakemake archive`` (what ``make archive`` runs) in a committed checkout of the smoke
    build: only the archive job runs, and it writes one tar.gz under the parse-time name with
    its .sha256 beside it."""
    wd = tmp_path / "checkout"
    shutil.copytree(smoke_run, wd, symlinks=True)  # copy2: modification times kept
    (wd / ".gitignore").write_text("results/\nlogs/\n.snakemake/\n")
    _git(wd, "init", "-q")
    _git(wd, "add", "-A")
    _git(wd, "commit", "-qm", "smoke checkout")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [str(BIN / "snakemake"), "--cores", "1", "archive", "--configfile", "config/smoke.yaml"],
        cwd=wd, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    jobs = re.search(r"^total\s+(\d+)", proc.stdout + proc.stderr, re.M)
    assert jobs and jobs[1] == "1", proc.stdout[-3000:] + proc.stderr[-3000:]
    cfg = load_config_files([wd / "config" / "config.yaml", wd / "config" / "smoke.yaml"])
    name = archive_name(git_info(wd), cfg)
    assert sorted(p.name for p in (wd / "results" / "archive").iterdir()) == [
        name,
        f"{name}.sha256",
    ]
    members = _members(wd / "results" / "archive" / name)
    assert "run/results/report/replication_report.pdf" in members
    assert not any(m.startswith("run/logs/archive/") for m in members)
