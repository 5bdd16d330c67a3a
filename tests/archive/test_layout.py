"""Tests of :mod:`privdtol.archive.layout`: the archive's name (commit and config hash), fixed
before the build, is the name ``snakemake archive`` writes."""

from __future__ import annotations

import re

import pytest
import yaml
from support.cli import archive_members, committed_run, git, unpacked
from support.paths import SMOKE
from support.workflow import copy_build, run_snakemake

from privdtol.archive.layout import agg_dir_of, archive_name, config_hash, git_info, replayed
from privdtol.pipeline.config import load_config_files


def test_name_is_commit_and_config_hash(tmp_path):
    run = committed_run(tmp_path)
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


@pytest.mark.pipeline
def test_snakemake_archive_after_the_build_writes_one_archive(smoke_run, tmp_path):
    """``snakemake archive`` (what ``make archive`` runs) in a committed checkout of the smoke
    build: only the archive job runs, and it writes one tar.gz under the parse-time name with
    its .sha256 beside it, named by the hash of the run's own merged config (the report's
    provenance gives the same), holding that config as the file to replay from."""
    wd = copy_build(smoke_run, tmp_path / "checkout")
    (wd / ".gitignore").write_text("results/\nlogs/\n.snakemake/\n")
    git(wd, "init", "-q")
    git(wd, "add", "-A")
    git(wd, "commit", "-qm", "smoke checkout")
    proc = run_snakemake(
        wd, "--cores", "1", "archive", "--configfile", "config/smoke.yaml", check=False
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    jobs = re.search(r"^total\s+(\d+)", proc.stdout + proc.stderr, re.M)
    assert jobs and jobs[1] == "1", proc.stdout[-3000:] + proc.stderr[-3000:]
    cfg = load_config_files([wd / "config" / "config.yaml", wd / "config" / "smoke.yaml"])
    name = archive_name(git_info(wd), cfg)
    assert sorted(p.name for p in (wd / "results" / "archive").iterdir()) == [
        name,
        f"{name}.sha256",
    ]
    members = archive_members(wd / "results" / "archive" / name)
    assert "run/results/report/replication_report.pdf" in members
    assert not any(m.startswith("run/logs/archive/") for m in members)

    # the run's own config names it and goes with it: the hash of results/config.merged.yaml
    # (the config the results were built with) is the name's and the report's, the archive
    # replays from that file, and its explorer names the config files
    merged = wd / "results" / "config.merged.yaml"
    digest = config_hash(yaml.safe_load(merged.read_text()))[:16]
    assert name.endswith(f"-{digest}.tar.gz"), (name, digest)
    provenance = (wd / "results" / "report" / "generated" / "provenance.tex").read_text()
    provenance = provenance.replace(r"\allowbreak{}", "")  # a break point after every letter
    named = re.findall(r"privdtol-[0-9a-z]+(?:-dirty)?-([0-9a-f]{16})\.tar\.gz", provenance)
    assert named and set(named) == {digest}, named
    top = unpacked(wd / "results" / "archive" / name, tmp_path / "unpacked")
    assert (top / "run" / "configfiles.txt").read_text() == "results/config.merged.yaml\n"
    assert (top / "source" / "results" / "config.merged.yaml").read_bytes() == merged.read_bytes()
    explorer = (top / "run" / "results" / "explorer" / "index.html").read_text()
    assert "<code>config/config.yaml</code>, <code>config/smoke.yaml</code>" in explorer
    # make replay's snakemake (a dry run here) in the unpacked source/, given the archived
    # config files, parses the very config of the build: the same content-addressed stamp
    listed = (top / "run" / "configfiles.txt").read_text().splitlines()
    proc = run_snakemake(
        top / "source", "-n", "aggregate_all", "checks_all", "--configfile", *listed, check=False
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    def stamps(d):
        return sorted(p.name for p in (d / "results" / "config").glob("merged-*.json"))

    assert len(stamps(wd)) == 1 and stamps(top / "source") == stamps(wd)


@pytest.mark.parametrize(
    ("agg_dir", "want"),
    [(None, "results/agg"), ("results/aggX/", "results/aggX"), ("./out//agg", "out/agg")],
)
def test_agg_dir_of_is_the_run_s_tables_relative_to_its_working_directory(agg_dir, want):
    """The config's agg_dir, normalised (the schema's default when the config has none); the
    replayed prefixes follow it."""
    assert agg_dir_of({} if agg_dir is None else {"agg_dir": agg_dir}) == want
    assert replayed(want)[0] == want + "/"
