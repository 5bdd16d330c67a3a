"""The run archive: one ``privdtol-<commit>-<config hash>.tar.gz`` holding the source at the
commit, the lockfile, the config files, the run's outputs (aggregated tables, check records,
executed notebooks with their HTML, figures, tables, the report PDF, per-rule logs and
benchmarks) and a Workflow Run RO-Crate (``ro-crate-metadata.json``, :mod:`privdtol.archive.crate`).

Layout of the archive (one top directory, the archive's name without ``.tar.gz``)::

    README.md                the two replay commands
    ro-crate-metadata.json   the RO-Crate: workflow, inputs, outputs with sha256, software, times
    source/                  the repository's tracked files (git ls-files) and the config files
    run/configfiles.txt      the config files of the run, in Snakemake's merge order, one a line
    run/results/...          the outputs of the run (never the per-cell simulation files)
    run/logs/...             the per-rule logs

The name is fixed before the archive is built
(:func:`~privdtol.archive.layout.archive_name`: commit and config hash), so the report's
provenance appendix can name it; the archive's sha256 cannot be inside the report it contains,
and is written beside the archive in ``<name>.sha256`` (``sha256sum -c`` format).

The tar is deterministic given its inputs: members sorted, every mtime set to the commit time,
owner root, modes 0644/0755, gzip without a timestamp.  What changes between two builds of the
same commit is the content of some inputs (logs, notebooks' execution times, the crate's start and
end times), not the packing.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from privdtol.archive.crate import build_crate
from privdtol.archive.layout import (
    AGG_DIR,
    EXCLUDE_PREFIXES,
    agg_dir_of,
    archive_name,
    git_info,
    outputs,
    replayed,
    required,
    sha256_file,
    source_date_epoch,
)
from privdtol.errors import InputError
from privdtol.pipeline.io import atomic_path, read_json


@dataclass
class Member:
    """One file of the archive: its bytes come from ``path`` or from ``data``."""

    arcname: str
    path: Path | None = None
    data: bytes | None = None
    executable: bool = False
    link: str | None = None  # a symbolic link (the repository's profiles/ is one)

    def read(self) -> bytes:
        return self.data if self.data is not None else Path(self.path).read_bytes()

    def sha256(self) -> str:
        if self.data is not None:
            return hashlib.sha256(self.data).hexdigest()
        return sha256_file(Path(self.path))

    def size(self) -> int:
        return len(self.data) if self.data is not None else Path(self.path).stat().st_size


@dataclass
class Contents:
    """What goes into the archive, by role (arcnames relative to the top directory)."""

    source: dict[str, Member] = field(default_factory=dict)
    configs: list[str] = field(default_factory=list)  # as given, relative to the workdir
    outputs: dict[str, Member] = field(default_factory=dict)  # run/results/..., run/logs/...


def tracked_files(repo: Path) -> list[str]:
    """``git ls-files`` of ``repo`` (one clear error when it is not a git checkout)."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z"], capture_output=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise InputError(
            "repo", f"git ls-files failed in {repo} ({err})", "a git checkout"
        ) from None
    if proc.returncode != 0:
        raise InputError("repo", f"{repo} is not a git checkout", "a git checkout")
    return sorted(p for p in proc.stdout.decode().split("\0") if p)


def _member(arcname: str, path: Path) -> Member:
    if path.is_symlink():
        return Member(arcname, path, link=os.readlink(path))
    return Member(arcname, path, executable=bool(path.stat().st_mode & 0o111))


def collect(repo: Path, workdir: Path, config_files, agg_dir: str = AGG_DIR) -> Contents:
    """The source (tracked files of ``repo`` as they are in its work tree, deleted ones left
    out), the config files (from ``workdir``, at their relative path under ``source/``) and
    the outputs under ``workdir`` (the aggregated tables from ``agg_dir``)."""
    repo, workdir = Path(repo), Path(workdir)
    contents = Contents()
    for rel in tracked_files(repo):
        path = repo / rel
        if path.is_symlink() or path.is_file():
            contents.source[f"source/{rel}"] = _member(f"source/{rel}", path)
    for f in config_files:
        path = Path(f)
        full = path if path.is_absolute() else workdir / path
        if not full.is_file():
            raise InputError("config", f"{f} does not exist", "a YAML or JSON file")
        try:
            rel = full.resolve().relative_to(workdir.resolve()).as_posix()
        except ValueError:
            raise InputError(
                "config", f"{f} is outside the working directory {workdir}", "a file under it"
            ) from None
        contents.source[f"source/{rel}"] = _member(f"source/{rel}", full)
        contents.configs.append(rel)
    for pattern in required(agg_dir):
        if not any(workdir.glob(pattern)):
            raise InputError(
                "workdir", f"no {pattern} under {workdir}", "the working directory of a built run"
            )
    for pattern in outputs(agg_dir):
        for path in workdir.glob(pattern):
            rel = path.relative_to(workdir).as_posix()
            if path.is_file() and not rel.startswith(EXCLUDE_PREFIXES):
                contents.outputs[f"run/{rel}"] = _member(f"run/{rel}", path)
    contents.outputs = dict(sorted(contents.outputs.items()))
    return contents


def _verdict(path: Path, field: str):
    """The verdict of a check record; a defect is one InputError line naming the file."""
    data = read_json(path, field)
    if not isinstance(data, dict):
        raise InputError(field, f"{path}: top level is not an object", "a check record")
    return data.get("verdict")


