"""Tests of :mod:`privdtol.cli.archive`: ``privdtol archive`` of the smoke build replays byte for
byte, ``archive-compare`` names what differs, and bad input is one line."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from support.cli import archive_members, committed_run, write_crate
from support.paths import BIN, ROOT, SMOKE
from support.workflow import snakemake_env

from privdtol.cli import main


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
    members = archive_members(archive)
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
    env = snakemake_env(PYTHONPATH=str(top / "source" / "src"))
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


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda repo: (repo / "results" / "agg" / "horizon.parquet").unlink(), "no results/agg/"),
        (lambda repo: (repo / ".git").rename(repo / "git"), "is not a git checkout"),
    ],
    ids=["no-tables", "no-git"],
)
def test_bad_input_is_one_line(tmp_path, capsys, damage, message):
    run = committed_run(tmp_path)
    damage(run)
    rc = main(
        ["archive", "--config", "config/smoke.yaml", "--repo", str(run), "--workdir", str(run),
         "--out-dir", str(tmp_path / "out")]
    )  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "\n" not in err and message in err, err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_archive_compare_names_a_truncated_record(tmp_path, capsys):
    run, results = tmp_path / "run", tmp_path / "results"
    for base, text in ((run / "results", '{"verdict": "PASS"}'), (results, '{"verdict": "PA')):
        (base / "checks").mkdir(parents=True)
        (base / "checks" / "C3.json").write_text(text)
        (base / "agg").mkdir()
        (base / "agg" / "horizon.parquet").write_bytes(b"x")
    code = main(["archive-compare", "--run", str(run), "--results", str(results)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "results/checks/C3.json" in err[0], err


def test_archive_compare_takes_the_agg_dir_of_the_archived_config(tmp_path, capsys, monkeypatch):
    """``make replay`` runs in source/, where RUN/configfiles.txt's files are: their agg_dir
    (here results/aggX) is where archive-compare looks, on both sides."""
    monkeypatch.chdir(tmp_path)
    run, results = tmp_path / "run", tmp_path / "results"
    (tmp_path / "over.yaml").write_text("agg_dir: results/aggX\n")
    run.mkdir()
    (run / "configfiles.txt").write_text(f"{SMOKE}\nover.yaml\n")
    for base in (run / "results", results):
        (base / "checks").mkdir(parents=True)
        (base / "checks" / "C3.json").write_text('{"verdict": "PASS"}')
        (base / "aggX").mkdir()
        (base / "aggX" / "horizon.parquet").write_bytes(b"x")
    (results / "aggX" / "horizon.parquet").write_bytes(b"y")
    write_crate(tmp_path)
    code = main(["archive-compare", "--run", str(run), "--results", str(results)])
    err = capsys.readouterr().err
    assert code == 1 and "results/aggX/horizon.parquet: differs" in err, err
    assert "1 identical, 1 different" in err
