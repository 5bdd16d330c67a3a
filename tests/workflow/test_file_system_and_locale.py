"""The project on an unfriendly machine: a project under a path with spaces and non-ASCII
letters, the C locale, a read-only results folder and a file system that refuses the write.
Each refusal is one line on stderr (never a traceback) and leaves no partial output.
CLI-level and cheap (seconds each); the workflow probe parses the smoke config once.  Config
paths with spaces and shell characters: tests/workflow/test_workflow_inputs.py; a full disk
and ``/proc`` as output: tests/cli/."""

from __future__ import annotations

import os

import pytest
from support.cli import one_line, run_cli
from support.paths import SMOKE
from support.workflow import copy_workflow, run_snakemake, snakemake_env

from privdtol.cli import main

#: a directory name no ASCII-only, space-free code path survives
HOSTILE_DIR = "mein Projekt – ü é Δ"

#: one quick cell of ``privdtol simulate`` (well under a second)
QUICK_CELL = ["--algorithm", "rps", "--epsilon", "1", "--K", "2", "--gap", "0.5",
              "--horizon", "63", "--runs", "5"]  # fmt: skip


# ----------------------------------------------------------------------------- paths, locale
def test_the_cli_runs_in_a_project_under_spaces_and_non_ascii(tmp_path):
    """A copy of the project under ``mein Projekt – ü é Δ``: the config is checked and a cell
    simulated into a results folder whose name has spaces and non-ASCII letters too."""
    wd = copy_workflow(tmp_path / HOSTILE_DIR / "privdtol")
    proc = run_cli("check-config", "config/smoke.yaml", cwd=wd)
    assert proc.returncode == 0, proc.stderr
    out = wd / "results ü" / "zelle ε.parquet"
    out.parent.mkdir()
    proc = run_cli("simulate", *QUICK_CELL, "--out", out.relative_to(wd), cwd=wd)
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
    proc = run_cli("check-config", cfg, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("list", cwd=tmp_path, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    bad = tmp_path / "böse.yaml"
    bad.write_text("rüns: 3\n", encoding="utf-8")
    proc = run_cli("check-config", bad, cwd=tmp_path, env=env)
    assert proc.returncode == 2 and "rüns" in one_line(proc.stderr), proc.stderr


# ----------------------------------------------------------------------------- read-only
@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_results_folder_is_one_line(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    results.chmod(0o555)
    try:
        proc = run_cli("simulate", *QUICK_CELL, "--out", "results/x.parquet", cwd=tmp_path)
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
