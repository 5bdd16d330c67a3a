"""Mutation testing of the package with mutmut (``make mutation``; docs/testing.md).

For each module group of tests/mutants/groups.yaml: a scratch copy of the tree in
``mutants-work/<group>/`` whose pyproject.toml carries that group's ``[tool.mutmut]`` (the files
to mutate, the fast-tier test files to select from), then ``mutmut run`` there (two workers),
then a summary: killed / survived / timed out / no tests per module, the survivors' diffs, and
the commit measured, in ``results/mutation/<group>.json`` and ``results/mutation/summary.md``.
A second run of a group resumes where the first stopped (mutmut keeps its results).

    python scripts/mutation.py [group ...]    # default: every group
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ROOT / "tests" / "mutants" / "groups.yaml"
WORK = ROOT / "mutants-work"
OUT = ROOT / "results" / "mutation"
#: what the tests read besides src/ and tests/
COPY = ("config", "workflow", "notebooks", "paper", "profiles", "benchmarks")
COPY_FILES = ("Snakefile", "Makefile", "README.md", "environment.yml", "requirements.lock")
#: mutmut's exit codes (mutmut/stats.py) folded into the summary's columns
STATUS = {1: "killed", 3: "killed", 0: "survived", 36: "timeout", -24: "timeout", 24: "timeout"}
STATUS |= {152: "timeout", 255: "timeout", 33: "no tests", 5: "no tests", None: "not run"}
COLUMNS = ("killed", "survived", "timeout", "no tests", "not run", "other")


def tool_config(group: dict) -> str:
    """The ``[tool.mutmut]`` table of one group."""
    lines = [
        "[tool.mutmut]",
        'source_paths = ["src"]',
        f"only_mutate = {json.dumps(group['mutate'])}",
        'pytest_add_cli_args = ["-m", "not slow", "-q", "-p", "no:cacheprovider"]',
        f"pytest_add_cli_args_test_selection = {json.dumps(group['tests'])}",
        "timeout_multiplier = 5.0",
        f"also_copy = {json.dumps([*COPY, *COPY_FILES])}",
    ]
    return "\n".join(lines) + "\n"


def prepare(name: str, group: dict) -> Path:
    """The group's scratch tree (sources and tests refreshed; mutmut's mutants/ kept)."""
    work = WORK / name
    work.mkdir(parents=True, exist_ok=True)
    for sub in ("src", "tests", *COPY):
        shutil.rmtree(work / sub, ignore_errors=True)
        shutil.copytree(ROOT / sub, work / sub, ignore=shutil.ignore_patterns("__pycache__"))
    for f in COPY_FILES:
        shutil.copy2(ROOT / f, work / f)
    text = (ROOT / "pyproject.toml").read_text()
    text = re.sub(r"\n\[tool\.mutmut\]\n.*?(?=\n\[|\Z)", "\n", text, flags=re.S)
    (work / "pyproject.toml").write_text(text.rstrip() + "\n\n" + tool_config(group))
    return work


def commit_measured() -> str:
    """The commit the tests and sources are copied from (+ "dirty" if they differ from it)."""
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run([*git, "status", "--porcelain", "src", "tests"], capture_output=True)
    return head.stdout.strip() + (" (dirty)" if dirty.stdout.strip() else "")


def run(name: str, group: dict, workers: int) -> float:
    work = prepare(name, group)
    (work / "commit.txt").write_text(commit_measured() + "\n")
    # the tests' subprocesses (python -m privdtol) import the mutated copy too; the directory
    # must exist before mutmut starts, or Python caches its absence and imports the original
    (work / "mutants" / "src").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(work / "mutants" / "src"))
    mutmut = Path(sys.executable).with_name("mutmut")
    start = time.perf_counter()
    log = OUT / f"{name}.log"
    with open(log, "w") as fh:
        proc = subprocess.run(
            [str(mutmut), "run", "--max-children", str(workers)],
            cwd=work,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        print(f"{name}: mutmut exited {proc.returncode}; see {log}", file=sys.stderr)
    return seconds


def mutant_diff(src: Path, key: str) -> str:
    """The changed lines of mutant ``key`` (e.g. ``privdtol.core.bounds.x_eta__mutmut_7``):
    mutmut keeps each mutant as a copy of the function, beside ``..._mutmut_orig``."""
    module, func = key.rsplit(".", 1)
    path = src.joinpath(*module.split(".")).with_suffix(".py")
    text = path.read_text()
    defs = {n.name: n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
    orig, mutant = (defs.get(f) for f in (func.rsplit("__mutmut_", 1)[0] + "__mutmut_orig", func))
    if orig is None or mutant is None:
        return ""
    a, b = (ast.get_source_segment(text, n).splitlines()[1:] for n in (orig, mutant))
    return "\n".join(
        line
        for line in difflib.unified_diff(a, b, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


def summarise(name: str, seconds: float | None) -> dict:
    """Per module: the count of each status, and the surviving mutants with their diffs."""
    work = WORK / name
    modules, survivors = {}, []
    for meta in sorted((work / "mutants" / "src").rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if not codes:
            continue
        module = str(meta.relative_to(work / "mutants" / "src"))[: -len(".py.meta")]
        counts = Counter(STATUS.get(c, "other") for c in codes.values())
        modules[module.replace("/", ".")] = {k: counts.get(k, 0) for k in COLUMNS}
        survivors += [k for k, c in codes.items() if c == 0]
    diffs = {key: mutant_diff(work / "mutants" / "src", key) for key in survivors}
    stamp = work / "commit.txt"
    commit = stamp.read_text().strip() if stamp.exists() else "unknown"
    record = {
        "group": name,
        "commit": commit,
        "seconds": seconds,
        "modules": modules,
        "survivors": diffs,
    }
    (OUT / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def markdown(records: list[dict]) -> str:
    head = "| module | " + " | ".join(COLUMNS) + " | killed / (killed + survived) |"
    lines = [head, "|---" * (len(COLUMNS) + 2) + "|"]
    total = Counter()
    for rec in records:
        for module, counts in rec["modules"].items():
            total.update(counts)
            k, s = counts["killed"], counts["survived"]
            score = f"{k / (k + s):.0%}" if k + s else "-"
            lines.append(
                f"| {module} | " + " | ".join(str(counts[c]) for c in COLUMNS) + f" | {score} |"
            )
    k, s = total["killed"], total["survived"]
    score = f"{k / (k + s):.1%}" if k + s else "-"
    lines.append("| **total** | " + " | ".join(str(total[c]) for c in COLUMNS) + f" | {score} |")
    commits = sorted({r["commit"] for r in records})
    return f"Measured at {', '.join(commits)}.\n\n" + "\n".join(lines) + "\n"


def main(argv=None) -> int:
    groups = yaml.safe_load(GROUPS.read_text())
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"groups (default: all): {', '.join(groups)}")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--summary-only", action="store_true", help="summarise earlier runs")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.groups) - set(groups))
    if unknown:
        parser.error(f"unknown group {unknown[0]!r}; allowed: {', '.join(groups)}")
    args.groups = args.groups or list(groups)
    OUT.mkdir(parents=True, exist_ok=True)
    records = []
    for name in args.groups:
        seconds = None if args.summary_only else run(name, groups[name], args.workers)
        if (WORK / name / "mutants").is_dir():
            records.append(summarise(name, seconds))
    (OUT / "summary.md").write_text(markdown(records))
    print((OUT / "summary.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
