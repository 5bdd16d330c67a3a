"""Untrusted inputs at the workflow's edges: config paths with spaces and shell characters reach
every command as one word, bad configs are refused at parse time, and ``make replay`` passes
config paths through unsplit."""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import pytest
from support.paths import ROOT, SMOKE
from support.workflow import copy_workflow, job_stats, run_snakemake


# ----------------------------------------------------------------- the workflow (slow: snakemake)
def snakemake(wd, *args):
    return run_snakemake(wd, *args, check=False, timeout=600)


@pytest.mark.slow
def test_workflow_config_path_with_spaces_and_a_semicolon(tmp_path):
    """A config path reaches the command that records it as one word, and every job reads the
    run's merged config (about 40 s: two parses, one job)."""
    wd = copy_workflow(tmp_path / "wd")
    cfg = wd / "my cfg;touch PWN.yaml"
    cfg.write_text(SMOKE.read_text())
    proc = snakemake(wd, "-n", "-p", "build_report_assets", "check_C3", "--configfile", cfg.name)
    assert proc.returncode == 0, proc.stderr
    shell = [ln.removeprefix("Shell command: ") for ln in proc.stdout.splitlines()]
    # the config files reach one command, the one that records them, as one JSON word ...
    parts = [p.strip() for c in shell for p in c.split(" && ")]
    sources = [p for p in parts if p.startswith("privdtol run-config --sources ")]
    assert len(sources) == 1, shell
    words = shlex.split(sources[0])
    assert cfg.name in json.loads(words[words.index("--sources") + 1])["files"]
    # ... and every job that reads the config reads the run's merged copy (the report
    # results/config.merged.yaml, the others its content-addressed stamp, written at parse time)
    commands = [c for c in shell if c.startswith("privdtol ") and " --config " in c]
    assert len(commands) >= 2, shell  # report-assets, check C3
    merged = re.compile(r"results/config\.merged\.yaml|results/config/merged-[0-9a-f]{16}\.json")
    for c in commands:
        words = shlex.split(c)
        given = [words[i + 1] for i, w in enumerate(words) if w == "--config"]
        assert given and all(merged.fullmatch(g) for g in given), c
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


# ----------------------------------------------------------------- no unquoted path in a shell
#: shell placeholders that are not single paths: strings the rule builds with shlex
PREQUOTED = {"params.configs", "params.args", "params.proof", "params.views"}


def shell_strings(text: str) -> list[str]:
    """The shell strings of a .smk file: the string literals after each ``shell:``."""
    out, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "shell:":
            parts = []
            for nxt in lines[i + 1 :]:
                if not nxt.strip().startswith('"'):
                    break
                parts.append(nxt.strip())
            out.append(" ".join(eval(p) for p in parts))  # string literals only
    return out


def param_definitions(text: str, key: str) -> list[str]:
    """The source of each ``key=...`` of the file's ``params:`` blocks (up to the next key)."""
    out = []
    for block in re.findall(r"\n(\s+)params:\n(.*?)\n\1shell:", text, flags=re.S):
        body = block[1]
        for m in re.finditer(rf"^(\s+){key}=(.*?)(?=^\1\w+=|\Z)", body, flags=re.S | re.M):
            out.append(m.group(2))
    return out


def test_no_unquoted_placeholder_in_any_shell_command():
    rules = sorted((ROOT / "workflow" / "rules").glob("*.smk"))
    seen = 0
    for path in rules:
        text = path.read_text()
        for shell in shell_strings(text):
            for name, quoted in re.findall(r"\{([^{}:]+)(:q)?\}", shell):
                seen += 1
                if name in PREQUOTED:
                    defs = param_definitions(text, name.split(".")[1])
                    # MERGED_ARG: "--config <the merged stamp>", quoted once in common.smk
                    ok = [("shlex." in d) or d.strip().rstrip(",") == "MERGED_ARG" for d in defs]
                    assert defs and all(ok), (path.name, name, defs)
                else:
                    assert quoted, f"{path.name}: {{{name}}} in a shell command without :q"
    assert seen > 50  # the scan found the rules' placeholders
    common = (ROOT / "workflow" / "rules" / "common.smk").read_text()
    assert 'MERGED_ARG = f"--config {shlex.quote(MERGED_PIECE)}"' in common


def test_shell_strings_scan_catches_an_unquoted_path():
    text = 'rule x:\n    shell:\n        "cat {input:q}"\n        " > {output}"\n'
    assert re.findall(r"\{([^{}:]+)(:q)?\}", shell_strings(text)[0]) == [
        ("input", ":q"),
        ("output", ""),
    ]


def test_makefile_replay_does_not_word_split():
    text = (ROOT / "Makefile").read_text()
    replay = text[text.index("replay:") :]
    assert "$$(cat" not in replay and 'mapfile -t configs < "$(RUN)/configfiles.txt"' in replay
    assert '--configfile "$${configs[@]}"' in replay


def test_prequoted_configs_survive_spaces_and_semicolons():
    """The params of checks/report/archive rules: one shell word per config path."""
    files = ["config/config.yaml", "my cfg;touch PWN.yaml"]
    words = shlex.split(" ".join(f"--config {shlex.quote(f)}" for f in files))
    assert words == ["--config", files[0], "--config", files[1]]


@pytest.mark.slow
def test_a_notebook_that_shows_findings_waits_for_them(tmp_path):
    """A notebook without a claim says what its figure shows from results/findings.json
    (narrative.figure_note), so its job needs the findings job; one with claims does not (it
    reads its check records).  Without the input, the notebook could run before the findings
    existed and say "No claim of the paper is checked here" in place of the finding."""
    wd = copy_workflow(tmp_path / "wd")
    cfg = wd / "smoke.yaml"
    cfg.write_text(SMOKE.read_text())
    jobs = {}
    for target in ("notebook_worst", "notebook_proof"):
        proc = snakemake(wd, "-n", target, "--configfile", cfg.name)
        assert proc.returncode == 0, proc.stderr
        jobs[target] = job_stats(proc.stdout)
    assert jobs["notebook_worst"].get("findings") == 1
    assert "findings" not in jobs["notebook_proof"] and "notebook_proof" in jobs["notebook_proof"]


@pytest.mark.slow
def test_config_refusal_in_snakemake_is_one_line_exit_2_and_overrides_are_typed(tmp_path):
    """A refused config: exit 2 and one stderr line without Python frames (before the fix:
    WorkflowError, two ``File ...`` frames, exit 1).  A nested ``--config`` override arrives
    as strings and is typed by the schema (before the fix: ``checks.confidence: got '0.9'``).
    About 40 s: two parses."""
    wd = copy_workflow(tmp_path / "wd")
    (wd / "bad.yaml").write_text("experiments:\n  - {name: privacy, algorithms: [rps], K: [2], "
                                 "gap: [0.5], epsilon: [1], horizon: [63]}\n")  # fmt: skip
    proc = snakemake(wd, "-n", "--configfile", "config/smoke.yaml", "bad.yaml")
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "invalid config" in ln or "File " in ln]
    assert len(lines) == 1 and lines[0].startswith("invalid config: experiments[0].name:"), lines
    override = "checks={confidence: 0.9, plateau_octaves: 5, multiverse: {confidence: [0.9]}}"
    proc = snakemake(wd, "-n", "--configfile", "config/smoke.yaml", "--config", override)
    assert proc.returncode == 0, proc.stderr
