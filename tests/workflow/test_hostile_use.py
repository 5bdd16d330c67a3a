"""Hostile use of the command line and the workflow, second round: a project under a path with
spaces and non-ASCII letters, the C locale, a read-only results folder, a tampered archive,
Ctrl-C during a simulation, and two builds at once.  Each is one line on stderr (never a
traceback) and leaves no partial output.  CLI-level and cheap (seconds each); the workflow
probes parse the smoke config once each.

Covered elsewhere: config paths with spaces and shell characters
(tests/workflow/test_workflow_inputs.py), hostile text in records and configs
(test_hostile_strings.py, test_fuzz_hostile.py), a file deleted from or changed in an unpacked
archive (tests/archive/test_build.py), a full disk and ``/proc`` as output
(tests/cli/)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest
from support.cli import archive_run, committed_run, unpacked
from support.paths import BIN, SMOKE
from support.workflow import copy_workflow, run_snakemake, snakemake_env

from privdtol.cli import INTERRUPTED, main

#: a directory name no ASCII-only, space-free code path survives
HOSTILE_DIR = "mein Projekt – ü é Δ"
#: one quick cell of ``privdtol simulate`` (well under a second)
QUICK_CELL = ["--algorithm", "rps", "--epsilon", "1", "--K", "2", "--gap", "0.5",
              "--horizon", "63", "--runs", "5"]  # fmt: skip


def privdtol(*args, cwd, env=None, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "privdtol"), *map(str, args)],
        cwd=cwd,
        env=env if env is not None else snakemake_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


# ----------------------------------------------------------------------------- paths, locale
def test_the_cli_runs_in_a_project_under_spaces_and_non_ascii(tmp_path):
    """A copy of the project under ``mein Projekt – ü é Δ``: the config is checked and a cell
    simulated into a results folder whose name has spaces and non-ASCII letters too."""
    wd = copy_workflow(tmp_path / HOSTILE_DIR / "privdtol")
    proc = privdtol("check-config", "config/smoke.yaml", cwd=wd)
    assert proc.returncode == 0, proc.stderr
    out = wd / "results ü" / "zelle ε.parquet"
    out.parent.mkdir()
    proc = privdtol("simulate", *QUICK_CELL, "--out", out.relative_to(wd), cwd=wd)
    assert proc.returncode == 0 and out.stat().st_size > 0, proc.stderr


@pytest.mark.slow
def test_the_workflow_runs_jobs_in_a_project_under_spaces_and_non_ascii(tmp_path):
    """Snakemake in that copy: the config is parsed and checked, and the jobs that write the
    run's config (the first of every build) run their shell commands there."""
    wd = copy_workflow(tmp_path / HOSTILE_DIR / "privdtol")
    proc = run_snakemake(
        wd, "--cores", "1", "write_config", "--configfile", "config/smoke.yaml", check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    sources = (wd / "results" / "config.sources.json").read_text(encoding="utf-8")
    assert "config/smoke.yaml" in sources and (wd / "results" / "config.merged.yaml").is_file()


def test_the_c_locale_reads_and_prints_non_ascii(tmp_path):
    """LANG=C, LC_ALL=C: a config whose description holds Δ, ε and ü is read, the command
    list (with its Δ and ε) printed, and a bad key holding non-ASCII refused in one line."""
    env = snakemake_env(LANG="C", LC_ALL="C")
    for var in ("PYTHONUTF8", "PYTHONIOENCODING", "LC_CTYPE"):
        env.pop(var, None)
    cfg = tmp_path / "lauf.yaml"
    cfg.write_text(
        SMOKE.read_text(encoding="utf-8").replace(
            'description: "the smoke', 'description: "Δ, ε und ü: the smoke', 1
        ),
        encoding="utf-8",
    )
    assert "Δ, ε und ü" in cfg.read_text(encoding="utf-8")
    proc = privdtol("check-config", cfg, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    proc = privdtol("list", cwd=tmp_path, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    bad = tmp_path / "böse.yaml"
    bad.write_text("rüns: 3\n", encoding="utf-8")
    proc = privdtol("check-config", bad, cwd=tmp_path, env=env)
    assert proc.returncode == 2 and "rüns" in one_line(proc.stderr), proc.stderr


# ----------------------------------------------------------------------------- read-only
@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_results_folder_is_one_line(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    results.chmod(0o555)
    try:
        proc = privdtol("simulate", *QUICK_CELL, "--out", "results/x.parquet", cwd=tmp_path)
    finally:
        results.chmod(0o755)
    assert proc.returncode == 2 and "cannot create files in results" in one_line(proc.stderr)
    assert list(results.iterdir()) == []


def test_a_file_system_that_refuses_the_write_is_one_line(tmp_path, monkeypatch, capsys):
    """What a read-only folder or mount does to a writer that passed the checks (as root, or
    remounted read-only meanwhile): the temporary file cannot be created, one line naming
    the file, exit 2, nothing left."""
    import errno

    from privdtol.pipeline import io

    def refuse(path):
        raise PermissionError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(io, "_create_temp", refuse)
    out = tmp_path / "x.parquet"
    assert main(["simulate", *QUICK_CELL, "--out", str(out)]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith("privdtol simulate: error: --out: cannot write ") and str(out) in line
    assert "Read-only file system" in line and list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- archive
def test_a_tampered_archive_fails_archive_compare_naming_the_file(tmp_path, capsys):
    """``privdtol archive-compare`` (the end of ``make replay``) on an unpacked archive whose
    check record was edited after packing: exit 1, the record named, whatever was rebuilt."""
    top = unpacked(archive_run(committed_run(tmp_path), tmp_path / "a"), tmp_path / "x")
    rebuilt = tmp_path / "rebuilt"
    for sub in ("agg", "checks"):
        shutil.copytree(top / "run" / "results" / sub, rebuilt / sub)
    record = top / "run" / "results" / "checks" / "C2.json"
    assert '"PASS"' in record.read_text()
    record.write_text(record.read_text().replace('"PASS"', '"FAIL"'))  # a verdict flipped
    code = main(["archive-compare", "--run", str(top / "run"), "--results", str(rebuilt)])
    err = capsys.readouterr().err
    named = f"results/checks/{record.name}"
    assert code == 1, err
    assert f"run/{named}: sha256 differs from the one ro-crate-metadata.json records" in err
    assert f"{named}: differs (sha256 " in err


# ----------------------------------------------------------------------------- interrupts
#: a cell that takes tens of seconds (the explicit per-round simulator): interrupted long
#: before it ends
SLOW_CELL = ["--algorithm", "hedge", "--K", "64", "--gap", "0.1", "--horizon", "200000",
             "--runs", "2000", "--mode", "explicit"]  # fmt: skip


def test_sigint_during_a_simulation_leaves_no_output(tmp_path):
    """Ctrl-C (SIGINT) while ``privdtol simulate`` computes: exit 130, one line saying so, no
    output file and no temporary file beside it."""
    out = tmp_path / "out" / "cell.parquet"
    out.parent.mkdir()
    proc = subprocess.Popen(
        [str(BIN / "privdtol"), "simulate", *SLOW_CELL, "--out", str(out)],
        env=snakemake_env(),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    time.sleep(4)  # imported, computing
    assert proc.poll() is None, "the cell ended before the interrupt"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == INTERRUPTED, err
    assert one_line(err) == "privdtol simulate: interrupted; no partial output is left"
    assert list(out.parent.iterdir()) == []


def test_sigint_while_a_table_is_written_leaves_no_partial_file(tmp_path, monkeypatch):
    """The interrupt arriving while the table's bytes are written: the half-written temporary
    file is removed, the destination never appears."""
    import pandas as pd

    from privdtol.pipeline.io import write_table

    def half_written(self, path, **kwargs):
        with open(path, "wb") as fh:
            fh.write(b"PAR1 half a table")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_parquet", half_written)
    with pytest.raises(KeyboardInterrupt):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "t.parquet")
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- two builds
@pytest.mark.slow
def test_a_second_build_in_the_same_folder_is_refused_while_the_first_holds_it(tmp_path):
    """Two builds at once in one folder: while the first holds Snakemake's lock (here, its
    lock files as a running build leaves them), the second is refused before any job, saying
    why and what to do, and writes nothing."""
    wd = copy_workflow(tmp_path / "wd")
    locks = wd / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    # what the first build writes while it runs: the outputs of its jobs, one a line
    (locks / "0.output.lock").write_text("results/config.merged.yaml\n")
    proc = run_snakemake(
        wd, "--cores", "1", "write_config", "--configfile", "config/smoke.yaml", check=False
    )
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in text, text[-3000:]
    assert "cannot be locked" in text and "--unlock" in text, text[-3000:]
    assert not (wd / "results" / "config.merged.yaml").exists()
