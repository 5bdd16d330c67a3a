"""Every shell command the docs show is run, or the page says why not.

The commands are the lines of the ``bash`` blocks of README.md and docs/*.md (continuation
lines joined).  A command is either

- **tagged** in its page, in the line's comment, with one of :data:`TAGS` (or it names
  ``config/paper.yaml`` or the SLURM profile itself): it needs what a test cannot have, and the
  tag says what; or
- **run** by :func:`test_every_documented_command_runs_on_the_smoke_build` (slow tier), in a
  scratch clone holding the session's smoke build (``smoke_run``): ``privdtol`` commands
  in-process (:func:`privdtol.cli.main`), ``snakemake`` commands with ``--configfile
  config/smoke.yaml`` (where they name no config; ``--cores 2``), ``make`` targets as ``make -n``
  (their recipes install or build the default config; the snakemake they end in is run above),
  notebooks with jupytext and papermill.  ``config/config.yaml`` becomes ``config/smoke.yaml``,
  ``/tmp/`` a temporary directory, and a worst-case search the smoke config's size (budget 12,
  2 unseen instances).  A command shown on several pages runs once.  Afterwards ``git status``
  of the clone must be empty: no documented command writes into the checkout.

Inline commands are checked too: every ``privdtol X`` names a subcommand, every ``snakemake
TARGET`` of the smoke config is a target (one dry run), and ``snakemake --report`` and
``snakemake --unlock`` run.  The documented bad-config messages are the loader's.

Cost (slow tier, on top of the shared smoke build): docs/performance.md.  The largest: the
Snakemake runs and dry runs of the smoke build (each rebuilds the DAG, 5-10 s), the report
compile, the notebook and the audit grid.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.paths import BIN, ROOT, SRC
from support.workflow import copy_build, snakemake_env

from privdtol.cli import build_parser, main
from privdtol.errors import InputError
from privdtol.pipeline.config import load_config

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


#: why a documented command is not run by this test (written in the page, in the comment)
TAGS = {
    "[cluster]": (
        "needs a SLURM cluster (tests/workflow/test_slurm.py runs the profile on CI's cluster)"
    ),
    "[paper config]": "the paper-scale build (its run time: docs/performance.md)",
    "[installs]": "installs packages (apt, pip, a venv): CI's `make setup` runs it",
    "[test suite]": "the test suite itself",
    "[archive replay]": "replays a run archive: tests/cli/test_archive.py does",
    "[plugin]": (
        "needs the example plugin installed: tests/workflow/test_example_plugin.py runs the "
        "commands of docs/extending.md with it"
    ),
}


#: the worst-instance searches' budget and unseen draws of config/smoke.yaml (the docs show
#: the command's defaults, 250 and 40, or the default config's)
SMOKE_BUDGET, SMOKE_UNSEEN = 12, 2


#: inline commands the blocks rely on (docs/notebooks.md: the aggregated tables of /tmp/agg)
PREPARE = ("python tests/support/tiny_agg.py /tmp/agg --runs 100",)


#: the commands that set up the shell this test already runs in
SHELL_SETUP = ("source .venv/bin/activate",)


FENCE = re.compile(r"^```(bash|sh|shell)\s*\n(.*?)^```", re.S | re.M)


INLINE = re.compile(r"`((?:snakemake|privdtol)\b[^`\n]*)`")


def documented_commands() -> list[tuple[str, str, str]]:
    """(page, command, comment) of every line of every bash block."""
    out = []
    for page in DOCS:
        for match in FENCE.finditer(page.read_text()):
            body = re.sub(r"\\\n\s*", " ", match.group(2))
            for line in body.splitlines():
                command, _, comment = line.partition(" #")
                if command.strip() and not command.lstrip().startswith("#"):
                    out.append((page.name, " ".join(command.split()), comment))
    return out


def tag(command: str, comment: str) -> str | None:
    """The tag that excuses ``command`` from being run (None: it is run)."""
    for name in TAGS:
        if name in comment:
            return name
    if "config/paper.yaml" in command:
        return "[paper config]"
    if "profiles/slurm" in command or "SBATCH_" in command:
        return "[cluster]"
    return None


def inline_commands(pattern: str | None = None) -> list[tuple[str, str]]:
    """(page, command) of every inline code span running ``snakemake`` or ``privdtol``."""
    regex = re.compile(pattern) if pattern else INLINE
    text = {p.name: re.sub(r"^```.*?^```", "", p.read_text(), flags=re.S | re.M) for p in DOCS}
    return [(name, m.group(1)) for name, t in text.items() for m in regex.finditer(t)]


def test_every_documented_command_is_run_or_tagged():
    commands = documented_commands()
    assert len(commands) > 30, commands
    programs = {"privdtol", "snakemake", "make", "jupytext", "papermill"}
    for page, command, comment in commands:
        if tag(command, comment) is None and command not in SHELL_SETUP:
            first = command.split()[0]
            assert first in programs, (
                f"{page}: `{command}` is neither run by this test nor tagged with one of "
                f"{sorted(TAGS)} in its comment"
            )
    for page, _, comment in commands:
        unknown = set(re.findall(r"\[[a-z ]+\]", comment)) - set(TAGS)
        assert not unknown, f"{page}: unknown tag {unknown}"


def test_every_inline_privdtol_command_names_a_subcommand():
    parser = build_parser()
    names = set(parser._subparsers._group_actions[0].choices)
    for page, command in inline_commands():
        words = command.split()
        if words[1:2] and words[1].endswith(":"):
            continue  # an error line the page quotes ("privdtol check-config: error: ...")
        if words[0] == "privdtol" and len(words) > 1 and not words[1].startswith("-"):
            assert words[1] in names, f"{page}: `{command}`: no subcommand {words[1]!r}"


def test_the_documented_bad_config_messages_are_the_loaders():
    """docs/pipeline.md shows three messages: each is what the loader says for that mistake."""
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    mistakes = {
        "epsilon[1]": lambda c: c["experiments"][0]["epsilon"].__setitem__(1, -0.5),
        "algorithms[0]": lambda c: c["experiments"][2]["algorithms"].__setitem__(0, "ucb"),
        "gaps": lambda c: c["experiments"][0].__setitem__("gaps", [0.1]),
    }
    page = (ROOT / "docs" / "pipeline.md").read_text()
    for key, mistake in mistakes.items():
        cfg = copy.deepcopy(base)
        mistake(cfg)
        with pytest.raises(InputError) as err:
            load_config(cfg)
        line = f"invalid config: {err.value}"
        assert key in line and line in page, f"docs/pipeline.md does not show: {line}"


def test_the_documented_cli_error_is_what_privdtol_prints(tmp_path, capsys):
    """docs/cli.md's example line, printed by the command it describes."""
    page = (ROOT / "docs" / "cli.md").read_text()
    argv = ["simulate", "--algorithm", "rps", "--K", "2", "--gap", "0.1", "--epsilon", "-0.5"]
    code = main([*argv, "--horizon", "1023", "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() in page, f"docs/cli.md does not show: {err}"
    assert not (tmp_path / "o.csv").exists()


@pytest.fixture(scope="module")
def scratch(smoke_run, tmp_path_factory):
    """A clone of the repository holding the smoke build: tracked files dated before it."""
    clone = tmp_path_factory.mktemp("docs") / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    for path in clone.rglob("*"):
        if ".git" not in path.relative_to(clone).parts and not path.is_symlink():
            os.utime(path, (946_684_800, 946_684_800))
    for name in ("results", "logs", ".snakemake"):
        if (smoke_run / name).exists():
            copy_build(smoke_run / name, clone / name)
    return clone


def _argv(command: str, tmp: Path) -> list[str]:
    command = command.replace("config/config.yaml", "config/smoke.yaml").replace("/tmp/", f"{tmp}/")
    command = re.sub(r"--budget \d+", f"--budget {SMOKE_BUDGET}", command)
    command = re.sub(r"--unseen \d+", f"--unseen {SMOKE_UNSEEN}", command)
    argv = shlex.split(command)
    if argv[:2] == ["privdtol", "worst-case"] and "--unseen" not in argv:
        argv += ["--unseen", str(SMOKE_UNSEEN)]
    if argv[0] == "snakemake":
        argv = [str(BIN / "snakemake"), *argv[1:]]
        if "--cores" in argv:
            argv[argv.index("--cores") + 1] = "2"
        if "--configfile" not in argv:
            argv += ["--configfile", "config/smoke.yaml"]
    elif argv[0] == "make":
        argv = ["make", "-n", *argv[1:]]
    return argv


def _run(argv: list[str], cwd: Path, env: dict, timeout: int = 600) -> str:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{argv} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


@pytest.mark.pipeline
def test_every_documented_command_runs_on_the_smoke_build(scratch, tmp_path, monkeypatch):
    env = snakemake_env(PYTHONPATH=str(SRC))
    monkeypatch.chdir(scratch)
    (tmp_path / "res").mkdir()
    (scratch / "my_losses.csv").write_text("0,1\n0,1\n1,0\n" * 400)  # the user's file
    for command in PREPARE:
        assert any(command in c for _, c in inline_commands(r"`(python [^`\n]*)`")), command
        _run(
            [sys.executable, *shlex.split(command.replace("/tmp/", f"{tmp_path}/"))[1:]],
            scratch,
            env,
        )
    ran = []
    for page, command, comment in documented_commands():
        if tag(command, comment) is not None or command in SHELL_SETUP or command in ran:
            continue  # a command shown on several pages is run once
        argv = _argv(command, tmp_path)
        if argv[0] == "privdtol":
            code = main(argv[1:])
            assert code in (0, None), f"{page}: `{command}` exited {code}"
        else:
            _run(argv, scratch, env)
        ran.append(command)
    assert any(c.startswith("snakemake") for c in ran) and any(
        c.startswith("privdtol") for c in ran
    )
    (scratch / "my_losses.csv").unlink()

    targets = []
    for _, command in inline_commands():
        words = command.split()
        if words[0] != "snakemake" or "paper.yaml" in command:
            continue
        if words[1:] in (["--report", "results/report.html"], ["--unlock"]):
            _run(_argv(command, tmp_path), scratch, env)
        elif all(re.fullmatch(r"[\w./]+", w) for w in words[1:]) and len(words) > 1:
            targets += words[1:]
    out = _run(_argv("snakemake -n " + " ".join(dict.fromkeys(targets)), tmp_path), scratch, env)
    jobs = re.findall(r"^(\w+)\s+\d+\s*$", out, re.M)  # the job stats table, if any
    assert not [j for j in jobs if j.startswith("simulate_")], f"simulations rerun:\n{out[-3000:]}"
    assert (scratch / "results" / "report.html").stat().st_size > 100_000

    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored=no"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status == "", f"the documented commands left files in the checkout:\n{status}"