def readme(name: str, commit: str, dirty: bool | None, configs: list[str]) -> str:
    top = name.removesuffix(".tar.gz")
    warn = (
        "\n**The checkout had uncommitted changes**: `source/` holds the files as they were, "
        "which no commit records.\n"
        if dirty
        else ""
    )
    return f"""# {top}

A run of privdtol (commit `{commit}`, config files {", ".join(f"`{c}`" for c in configs)}):
the source, the lockfile (`source/requirements.lock`), the config, the outputs of the run under
`run/` and `ro-crate-metadata.json`, a Workflow Run RO-Crate listing every output file with
its sha256.
{warn}
## Replay

On a Debian/Ubuntu machine with python3 (3.11), from this directory:

```bash
make -C source setup                  # the locked environment (hashes checked), TeX, graphviz
make -C source replay RUN=../run      # rebuild the aggregated tables and checks, compare
```

The second command simulates every cell again, aggregates, runs the checks and compares
`source/results/agg/*`, `source/results/checks/*.json` and `source/results/findings.json` with
the archived ones under `run/results/`, byte for byte; it prints the verdicts and fails on any
difference.  `make -C source report` rebuilds the notebooks and the report as well.
"""


def _tarinfo(member: Member, top: str, epoch: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(f"{top}/{member.arcname}")
    info.mtime = epoch
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if member.link is not None:
        info.type = tarfile.SYMTYPE
        info.linkname = member.link
        info.mode = 0o777
    else:
        info.size = member.size()
        info.mode = 0o755 if member.executable else 0o644
    return info


def write_tar(members: list[Member], out: Path, epoch: int) -> None:
    """A deterministic tar.gz of ``members`` under one top directory, written atomically."""
    top = Path(out).name.removesuffix(".tar.gz")
    with (
        atomic_path(out) as tmp,
        open(tmp, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for member in sorted(members, key=lambda m: m.arcname):
            info = _tarinfo(member, top, epoch)
            data = None if member.link is not None else io.BytesIO(member.read())
            tar.addfile(info, data)


def build_archive(config: dict, config_files, repo: Path, workdir: Path, out_dir: Path) -> Path:
    """Write ``out_dir/<archive_name>`` and ``<archive_name>.sha256``; return the archive."""
    repo, workdir = Path(repo), Path(workdir)
    git = git_info(repo)
    if git["commit"] is None:
        raise InputError("repo", f"{repo} is not a git checkout", "a git checkout")
    name = archive_name(git, config)
    contents = collect(repo, workdir, config_files, agg_dir_of(config))
    generated = {
        "README.md": readme(name, git["commit"], git["dirty"], contents.configs).encode(),
        # one path a line (a path may hold spaces; make replay reads it with mapfile)
        "run/configfiles.txt": "".join(f"{c}\n" for c in contents.configs).encode(),
    }
    members = list(contents.source.values()) + list(contents.outputs.values())
    members += [Member(k, data=v) for k, v in generated.items()]
    crate = build_crate(
        name=name,
        git=git,
        config=config,
        contents=contents,
        generated={k: Member(k, data=v) for k, v in generated.items()},
        workdir=workdir,
    )
    members.append(Member("ro-crate-metadata.json", data=crate))
    out = Path(out_dir) / name
    write_tar(members, out, source_date_epoch(repo))
    digest = sha256_file(out)
    with atomic_path(out.with_name(name + ".sha256")) as tmp:
        tmp.write_text(f"{digest}  {name}\n")
    return out


def compare(
    run: Path, results: Path, agg_dir: str = AGG_DIR
) -> tuple[list[str], list[str], dict[str, str]]:
    """Compare the replayed files (:func:`.layout.replayed` of ``agg_dir``) of the archived run
    ``run`` (its working directory) with the rebuilt ones, ``run/results/<x>`` with
    ``results/<x>`` and any other ``run/<y>`` with ``<y>`` beside ``results``: (identical,
    problems, verdict of each check record).  The replayed files are those under ``run`` and
    those the archive's RO-Crate lists (one deleted from ``run`` is missing, not skipped); every
    file the crate lists is checked against its sha256 (:func:`.verify.verify_crate`)."""
    from privdtol.archive.verify import verify_crate

    run, results = Path(run), Path(results)
    prefixes = replayed(agg_dir)
    problems, listed = verify_crate(run.parent)
    names = {p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file()} | {
        name[4:] for name in listed if name.startswith("run/")
    }
    recorded = sorted(n for n in names if n.startswith(prefixes))
    if not recorded:
        raise InputError("run", f"no archived tables or checks under {run}", "run/")
    same, verdicts = [], {}
    for rel in recorded:
        path = run / rel
        new = results / rel[8:] if rel.startswith("results/") else results.parent / rel
        if not path.is_file():
            problems.append(f"{rel}: missing from the archive")
        elif not new.is_file():
            problems.append(f"{rel}: not rebuilt")
        elif new.read_bytes() != path.read_bytes():
            problems.append(
                f"{rel}: differs (sha256 {sha256_file(path)} archived, {sha256_file(new)} rebuilt)"
            )
        else:
            same.append(rel)
        if path.suffix == ".json" and rel.startswith("results/checks/"):
            if not (path.is_file() and new.is_file()):
                continue
            old_v, new_v = (_verdict(p, f) for p, f in ((path, "run"), (new, "results")))
            if old_v is None and new_v is None:  # a record with no verdict (power, multiverse)
                continue
            verdicts[path.stem] = old_v if old_v == new_v else f"{old_v} archived, {new_v} rebuilt"
    return same, problems, verdicts
