"""Provenance of a run for the report's appendix: git commit and dirty flag, the report's date,
Python and package versions, the configuration files with their hashes, the number of runs,
per-rule runtimes from Snakemake's benchmark files, the machine's cores, and the executed notebooks.

The report's date is :func:`~privdtol.archive.layout.source_date_epoch`, the one place it is
decided (beside the commit and the config hash that name the run archive): both
``privdtol report-assets`` (which prints it) and ``privdtol report-compile`` (which pins
pdflatex's clock to it) call it; nothing reads it back out of a generated file.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path

import pandas as pd

from privdtol.archive.layout import (
    archive_name,
    config_hash,
    git_info,
    sha256_file,
    source_date_epoch,
)
from privdtol.errors import InputError
from privdtol.pipeline.run_config import flat_overrides
from privdtol.report.latex.text import TeX, fmt_num, mathify, tex_escape, texttt

PACKAGES = (
    "privdtol",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "pyyaml",
    "jinja2",
    "snakemake",
    "papermill",
    "jupytext",
    "nbconvert",
    "matplotlib",
    "seaborn",
)

#: packages of :data:`PACKAGES` with an entry in paper/references.bib (cited beside their version)
PACKAGE_REFERENCES = {
    "numpy": "numpy",
    "scipy": "scipy",
    "snakemake": "snakemake",
    "papermill": "papermill",
    "jupytext": "jupytext",
}


def report_date(epoch: int) -> str:
    """``YYYY-MM-DD`` (UTC) of :func:`source_date_epoch`; "undated" for 0."""
    return time.strftime("%Y-%m-%d", time.gmtime(epoch)) if epoch > 0 else "undated"


def package_versions() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def tex_version() -> str:
    try:
        proc = subprocess.run(["pdflatex", "--version"], capture_output=True, text=True, timeout=30)
        return proc.stdout.splitlines()[0] if proc.returncode == 0 and proc.stdout else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "not installed"


def read_benchmarks(results: Path) -> pd.DataFrame:
    """All ``results/benchmarks/**/*.tsv`` summed per rule.

    The rule is the first directory below ``benchmarks/`` (the file stem for files directly in
    it).  Columns: rule, jobs, total_s, max_s, max_rss_mb.
    """
    root = Path(results) / "benchmarks"
    rows = []
    for path in sorted(root.rglob("*.tsv")) if root.exists() else []:
        rel = path.relative_to(root)
        rule = rel.parts[0] if len(rel.parts) > 1 else path.stem
        try:
            df = pd.read_csv(path, sep="\t")
        except Exception as err:  # pandas raises several types
            raise InputError("results", f"{path}: not a Snakemake benchmark file ({err})") from None
        if "s" not in df.columns:
            raise InputError("results", f"{path}: missing column 's'", "Snakemake benchmark TSV")
        rss = pd.to_numeric(df.get("max_rss", pd.Series(dtype=float)), errors="coerce")
        rows.append(
            {
                "rule": rule,
                "s": pd.to_numeric(df["s"], errors="coerce").mean(),
                "rss": rss.max() if len(rss) else float("nan"),
            }
        )
    if not rows:
        return pd.DataFrame(columns=["rule", "jobs", "total_s", "max_s", "max_rss_mb"])
    df = pd.DataFrame(rows)
    return (
        df.groupby("rule", sort=True)
        .agg(
            jobs=("s", "size"), total_s=("s", "sum"), max_s=("s", "max"), max_rss_mb=("rss", "max")
        )
        .reset_index()
    )


def notebooks_list(results: Path) -> list[str]:
    root = Path(results) / "notebooks"
    if not root.exists():
        return []
    return sorted(
        str(p.relative_to(results))
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".ipynb", ".html")
    )


def archive_row(git: dict, config: dict) -> TeX:
    """The run archive's file name (fixed by the commit and the config hash before it is built,
    :func:`privdtol.archive.layout.archive_name`) and where its sha256 is: beside it, since the
    archive holds this report."""
    name = archive_name(git, config)
    return TeX(
        texttt(f"results/archive/{name}", "any")
        + " (make archive); its sha256 is in "
        + texttt(f"{name}.sha256", "any")
        + " beside it, written after this report, which the archive holds"
    )


def notebook_links(paths: list[str]) -> list[TeX]:
    """One entry per executed notebook: its name and links to its files (relative to the PDF
    in ``results/report/``)."""
    stems: dict[str, list[str]] = {}
    for p in paths:
        if Path(p).stem != "index":  # the index is linked on its own
            stems.setdefault(Path(p).stem, []).append(p)
    return [
        TeX(
            texttt(stem)
            + ": "
            + ", ".join(rf"\href{{../{p}}}{{{Path(p).suffix.lstrip('.')}}}" for p in sorted(files))
        )
        for stem, files in stems.items()
    ]


def repository_url(repo: Path) -> str | None:
    """The code repository's public address (``git remote get-url origin``, an SSH address
    rewritten to HTTPS), or None when there is no remote."""
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        return None
    if out.startswith("git@") and ":" in out:
        host, path = out[4:].split(":", 1)
        out = f"https://{host}/{path}"
    return out.removesuffix(".git") if out.startswith("http") else None


def failed_rows(config: dict, results: Path) -> list[tuple]:
    """Provenance rows naming the cells left out because their plugin failed
    (:func:`privdtol.pipeline.failures.failed_cells`): one row per experiment, each cell with
    the plugin's one-line reason, escaped; none when every cell was computed."""
    from privdtol.pipeline.failures import failed_cells

    agg = Path(config.get("agg_dir") or Path(results) / "agg")
    rows = []
    for experiment, cells in failed_cells(agg).items():
        text = "; ".join(f"{cell}: {why}" for cell, why in cells.items())
        rows.append((TeX(f"Cells left out of {texttt(experiment)}"), tex_escape(text)))
    return rows


