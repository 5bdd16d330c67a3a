"""Tests of :mod:`privdtol.archive.build`: the run archive holds the source, the config files
and the run's outputs (never the cell files or its own log) under one top directory, with fixed
metadata, a sha256 file beside it, and the same bytes for the same inputs."""

from __future__ import annotations

import hashlib
import tarfile
from pathlib import Path

import pytest
from support.cli import archive_members, archive_run, committed_run, git, unpacked, write_crate


def _members_raw(path: Path) -> list[tarfile.TarInfo]:
    with tarfile.open(path) as tar:
        return tar.getmembers()


def test_archive_contents_sha256_file_and_determinism(tmp_path):
    run = committed_run(tmp_path)
    out = archive_run(run, tmp_path / "a")
    members = archive_members(out)
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
    commit_time = int(git(run, "log", "-1", "--format=%ct"))
    assert {(m.mtime, m.uid, m.gid, m.uname) for m in members.values()} == {(commit_time, 0, 0, "")}
    assert members["source/run.sh"].mode == 0o755 and members["source/Snakefile"].mode == 0o644
    assert [m.name for m in _members_raw(out)] == sorted(m.name for m in _members_raw(out))
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert (out.parent / f"{out.name}.sha256").read_text() == f"{digest}  {out.name}\n"
    # the same inputs give the same bytes
    again = archive_run(run, tmp_path / "b")
    assert again.name == out.name and again.read_bytes() == out.read_bytes()
    # an output that changes changes the archive
    (run / "results" / "checks" / "C2.json").write_text('{"verdict": "FAIL"}\n')
    assert archive_run(run, tmp_path / "c").read_bytes() != out.read_bytes()


def test_a_run_with_its_own_agg_dir_is_archived_from_it(tmp_path):
    """agg_dir = results/aggX (``--config agg_dir=...``): the tables are archived from there,
    and no results/agg is asked for."""
    from privdtol.archive.build import build_archive
    from privdtol.pipeline.config import load_config_files

    run = committed_run(tmp_path)
    (run / "results" / "agg").rename(run / "results" / "aggX")
    cfg = {**load_config_files([run / "config" / "smoke.yaml"]), "agg_dir": "results/aggX/"}
    out = build_archive(cfg, ["config/smoke.yaml"], run, run, tmp_path / "out")
    members = archive_members(out)
    assert {"run/results/aggX/horizon.parquet", "run/results/aggX/horizon.csv"} <= set(members)
    assert not any(m.startswith("run/results/agg/") for m in members)


@pytest.mark.parametrize("agg_dir", ["/tmp/elsewhere", "../agg", "."])
def test_an_agg_dir_outside_the_run_is_refused_in_one_line(tmp_path, agg_dir):
    from privdtol.archive.build import build_archive
    from privdtol.errors import InputError
    from privdtol.pipeline.config import load_config_files

    run = committed_run(tmp_path)
    cfg = {**load_config_files([run / "config" / "smoke.yaml"]), "agg_dir": agg_dir}
    with pytest.raises(InputError, match="agg_dir") as err:
        build_archive(cfg, ["config/smoke.yaml"], run, run, tmp_path / "out")
    assert "\n" not in str(err.value) and "cannot be archived" in str(err.value)
    assert not (tmp_path / "out").exists()


def test_compare_reads_the_tables_of_the_run_s_agg_dir(tmp_path):
    """run/results/aggX against results/aggX; the checks against results/checks; a table
    that differs is named by its path in the run."""
    from privdtol.archive.build import compare

    run, results = tmp_path / "run", tmp_path / "results"
    for base, table in ((run / "results", b"x"), (results, b"y")):
        (base / "checks").mkdir(parents=True)
        (base / "checks" / "C3.json").write_text('{"verdict": "PASS"}')
        (base / "checks" / "power.json").write_text('{"rows": []}')  # no verdict: not listed
        (base / "aggX").mkdir()
        (base / "aggX" / "horizon.parquet").write_bytes(table)
    write_crate(tmp_path)
    same, problems, verdicts = compare(run, results, "results/aggX")
    assert same == ["results/checks/C3.json", "results/checks/power.json"]
    assert verdicts == {"C3": "PASS"}
    assert len(problems) == 1 and problems[0].startswith("results/aggX/horizon.parquet: differs")


def _replayed_copy(top, results):
    """The replayed files of the unpacked archive ``top`` copied to ``results`` (a replay
    that rebuilt them identically)."""
    import shutil

    for sub in ("agg", "checks"):
        shutil.copytree(top / "run" / "results" / sub, results / sub)


@pytest.mark.parametrize(
    "damage, problem",
    [
        ("run/results/checks/C2.json", "results/checks/C2.json: missing from the archive"),
        ("run/results/agg/horizon.csv", "results/agg/horizon.csv: missing from the archive"),
        ("run/results/benchmarks/simulate/b.tsv", "listed in ro-crate-metadata.json, missing"),
        ("ro-crate-metadata.json", "ro-crate-metadata.json: missing or unreadable"),
    ],
    ids=["check-record", "table", "benchmark", "crate"],
)
def test_compare_finds_a_file_deleted_from_the_unpacked_archive(tmp_path, damage, problem):
    """Deleting run/results/checks/ (or one record, one table) gave "identical" and rc 0:
    every file the RO-Crate lists must be there, and the replayed ones are compared."""
    from privdtol.archive.build import compare

    top = unpacked(archive_run(committed_run(tmp_path), tmp_path / "a"), tmp_path / "x")
    results = tmp_path / "rebuilt"
    _replayed_copy(top, results)
    assert compare(top / "run", results)[1] == []  # intact: no problem
    (top / damage).unlink()
    problems = compare(top / "run", results)[1]
    assert any(problem in p for p in problems), problems


def test_compare_checks_every_listed_file_against_its_recorded_sha256(tmp_path):
    """A file the replay does not rebuild (a benchmark, the PDF, a CSV table) changed after
    the archive was built is a difference too."""
    from privdtol.archive.build import compare

    top = unpacked(archive_run(committed_run(tmp_path), tmp_path / "a"), tmp_path / "x")
    results = tmp_path / "rebuilt"
    _replayed_copy(top, results)
    bench = top / "run" / "results" / "benchmarks" / "simulate" / "b.tsv"
    bench.write_text(bench.read_text() + "1\t1\n")
    assert compare(top / "run", results)[1] == [
        "run/results/benchmarks/simulate/b.tsv: sha256 differs from the one "
        "ro-crate-metadata.json records"
    ]
