"""Untrusted inputs at the workflow's edges: config paths with spaces and shell characters reach
every command as one word, bad configs are refused at parse time, and ``make replay`` passes
config paths through unsplit."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from support.paths import ROOT, SMOKE
from support.workflow import copy_workflow, run_snakemake


# ----------------------------------------------------------------- the workflow (slow: snakemake)
def snakemake(wd, *args):
    return run_snakemake(wd, *args, check=False, timeout=600)


@pytest.mark.slow
def test_workflow_config_path_with_spaces_and_a_semicolon(tmp_path):
    """Config paths reach every shell command as one word (about 40 s: two parses, one job)."""
    wd = copy_workflow(tmp_path / "wd")
    cfg = wd / "my cfg;touch PWN.yaml"
    cfg.write_text(SMOKE.read_text())
    proc = snakemake(wd, "-n", "-p", "build_report_assets", "check_C3", "--configfile", cfg.name)
    assert proc.returncode == 0, proc.stderr
    shell = [ln.removeprefix("Shell command: ") for ln in proc.stdout.splitlines()]
    commands = [c for c in shell if c.startswith("privdtol ") and " --config " in c]
    assert len(commands) >= 2, shell  # report-assets, check C3
    assert all(cfg.name in shlex.split(c) for c in commands), commands
    proc = snakemake(wd, "--cores", "1", "draw_rulegraph", "--configfile", cfg.name)
    assert proc.returncode == 0, proc.stderr
    assert (wd / "results/report/generated/rulegraph.pdf").stat().st_size > 0
    assert not (wd / "PWN.yaml").exists()


@pytest.mark.slow
def test_workflow_refuses_bad_configs_at_parse_time(tmp_path):
    """An alias bomb, a NaN and an output directory elsewhere: one ``invalid config`` line
    naming the file or key, before any job (about 30 s: three parses)."""
    wd = copy_workflow(tmp_path / "wd")
    cases = {
        "bomb.yaml": ("privacy:\n  K: &a [2, 2]\n  blocks: [*a, *a]\n", "aliases are not allowed"),
        "nan.yaml": ("checks: {confidence: .nan}\n", "checks.confidence: got nan"),
        "out.yaml": ("sim_dir: /tmp/elsewhere\n", "sim_dir: '/tmp/elsewhere' lies outside"),
    }
    for name, (text, expected) in cases.items():
        (wd / name).write_text(text)
        proc = snakemake(wd, "-n", "--configfile", "config/smoke.yaml", name)
        output = (proc.stdout + proc.stderr).splitlines()
        lines = [ln for ln in output if ln.startswith("invalid config:")]
        assert proc.returncode != 0 and len(lines) == 1 and expected in lines[0], output
        assert not (wd / "results").exists()


def test_make_replay_passes_config_paths_with_spaces(tmp_path):
    """``make replay`` with stub snakemake/privdtol: each line of configfiles.txt is one
    argument (not word-split as ``$(cat configfiles.txt)`` would be)."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("snakemake", "privdtol"):
        stub = bin_dir / tool
        stub.write_text(f'#!/bin/bash\nprintf "%s\\n" "$@" > "{tmp_path}/{tool}.args"\n')
        stub.chmod(0o755)
    run = tmp_path / "my run"
    run.mkdir()
    (run / "configfiles.txt").write_text("config/config.yaml\nconfig/my cfg;touch PWN.yaml\n")
    proc = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "replay", f"VENV={tmp_path / 'venv'}", f"RUN={run}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    args = (tmp_path / "snakemake.args").read_text().splitlines()
    assert args[-3:] == ["--configfile", "config/config.yaml", "config/my cfg;touch PWN.yaml"]
    assert (tmp_path / "privdtol.args").read_text().splitlines()[:3] == [
        "archive-compare",
        "--run",
        str(run),
    ]
    assert not (ROOT / "PWN.yaml").exists()
