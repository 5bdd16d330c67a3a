"""Running ``privdtol`` in tests, through one runner (:func:`run_cli`): in a child process
(``python -m privdtol``, what a shell or a Snakemake rule runs; with fake plugins installed, or
under a memory and a time limit) or in process through :func:`privdtol.cli.main` (the fuzz
tests' many examples); :func:`one_line_error`, the one-line refusal asserted in process; and the
inputs the commands read (a config file, a committed run for the archive commands)."""

from __future__ import annotations

import contextlib
import io
import os
import resource
import signal
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from privdtol.archive.build import build_archive
from privdtol.cli import main
from privdtol.pipeline.config import load_config_files
from privdtol.pipeline.io import write_table
from support.paths import SMOKE
from support.plugins import plugin_env

#: a limited child's address space (``RLIMIT_AS``, absolute) and its timeout
LIMIT_BYTES, LIMIT_SECONDS = 1_500_000_000, 30
#: a limited run in process: the address space it may add to the process, and its seconds
EXTRA_BYTES, IN_PROCESS_SECONDS = 3 << 30, 20
#: an unlimited child's timeout (a hung command fails its test instead of the run)
CHILD_SECONDS = 300


@dataclass(frozen=True)
class CliRun:
    """One run of ``privdtol``: its arguments (without the interpreter), exit code, output and
    wall-clock seconds."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_cli(
    *args,
    cwd: Path | None = None,
    plugins=(),
    limited: bool = False,
    in_process: bool = False,
    env: dict[str, str] | None = None,
) -> CliRun:
    """``privdtol ARGS`` (each turned into a string), output captured as text.

    In a child process (``python -m privdtol`` in ``cwd``) unless ``in_process``; ``plugins``,
    directories of :func:`support.plugins.fake_plugin`, are installed in the child (the
    registries are built at import: each plugin set needs a fresh interpreter).  ``limited``:
    a child under :data:`LIMIT_BYTES` of address space and :data:`LIMIT_SECONDS`; in process,
    under :data:`EXTRA_BYTES` more than the process holds and :data:`IN_PROCESS_SECONDS`
    (:func:`limits`, which raise :class:`Timeout` or MemoryError).  ``env``: the child's whole
    environment (a locale, say), instead of this process's."""
    args = tuple(str(a) for a in args)
    start = time.monotonic()
    if in_process:
        assert cwd is None and not plugins and env is None, "in process: no cwd, plugins, env"
        out, err = io.StringIO(), io.StringIO()
        with (
            limits() if limited else contextlib.nullcontext(),
            contextlib.redirect_stderr(err),
            contextlib.redirect_stdout(out),
        ):
            try:
                code = main(list(args))
            except SystemExit as exit_:  # argparse
                code = exit_.code
        return CliRun(args, code, out.getvalue(), err.getvalue(), time.monotonic() - start)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))

    proc = subprocess.run(
        [sys.executable, "-m", "privdtol", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=plugin_env(*plugins) if plugins else env,
        preexec_fn=limit if limited else None,
        timeout=LIMIT_SECONDS if limited else CHILD_SECONDS,
    )
    return CliRun(args, proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


class Timeout(Exception):
    pass


@contextlib.contextmanager
def limits():
    """A real-time alarm of :data:`IN_PROCESS_SECONDS` and an address-space limit of the
    current size + :data:`EXTRA_BYTES` (soft limits, restored afterwards)."""
    with open("/proc/self/statm") as fh:
        size = int(fh.read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + EXTRA_BYTES if hard == resource.RLIM_INFINITY else min(hard, size + EXTRA_BYTES)

    def alarm(signum, frame):
        raise Timeout(f"more than {IN_PROCESS_SECONDS} s")

    old = signal.signal(signal.SIGALRM, alarm)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    signal.alarm(IN_PROCESS_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, old)


def one_line(stderr: str) -> str:
    """The one line of a refusal's stderr (no traceback, no second line)."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def one_line_error(capsys, args, naming: str) -> str:
    """Run :func:`privdtol.cli.main` on ``args``; assert exit 2 with one stderr line that names
    ``naming``, no traceback and no stdout; return that line."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert naming in lines[0], lines[0]
    assert "Traceback" not in err and out == ""
    return lines[0]


def smoke_config() -> dict:
    """The smoke config (``config/smoke.yaml``) as a dict, to change before writing it."""
    return yaml.safe_load(SMOKE.read_text())


def write_config(tmp_path: Path, cfg: dict | str, name: str = "c.yaml") -> Path:
    """``cfg`` written to ``tmp_path/name``: a dict as YAML, a string as is."""
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cfg) if isinstance(cfg, dict) else cfg)
    return path


# ----------------------------------------------------------------- the archive commands' input
def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo`` with a fixed author and commit date; its stdout, stripped."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z"},
    )
    return proc.stdout.strip()


