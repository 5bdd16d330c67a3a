"""Provenance of a run for the report's appendix: git commit and dirty flag, Python and package
versions, the configuration files with their hashes, the number of runs, per-rule runtimes from
Snakemake's benchmark files, the machine's cores, and where the executed notebooks are."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import pandas as pd

from privdtol.errors import InputError
from privdtol.report.latex import fmt_num, newcommand, tex_escape

PACKAGES = ("privdtol", "numpy", "scipy", "pandas", "pyarrow", "pyyaml", "jinja2", "snakemake",
            "papermill", "jupytext", "nbconvert", "matplotlib", "seaborn")


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
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_info(repo: Path) -> dict:
    """Commit, its date (ISO, and the epoch for SOURCE_DATE_EPOCH), and the dirty flag."""
    commit = _git(repo, "rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None, "date": None, "epoch": None}
    status = _git(repo, "status", "--porcelain")
    epoch = _git(repo, "log", "-1", "--format=%ct")
    date = _git(repo, "log", "-1", "--format=%cs")
    return {"commit": commit, "dirty": bool(status), "date": date,
            "epoch": int(epoch) if epoch else None}


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
        proc = subprocess.run(["pdflatex", "--version"], capture_output=True, text=True,
                              timeout=30)
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
            raise InputError("results", f"{path}: not a Snakemake benchmark file ({err})") \
                from None
        if "s" not in df.columns:
            raise InputError("results", f"{path}: missing column 's'",
                             "Snakemake benchmark TSV")
        rss = pd.to_numeric(df.get("max_rss", pd.Series(dtype=float)), errors="coerce")
        rows.append({"rule": rule, "s": pd.to_numeric(df["s"], errors="coerce").mean(),
                     "rss": rss.max() if len(rss) else float("nan")})
    if not rows:
        return pd.DataFrame(columns=["rule", "jobs", "total_s", "max_s", "max_rss_mb"])
    df = pd.DataFrame(rows)
    return (df.groupby("rule", sort=True)
              .agg(jobs=("s", "size"), total_s=("s", "sum"), max_s=("s", "max"),
                   max_rss_mb=("rss", "max"))
              .reset_index())


def notebooks_list(results: Path) -> list[str]:
    root = Path(results) / "notebooks"
    if not root.exists():
        return []
    return sorted(str(p.relative_to(results)) for p in root.rglob("*")
                  if p.is_file() and p.suffix in (".ipynb", ".html"))


def _kv_table(rows: list[tuple[str, str]]) -> str:
    body = "\n".join(rf"{k} & {v} \\" for k, v in rows)
    return ("\\begin{tabular}{@{}>{\\raggedright\\arraybackslash}p{4.2cm}"
            ">{\\raggedright\\arraybackslash}p{11.6cm}@{}}\n\\toprule\n" + body
            + "\n\\bottomrule\n\\end{tabular}\n")


def _tt(text: str, anywhere: bool = False) -> str:
    """Typewriter text breakable after "/" (paths) or anywhere (hashes)."""
    if anywhere:
        return r"\texttt{" + r"\allowbreak{}".join(tex_escape(ch) for ch in text) + "}"
    return r"\texttt{" + tex_escape(text).replace("/", r"/\allowbreak{}") + "}"


def provenance_tex(config: dict, results: Path, config_files, agg: dict,
                   repo: Path | None = None, total_runs: int = 0) -> str:
    """``provenance.tex``: macros for the date/commit and the appendix tables."""
    repo = Path(repo) if repo is not None else Path.cwd()
    git = git_info(repo)
    lines = ["% generated by privdtol report-assets: do not edit"]
    commit = git["commit"] or "unknown (not a git checkout)"
    dirty = {True: "yes (uncommitted changes)", False: "no", None: "unknown"}[git["dirty"]]
    lines += [newcommand("GitCommit", _tt(commit, True)),
              newcommand("GitCommitShort", _tt(git["commit"][:12] if git["commit"]
                                               else "unknown", True)),
              newcommand("GitDirty", tex_escape(dirty)),
              newcommand("ReportDate", tex_escape(git["date"] or "undated")),
              newcommand("ConfigHash", _tt(config_hash(config)[:16], True))]
    files = []
    for f in config_files:
        p = Path(f)
        if not p.exists():
            raise InputError("config", f"{p} does not exist", "a YAML or JSON file")
        files.append((str(f), sha256_file(p)))
    lines.append(newcommand("ConfigFiles", ", ".join(_tt(f) for f, _ in files) or "none"))
    rows = [("Git commit", _tt(commit, True)), ("Uncommitted changes", tex_escape(dirty)),
            ("Commit date", tex_escape(git["date"] or "unknown"))]
    for f, digest in files:
        rows.append((f"Config file {_tt(f)}", "sha256 " + _tt(digest, True)))
    rows += [("Merged config (canonical JSON)", "sha256 " + _tt(config_hash(config), True)),
             ("Experiments aggregated", str(len(agg))),
             ("Simulated runs (all cells)", fmt_num(total_runs)),
             ("Python", tex_escape(f"{platform.python_implementation()} "
                                   f"{platform.python_version()}")),
             ("Machine", tex_escape(f"{platform.system()} {platform.machine()}, "
                                    f"{os.cpu_count()} cores")),
             ("TeX", tex_escape(tex_version()))]
    rows += [(rf"\texttt{{{tex_escape(k)}}}", tex_escape(v))
             for k, v in package_versions().items()]
    lines.append(r"\newcommand{\ProvenanceTable}{%" + "\n" + _kv_table(rows) + "}")
    bench = read_benchmarks(results)
    if len(bench):
        body = "\n".join(
            rf"\texttt{{{tex_escape(r.rule)}}} & {int(r.jobs)} & {fmt_num(r.total_s)} & "
            rf"{fmt_num(r.max_s)} & {fmt_num(r.max_rss_mb)} \\" for r in bench.itertuples())
        total = fmt_num(bench["total_s"].sum())
        table = ("\\begin{tabular}{@{}lrrrr@{}}\n\\toprule\n\\textbf{Rule} & \\textbf{Jobs} & "
                 "\\textbf{Total (s)} & \\textbf{Slowest job (s)} & \\textbf{Max RSS (MB)} \\\\\n"
                 f"\\midrule\n{body}\n\\midrule\nAll rules & {int(bench['jobs'].sum())} & "
                 f"{total} & & \\\\\n\\bottomrule\n\\end{{tabular}}\n")
    else:
        table = r"\NotRun{no Snakemake benchmark files under results/benchmarks/}" + "\n"
    lines.append(r"\newcommand{\BenchmarkTable}{%" + "\n" + table + "}")
    nbs = notebooks_list(results)
    nb = ("\\begin{itemize}\n" + "\n".join(rf"\item {_tt(n)}" for n in nbs) + "\n\\end{itemize}"
          if nbs else r"\NotRun{no executed notebooks under results/notebooks/}")
    lines.append(r"\newcommand{\NotebookList}{%" + "\n" + nb + "\n}")
    lines.append(newcommand("SourceDateEpoch", str(git["epoch"] or 0)))
    return "\n".join(lines) + "\n"
