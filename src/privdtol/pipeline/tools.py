"""The external commands a workflow's jobs run, checked before the first job starts:
one line naming what is missing, for which rules, and how to install it.

The commands of a job are the first word of each command of its rule's shell string (split at
``&&``, ``||``, ``|`` and ``;``), plus those a ``privdtol`` subcommand runs itself
(:data:`SUBCOMMAND_TOOLS`: ``report-compile`` runs latexmk and pdflatex).  Only the commands of
:data:`INSTALL` are checked.  ``privdtol`` and ``python`` must moreover import the package the
workflow imported (:func:`imported_from`): a console script of another installation on PATH
would run other code than the one the DAG's code stamps describe.

workflow/rules/common.smk calls :func:`check_jobs` from ``onstart`` (after the DAG is built,
before any job runs, never in a dry run), with the rules of the jobs that will run: a target
that needs no TeX (``aggregate_all``, one notebook) still runs on a machine without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

#: checked commands -> the Debian package holding it (None: the Python environment, make setup)
INSTALL: dict[str, str | None] = {
    "privdtol": None,
    "python": None,
    "snakemake": None,
    "jupytext": None,
    "papermill": None,
    "jupyter": None,
    "dot": "graphviz",
    "latexmk": "latexmk",
    "pdflatex": "texlive-latex-base texlive-latex-recommended texlive-science",
    "pdftoppm": "poppler-utils",
}
#: commands a ``privdtol`` subcommand runs itself
SUBCOMMAND_TOOLS = {"report-compile": ("latexmk", "pdflatex")}
#: commands that must import the same ``privdtol`` as the workflow
SAME_PACKAGE = ("privdtol", "python")

_SPLIT = re.compile(r"&&|\|\||[|;]")


def commands(shellcmd: str | None) -> list[str]:
    """The commands of a rule's shell string, in order, each once (``privdtol`` followed by the
    commands its subcommand runs)."""
    out: list[str] = []
    for part in _SPLIT.split(shellcmd or ""):
        words = [w for w in part.split() if not re.fullmatch(r"\w+=\S*", w)]
        if not words:
            continue
        out.append(words[0])
        if words[0] == "privdtol" and len(words) > 1:
            out += SUBCOMMAND_TOOLS.get(words[1], ())
    return list(dict.fromkeys(out))


def required(rules: dict[str, str | None]) -> dict[str, list[str]]:
    """Checked command -> the rules (name -> shell string) that need it, sorted."""
    need: dict[str, set[str]] = {}
    for name, shellcmd in rules.items():
        for cmd in commands(shellcmd):
            if cmd in INSTALL:
                need.setdefault(cmd, set()).add(name)
    return {cmd: sorted(names) for cmd, names in need.items()}


def interpreter(executable: str) -> list[str] | None:
    """The command line of the Python that ``executable`` runs: itself for a ``python*``
    binary, the ``#!`` line of a Python console script; None for anything else."""
    if Path(executable).name.startswith("python"):
        return [executable]
    try:
        with open(executable, "rb") as fh:
            first = fh.readline().decode(errors="replace")
    except OSError:
        return None
    return first[2:].split() if first.startswith("#!") and "python" in first else None


def imported_from(python: list[str]) -> Path | None:
    """The directory of the ``privdtol`` package that ``python`` imports (None: it cannot)."""
    try:
        proc = subprocess.run(
            [*python, "-c", "import privdtol; print(privdtol.__file__)"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    return Path(proc.stdout.strip().splitlines()[-1]).resolve().parent


def problems(need: dict[str, list[str]], package: Path, which=shutil.which) -> list[str]:
    """One phrase per missing or mismatched command of ``need``, e.g.
    ``dot (for draw_rulegraph)``."""
    out = []
    for cmd in sorted(need, key=list(INSTALL).index):
        rules = need[cmd]
        shown = ", ".join(rules[:3]) + (f" and {len(rules) - 3} more" if len(rules) > 3 else "")
        path = which(cmd)
        if path is None:
            out.append(f"{cmd} (for {shown})")
        elif cmd in SAME_PACKAGE and (python := interpreter(path)) is not None:
            found = imported_from(python)
            if found == Path(package).resolve():
                continue
            where = f"the package in {found}" if found else "no privdtol package"
            out.append(f"{cmd} at {path} imports {where}, not {package} (for {shown})")
    return out


def advice(need: dict[str, list[str]], missing: list[str]) -> str:
    """How to get the commands that ``missing`` names."""
    names = {m.split()[0] for m in missing}
    apt = sorted({INSTALL[c] for c in names if INSTALL.get(c)})
    env_bin = Path(sys.executable).parent
    tips = []
    if names & {c for c, pkg in INSTALL.items() if pkg is None}:
        if (env_bin / "privdtol").exists():
            tips.append(
                f"put the workflow's environment first on PATH (source {env_bin}/activate,"
                f" or PATH={env_bin}:$PATH)"
            )
        else:
            tips.append("make setup, then source .venv/bin/activate")
    if apt:
        tips.append(f"make setup, or sudo apt-get install {' '.join(apt)}")
    return "; ".join(tips)


def message(need: dict[str, list[str]], package: Path, which=shutil.which) -> str | None:
    """The one line that stops the workflow, or None when every command is there."""
    missing = problems(need, package, which)
    if not missing:
        return None
    return (
        "privdtol: the requested jobs need commands this machine lacks: "
        + "; ".join(missing)
        + ". Install: "
        + advice(need, missing)
    )


def check_jobs(rules: dict[str, str | None], package: Path) -> None:
    """Exit with :func:`message` (status 1, one line on stderr) when a command is missing."""
    line = message(required(rules), package)
    if line is not None:
        print(line, file=sys.stderr, flush=True)
        sys.exit(1)