def committed_run(tmp_path: Path) -> Path:
    """A tiny committed repository that is also the working directory of a 'built' run: an
    aggregated table (parquet and CSV), a check record, a cell file and the archive rule's own
    log (neither archived), a benchmark and a per-rule log."""
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / "Snakefile").write_text("rule all:\n    input: []\n")
    (repo / "requirements.lock").write_text("x==1 --hash=sha256:00\n")
    (repo / "config" / "smoke.yaml").write_bytes(SMOKE.read_bytes())
    (repo / ".gitignore").write_text("results/\nlogs/\n")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    write_table(pd.DataFrame({"a": [1, 2]}), repo / "results" / "agg" / "horizon.parquet")
    write_table(pd.DataFrame({"a": [1, 2]}), repo / "results" / "agg" / "horizon.csv")
    (repo / "results" / "checks").mkdir(parents=True)
    (repo / "results" / "checks" / "C2.json").write_text('{"verdict": "PASS"}\n')
    (repo / "results" / "sim").mkdir()
    (repo / "results" / "sim" / "cell.parquet").write_bytes(b"not archived")
    (repo / "results" / "benchmarks" / "simulate").mkdir(parents=True)
    (repo / "results" / "benchmarks" / "simulate" / "b.tsv").write_text("s\tmax_rss\n2.5\t10\n")
    (repo / "logs" / "archive").mkdir(parents=True)
    (repo / "logs" / "archive" / "archive.log").write_text("being written\n")
    (repo / "logs" / "aggregate").mkdir()
    (repo / "logs" / "aggregate" / "horizon.log").write_text("ok\n")
    return repo


def archive_run(repo: Path, out_dir: Path) -> Path:
    """:func:`privdtol.archive.build.build_archive` of the run in ``repo`` (as made by
    :func:`committed_run`) with its smoke config, written to ``out_dir``; the archive's path."""
    cfg = load_config_files([repo / "config" / "smoke.yaml"])
    return build_archive(cfg, ["config/smoke.yaml"], repo, repo, out_dir)


def write_crate(top: Path) -> Path:
    """A minimal RO-Crate in ``top`` listing every file under ``top/run`` with its sha256
    (hashlib's: the manifest an unpacked archive carries), for compare's tests."""
    import hashlib
    import json

    graph = [
        {"@id": p.relative_to(top).as_posix(), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted((top / "run").rglob("*"))
        if p.is_file()
    ]
    path = top / "ro-crate-metadata.json"
    path.write_text(json.dumps({"@graph": graph}))
    return path


def unpacked(archive: Path, where: Path) -> Path:
    """The top directory of ``archive`` extracted into ``where``."""
    with tarfile.open(archive) as tar:
        tar.extractall(where, filter="data")
    return where / archive.name.removesuffix(".tar.gz")


def archive_members(path: Path) -> dict[str, tarfile.TarInfo]:
    """The members of a run archive by their path below its top directory."""
    with tarfile.open(path) as tar:
        return {m.name.split("/", 1)[1]: m for m in tar.getmembers()}
