"""Build a temporary copy of the workflow and run Snakemake in it: the one helper every
pipeline-level test uses (the session's smoke build in ``conftest.py`` included)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from support.paths import BIN, ROOT

#: what a workflow run reads besides the installed package (``profiles`` links into workflow/)
WORKFLOW_FILES = ("Snakefile",)
WORKFLOW_DIRS = ("workflow", "config", "notebooks", "paper", "profiles")


def copy_workflow(
    dest: Path,
    *,
    dirs: Iterable[str] = WORKFLOW_DIRS,
    files: Iterable[str] = WORKFLOW_FILES,
    source: Path = ROOT,
) -> Path:
    """Copy the workflow's files and folders from ``source`` (default: the repository) into
    ``dest`` (made if missing), symbolic links kept and modification times preserved."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in files:
        shutil.copy2(source / name, dest / name)
    for name in dirs:
        shutil.copytree(source / name, dest / name, symlinks=True)
    return dest


def copy_build(build: Path, dest: Path) -> Path:
    """A private copy of a finished build (the session's ``smoke_run``), modification times
    kept so that Snakemake sees the same outputs as up to date."""
    shutil.copytree(build, dest, symlinks=True)
    return dest


def snakemake_env(path: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a Snakemake child: this interpreter's scripts first on ``PATH``
    (or ``path`` as the whole ``PATH``), plus ``extra``."""
    env = dict(os.environ)
    env["PATH"] = path if path is not None else f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def job_stats(output: str) -> dict[str, int]:
    """Rule name -> number of jobs, from the "Job stats" table of a Snakemake (dry) run's
    output; {} when the output has no such table (nothing to be done)."""
    table = re.search(r"^Job stats:\n.*?\n-+\s+-+\n(.*?)^total\s+\d+", output, re.S | re.M)
    if table is None:
        return {}
    return {name: int(n) for name, n in re.findall(r"^(\S+)\s+(\d+)\s*$", table.group(1), re.M)}


def run_snakemake(
    wd: Path,
    *args: str | Path,
    check: bool = True,
    env: dict[str, str] | None = None,
    timeout: float | None = 900,
    merge_output: bool = False,
) -> subprocess.CompletedProcess:
    """``snakemake *args`` in ``wd`` with the environment of :func:`snakemake_env` (or ``env``),
    output captured (with ``merge_output`` both streams in order in ``stdout``); with ``check``
    a nonzero exit fails the test with the output's tail."""
    cmd = [str(BIN / "snakemake"), *map(str, args)]
    proc = subprocess.run(
        cmd,
        cwd=wd,
        env=env if env is not None else snakemake_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_output else subprocess.PIPE,
        text=True,
        timeout=timeout,
        umask=0o022,
    )
    if check and proc.returncode != 0:
        tail = f"{proc.stdout[-4000:]}\n{(proc.stderr or '')[-4000:]}"
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}:\n{tail}")
    return proc
