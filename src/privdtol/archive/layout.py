"""What identifies a run and what its archive holds: the sha256 of a file and of the merged
config, the git commit and dirty flag, the run's date (:func:`source_date_epoch`, which the
report prints and pdflatex's clock is pinned to), the archive's name (known before the archive is
built, so the report's provenance appendix can name it) and the globs of the archived outputs.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

#: the aggregated tables' directory of a config that names none (the schema's default)
AGG_DIR = "results/agg"
#: what else of a run the archive holds (globs relative to its working directory), when present
OTHER_OUTPUTS = (
    "results/checks/*.json",
    "results/findings.json",
    "results/notebooks/**/*.ipynb",
    "results/notebooks/**/*.html",
    "results/explorer/index.html",
    "results/figures/**/*",
    "results/tables/**/*",
    "results/report/replication_report.pdf",
    "results/benchmarks/**/*.tsv",
    "logs/**/*.log",
)
#: the archive rule's own log is written while the archive is built
EXCLUDE_PREFIXES = ("logs/archive/",)


def agg_dir_of(config: dict) -> str:
    """The run's ``agg_dir`` as a path relative to its working directory (``results/agg``
    unless the config says otherwise); one InputError line when it lies outside it (an
    ``allow_outside`` run: its tables cannot be archived under ``run/``)."""
    from privdtol.errors import InputError

    raw = str(config.get("agg_dir") or AGG_DIR)
    path = Path(os.path.normpath(raw)).as_posix()
    if Path(raw).is_absolute() or path == ".." or path.startswith("../") or path == ".":
        raise InputError(
            "agg_dir",
            f"{raw!r} is outside the run's working directory: it cannot be archived",
            "a directory inside the working directory (the default results/agg)",
        )
    return path


def required(agg_dir: str = AGG_DIR) -> tuple[str, ...]:
    """Globs a built run must have: its aggregated tables and its check records."""
    return (f"{agg_dir}/*.parquet", "results/checks/*.json")


def outputs(agg_dir: str = AGG_DIR) -> tuple[str, ...]:
    """Globs of everything of the run the archive holds."""
    return (f"{agg_dir}/*", *OTHER_OUTPUTS)


def replayed(agg_dir: str = AGG_DIR) -> tuple[str, ...]:
    """What ``make replay`` rebuilds and ``privdtol archive-compare`` compares byte for byte
    (path prefixes relative to the working directory)."""
    return (f"{agg_dir}/", "results/checks/", "results/findings.json")


def archive_name(git: dict, config: dict) -> str:
    """``privdtol-<commit[:12]>-<config hash[:16]>.tar.gz`` (``-dirty`` after the commit when
    the checkout has uncommitted changes, ``nogit`` when it is not a git checkout)."""
    commit = (git.get("commit") or "nogit")[:12] + ("-dirty" if git.get("dirty") else "")
    return f"privdtol-{commit}-{config_hash(config)[:16]}.tar.gz"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def config_hash(config: dict) -> str:
    """sha256 of the canonical JSON of the (merged) config."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _git(repo: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_info(repo: Path) -> dict:
    """The commit and whether the checkout has uncommitted changes (None when unknown)."""
    commit = _git(repo, "rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(_git(repo, "status", "--porcelain"))}


def source_date_epoch(repo: Path | None = None) -> int:
    """The report's date as a Unix time: ``$SOURCE_DATE_EPOCH`` when set (the
    reproducible-builds convention), else the commit time of ``repo``'s HEAD, else 0.

    The same sources give the same PDF bytes: pdflatex's clock is pinned to it."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env.isdigit():
        return int(env)
    stamp = _git(Path(repo) if repo is not None else Path.cwd(), "log", "-1", "--format=%ct")
    return int(stamp) if stamp and stamp.isdigit() else 0