def provenance(
    config: dict,
    results: Path,
    config_files,
    n_experiments: int,
    total_runs: int,
    repo: Path | None = None,
    sources: dict | None = None,
) -> dict:
    """The context of ``provenance.tex.j2``: the run's macros (LaTeX), the rows of the
    provenance table, the per-rule benchmark rows and the executed notebooks.

    ``config`` is the config the run used, ``config_files`` the files it was read from (the
    workflow's: its merged config, results/config.merged.yaml); ``sources``
    (:func:`privdtol.pipeline.run_config.read_sources`) the config files it was merged from,
    with their sha256, and the ``--config`` overrides, each listed (default: ``config_files``
    themselves, no override)."""
    repo = Path(repo) if repo is not None else Path.cwd()
    git = git_info(repo)
    epoch = source_date_epoch(repo)
    commit = git["commit"] or "unknown (not a git checkout)"
    dirty = {True: "yes (uncommitted changes)", False: "no", None: "unknown"}[git["dirty"]]
    merged = []
    for f in config_files:
        p = Path(f)
        if not p.exists():
            raise InputError("config", f"{p} does not exist", "a YAML or JSON file")
        merged.append((str(f), sha256_file(p)))
    if sources is None:
        files, overrides, merged = merged, [], []
    else:
        files = [(s["path"], s["sha256"]) for s in sources["files"]]
        overrides = flat_overrides(sources["overrides"])
    override_list = ", ".join(texttt(f"--config {k}={json.dumps(v)}", "path") for k, v in overrides)
    url = repository_url(repo)
    rows = [
        ("Code repository", TeX(rf"\url{{{url}}}") if url else "no public remote configured"),
        ("Git commit", texttt(commit, "any")),
        ("Uncommitted changes", dirty),
        ("Commit date", report_date(epoch) if epoch else "unknown"),
    ]
    rows += [
        (TeX(f"Config file {texttt(f, 'path')}"), TeX("sha256 " + texttt(digest, "any")))
        for f, digest in files
    ]
    rows += [
        (TeX(f"Override {texttt(f'--config {key}', 'path')}"), TeX(texttt(json.dumps(value))))
        for key, value in overrides
    ]
    if sources is not None and not overrides:
        rows.append(("Overrides (--config)", "none"))
    rows += [
        (TeX(f"Merged config {texttt(f, 'path')}"), TeX("sha256 " + texttt(digest, "any")))
        for f, digest in merged
    ]
    rows += [
        ("Merged config (canonical JSON)", TeX("sha256 " + texttt(config_hash(config), "any"))),
        ("Experiments aggregated", str(n_experiments)),
        ("Simulated runs (all cells)", fmt_num(total_runs)),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        (
            "Machine",
            TeX(
                f"{tex_escape(platform.system())} {texttt(platform.machine())}, "
                f"{os.cpu_count()} cores"
            ),
        ),
        ("TeX", tex_version()),
    ]
    versions = package_versions()
    rows += [
        (
            TeX(
                texttt(k)
                + (rf" \citep{{{PACKAGE_REFERENCES[k]}}}" if k in PACKAGE_REFERENCES else "")
            ),
            v,
        )
        for k, v in versions.items()
    ]
    rows.append(("Run archive", archive_row(git, config)))
    rows += failed_rows(config, results)
    bench = read_benchmarks(results)
    return {
        "commit": texttt(commit, "any"),
        "commit_short": texttt(git["commit"][:12] if git["commit"] else "unknown", "any"),
        "dirty": dirty,
        "version": versions["privdtol"],
        "date": report_date(epoch),
        "repository": TeX(rf"\url{{{url}}}") if url else TeX("code repository: no public remote"),
        "config_hash": texttt(config_hash(config)[:16], "any"),
        # the files, and the overrides after them (the sections say "the configuration
        # \ConfigFiles{}": with an override, that is what ran)
        "config_files": TeX(
            (", ".join(texttt(f, "path") for f, _ in files) if files else "none")
            + (f" with {override_list}" if overrides else "")
        ),
        "overrides": TeX(override_list or "none"),
        "config_description": mathify(config.get("description") or "no description given"),
        "rows": rows,
        "benchmarks": [
            {
                "rule": texttt(r.rule),
                "jobs": int(r.jobs),
                "total_s": fmt_num(r.total_s),
                "max_s": fmt_num(r.max_s),
                "max_rss_mb": fmt_num(r.max_rss_mb),
            }
            for r in bench.itertuples()
        ],
        "benchmark_jobs": int(bench["jobs"].sum()) if len(bench) else 0,
        "benchmark_total_s": fmt_num(bench["total_s"].sum()) if len(bench) else TeX("n/a"),
        "notebooks": notebook_links(notebooks_list(results)),
    }
