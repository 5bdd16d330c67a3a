"""The ``ro-crate-metadata.json`` of a run archive (:mod:`privdtol.archive.build`): a Workflow
Run RO-Crate (profiles Process Run Crate, Workflow Run Crate, Workflow RO-Crate) written with the
``rocrate`` package.

It describes the run as one ``CreateAction``: the instrument is the workflow (``source/Snakefile``,
language Snakemake), its ``object`` the config files, its ``result`` every output file of the run
(each a ``File`` with ``sha256`` and ``contentSize``), ``startTime`` and ``endTime`` from the
per-rule logs and benchmarks (:func:`run_times`).  The workflow's ``softwareRequirements`` are
the installed distributions with their versions (the lockfile's packages when the environment
was made by ``make setup``), and ``#machine`` names the operating system, architecture, CPU and
cores.  Entities are added in sorted order and ``datePublished`` is the end time, so the JSON is
a function of the run's files and the environment.
"""

from __future__ import annotations

import json
import mimetypes
import os
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from privdtol.archive.layout import agg_dir_of, config_hash, outputs
from privdtol.errors import InputError

PROFILES = {
    "https://w3id.org/ro/wfrun/process/0.5": "Process Run Crate",
    "https://w3id.org/ro/wfrun/workflow/0.5": "Workflow Run Crate",
}
WFRUN_CONTEXT = "https://w3id.org/ro/terms/workflow-run/context"
FORMATS = {
    ".parquet": "application/vnd.apache.parquet",
    ".ipynb": "application/x-ipynb+json",
    ".tsv": "text/tab-separated-values",
    ".log": "text/plain",
    ".yaml": "application/yaml",
    ".lock": "text/plain",
    ".md": "text/markdown",
}


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(round(epoch), UTC).isoformat()


def run_times(workdir: Path, agg_dir: str = "results/agg") -> tuple[float, float]:
    """(start, end) of the run as Unix times, from its files' modification times.

    End: the latest mtime among the archived outputs.  Start: the earliest of each benchmarked
    job's mtime minus its wall time (``s`` of the benchmark TSV) and each log's mtime (a log is
    last written when its job ends, so a job without a benchmark counts from its end).  Both
    are approximate to the second and describe the last build of each file (a resumed run's
    start is the start of the oldest job whose output is still there).
    """
    import pandas as pd

    workdir = Path(workdir)
    files = [p for pat in outputs(agg_dir) for p in workdir.glob(pat) if p.is_file()]
    if not files:
        raise InputError("workdir", f"no outputs under {workdir}", "a built run")
    end = max(p.stat().st_mtime for p in files)
    starts = [p.stat().st_mtime for p in files if p.suffix == ".log"]
    for bench in (workdir / "results" / "benchmarks").rglob("*.tsv"):
        seconds = pd.read_csv(bench, sep="\t")["s"].max()
        starts.append(bench.stat().st_mtime - float(seconds))
    start = min(starts) if starts else min(p.stat().st_mtime for p in files)
    return min(start, end), end


def software() -> list[tuple[str, str]]:
    """The installed distributions (name, version), sorted by name."""
    found = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found[name.lower()] = (name, dist.version)
    return sorted(found.values(), key=lambda nv: nv[0].lower())


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.release()} {platform.machine()}, {cpu}, "
        f"{os.cpu_count()} cores; {platform.python_implementation()} {platform.python_version()}"
    )


def _file_props(member, role: str) -> dict:
    suffix = Path(member.arcname).suffix
    fmt = (
        FORMATS.get(suffix) or mimetypes.guess_type(member.arcname)[0] or "application/octet-stream"
    )
    return {
        "name": Path(member.arcname).name,
        "description": role,
        "encodingFormat": fmt,
        "contentSize": str(member.size()),
        "sha256": member.sha256(),
    }


def build_crate(*, name, git, config, contents, generated, workdir) -> bytes:
    """The JSON bytes of ``ro-crate-metadata.json`` for an archive (see the module docstring)."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.rocrate import ROCrate

    start, end = run_times(workdir, agg_dir_of(config))
    crate = ROCrate(gen_preview=False)
    crate.name = f"privdtol run {name.removesuffix('.tar.gz')}"
    crate.description = (
        "A run of the privdtol replication pipeline (Cesari & Colomboni, arXiv 2605.29148): "
        "source, lockfile, config, outputs, logs and benchmarks."
    )
    crate.license = "MIT"
    crate.root_dataset["datePublished"] = _iso(end)
    if WFRUN_CONTEXT not in crate.metadata.extra_contexts:
        crate.metadata.extra_contexts.append(WFRUN_CONTEXT)

    snakemake_version = {n.lower(): v for n, v in software()}.get("snakemake")
    snakefile = contents.source["source/Snakefile"]
    workflow = crate.add_workflow(
        dest_path="source/Snakefile",
        main=True,
        lang="snakemake",
        lang_version=snakemake_version,
        properties={**_file_props(snakefile, "the workflow"), "name": "privdtol Snakefile"},
    )
    for profile, title in PROFILES.items():
        entity = crate.add(
            ContextEntity(
                crate,
                profile,
                properties={
                    "@type": "CreativeWork",
                    "name": title,
                    "version": profile.rsplit("/", 1)[1],
                },
            )
        )
        crate.root_dataset.append_to("conformsTo", entity)

    apps = []
    for dist, version in software():
        apps.append(
            crate.add(
                ContextEntity(
                    crate,
                    f"#software-{dist.lower()}",
                    properties={
                        "@type": "SoftwareApplication",
                        "name": dist,
                        "softwareVersion": version,
                    },
                )
            )
        )
    workflow["softwareRequirements"] = apps
    host = crate.add(
        ContextEntity(
            crate,
            "#machine",
            properties={"@type": "Thing", "name": "machine", "description": machine()},
        )
    )

    source = crate.add_dataset(
        dest_path="source/",
        properties={
            "name": "source",
            "description": f"the repository's tracked files at commit {git['commit']}"
            + (" with uncommitted changes" if git["dirty"] else ""),
            "version": git["commit"],
        },
    )
    lock = contents.source.get("source/requirements.lock")
    if lock is not None:
        crate.add_file(dest_path=lock.arcname, properties=_file_props(lock, "the lockfile"))
    inputs = [
        crate.add_file(
            dest_path=f"source/{c}",
            properties=_file_props(contents.source[f"source/{c}"], "config file"),
        )
        for c in contents.configs
    ]
    outputs = [
        crate.add_file(dest_path=arc, properties=_file_props(m, "output of the run"))
        for arc, m in sorted(contents.outputs.items())
    ]
    for arc, m in sorted(generated.items()):
        crate.add_file(dest_path=arc, properties=_file_props(m, "written by privdtol archive"))
    crate.add_action(
        workflow,
        identifier="#run",
        object=inputs,
        result=outputs,
        properties={
            "@type": "CreateAction",
            "name": f"snakemake run, merged config sha256 {config_hash(config)}",
            "startTime": _iso(start),
            "endTime": _iso(end),
            "location": host,
            "description": f"source {source.id}, commit {git['commit']}",
        },
    )
    content = crate.metadata.generate()
    return (json.dumps(content, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()
