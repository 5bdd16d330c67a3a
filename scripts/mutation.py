"""Mutation testing of the package with mutmut (``make mutation``; docs/testing.md).

For each module group of tests/mutants/groups.yaml: a scratch copy of the tree in
``mutants-work/<group>/`` whose pyproject.toml carries that group's ``[tool.mutmut]`` (the files
to mutate, the fast-tier test files to select from), then ``mutmut run`` there (two workers),
then a summary: killed / survived / timed out / no tests per module, the survivors' diffs, and
the commit measured, in ``results/mutation/<group>.json`` and ``results/mutation/summary.md``.
A second run of a group resumes where the first stopped (mutmut keeps its results); a run of
every mutant of a group is a census, frozen at its first complete measurement
(scripts/mutation_census.py).

A survivor listed in tests/mutants/dispositions.yaml (its function and its diff) counts as
``equivalent`` (no test can tell it from the original) instead of ``survived``; the mutants of a
function listed there as dead code (no caller in the package, the notebooks or the workflow)
count as ``dead``.  The score of a module is (killed + timeout) / (killed + timeout + survived +
no tests): equivalent and dead mutants are left out, untested ones count against it.  Every group
measured so far (each ``mutants-work/<group>/``) goes into ``results/mutation/summary.json``
(machine-readable: per module the counts and the score, per group the commit and the seconds)
and ``summary.md``.

    python scripts/mutation.py [group ...]    # default: every group; "core,verdict" works too
    python scripts/mutation.py --summary-only # re-summarise what has been measured
"""

from __future__ import annotations

import argparse
import ast
import difflib
import functools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_census
from mutation_report import COLUMNS, markdown, score, summary

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ROOT / "tests" / "mutants" / "groups.yaml"
DISPOSITIONS = ROOT / "tests" / "mutants" / "dispositions.yaml"
WORK = ROOT / "mutants-work"
OUT = ROOT / "results" / "mutation"
#: what the tests read besides src/ and tests/
COPY = ("config", "workflow", "notebooks", "paper", "profiles", "benchmarks")
COPY_FILES = ("Snakefile", "Makefile", "README.md", "environment.yml", "requirements.lock")
#: mutmut's exit codes (mutmut/stats.py) folded into the summary's columns
STATUS = {1: "killed", 3: "killed", 0: "survived", 36: "timeout", -24: "timeout", 24: "timeout"}
STATUS |= {152: "timeout", 255: "timeout", 33: "no tests", 5: "no tests", None: "not run"}


def tool_config(group: dict) -> str:
    """The ``[tool.mutmut]`` table of one group."""
    lines = [
        "[tool.mutmut]",
        'source_paths = ["src"]',
        f"only_mutate = {json.dumps(group['mutate'])}",
        "pytest_add_cli_args = "
        + json.dumps(
            ["-m", "not slow", "-q", "-p", "no:cacheprovider", *group.get("pytest_args", [])]
        ),
        f"pytest_add_cli_args_test_selection = {json.dumps(group['tests'])}",
        "timeout_multiplier = 5.0",
        # a worker's limits are (recorded test time + constant) x multiplier (x 2 for CPU): with
        # mutmut's constant of 1 s the wall limit of a 0.1 s test is 5.5 s, which the shared
        # machine's load (or a cold cache) exceeds for mutants that fail at once
        "timeout_constant = 10.0",
        # fork each mutant's worker from a fork server that has only collected the tests, not
        # from mutmut's main process, which ran them all to record the stats: forked from there,
        # every lru_cache of the package is warm and a cached function's mutant never runs
        'process_isolation = "forkserver"',
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
    # mutmut rewrites the .py files of mutants/src on every run but copies the package's other
    # files (config.schema.yaml, templates) only once: refresh them, or a resumed run tests
    # today's code against an old schema
    for path in (ROOT / "src").rglob("*"):
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts:
            target = work / "mutants" / path.relative_to(ROOT)
            if target.parent.is_dir():
                shutil.copy2(path, target)
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


def open_mutants(name: str) -> list[str]:
    """The mutants of an earlier run of group ``name`` that survived or had no tests (not the
    equivalent and dead ones): what ``--rerun`` runs again after new tests were added."""
    path = OUT / f"{name}.json"
    if not path.exists():
        return []
    record = json.loads(path.read_text())
    _, dead = load_dispositions()
    src = WORK / name / "mutants" / "src"
    names = list(record["survivors"])
    for meta in sorted(src.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        names += [k for k, c in codes.items() if c == 33 and function_of(k) not in dead]
    return names


def _selection(pyproject: Path) -> list[str]:
    """The lines of a scratch tree's ``[tool.mutmut]`` that decide which tests run (mutmut
    resets every result when they change)."""
    if not pyproject.exists():
        return []
    return [ln for ln in pyproject.read_text().splitlines() if ln.startswith("pytest_add_cli_args")]


#: a mutant name that matches nothing: ``mutmut run`` then generates the mutants and records
#: the tests of each function, and stops before running any mutant
NO_MUTANT = "privdtol.no_such_module.x_none__mutmut_0"


def sample(name: str, per_module: int, fresh: bool = False) -> list[str]:
    """Up to ``per_module`` of each module's mutants not run yet (dead functions left out),
    drawn uniformly at random (seeded by the group and module names: a rerun draws the same).

    ``fresh``: ``per_module`` more of each module, drawn (with another seed) among the mutants
    that no earlier run of the group has run (``seen``, kept across mutmut's resets), and
    recorded in ``<group>-fresh.json`` as a new round (the earlier round's record is replaced):
    a sample that no test was written against, whose score is an unbiased estimate of the
    module's (docs/testing.md)."""
    src = WORK / name / "mutants" / "src"
    _, dead = load_dispositions()
    seen = set(_read(OUT / f"{name}-seen.json", []))
    names = []
    for meta in sorted(src.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        todo = sorted(k for k, c in codes.items() if c is None and function_of(k) not in dead)
        if fresh:
            todo = [k for k in todo if k not in seen]
            rng = random.Random(f"{name}:{meta.relative_to(src)}:fresh")
            names += rng.sample(todo, min(len(todo), per_module))
            continue
        done = sum(c is not None for c in codes.values())
        rng = random.Random(f"{name}:{meta.relative_to(src)}")
        names += rng.sample(todo, max(0, min(len(todo), per_module - done)))
    if fresh:
        earlier = _fresh_round(name)
        if earlier["counts"] is not None:  # the measured round goes to the group's history
            history = _read(OUT / f"{name}-rounds.json", [])
            (OUT / f"{name}-rounds.json").write_text(json.dumps([*history, earlier]) + "\n")
        record = {"mutants": sorted(names), "counts": None}
        (OUT / f"{name}-fresh.json").write_text(json.dumps(record, indent=0) + "\n")
    return names


def _read(path: Path, default):
    """A JSON file's content, ``default`` if there is none."""
    return json.loads(path.read_text()) if path.exists() else default


def _fresh_round(name: str) -> dict:
    """The group's fresh round: its mutants and, once every one has a verdict, the counts
    frozen at that first measurement (later runs with new tests do not change them)."""
    data = _read(OUT / f"{name}-fresh.json", {"mutants": [], "counts": None})
    return {"mutants": data, "counts": None} if isinstance(data, list) else data


def run(
    name: str,
    group: dict,
    workers: int,
    mutants: list[str] | None = None,
    per_module: int = 0,
    fresh: bool = False,
) -> float:
    """``mutmut run`` over the group (resuming), over ``mutants`` only (run again), or over a
    random sample of ``per_module`` mutants of each module (``fresh``: see :func:`sample`)."""
    if per_module:
        seconds = run(name, group, workers, [NO_MUTANT])
        mutants = sample(name, per_module, fresh)
        return seconds + (run(name, group, workers, mutants) if mutants else 0.0)
    before = _selection(WORK / name / "pyproject.toml")
    work = prepare(name, group)
    stamp, commit = work / "commit.txt", commit_measured()
    # mutmut forgets every verdict of a group whose test selection changed: measured anew
    if stamp.exists() and before == _selection(work / "pyproject.toml"):
        # a resumed run: the earlier verdicts were measured at the first commit
        first = stamp.read_text().strip().split(", then ")[0]
        commit = f"{first}, then {commit}" if first != commit else commit
    stamp.write_text(commit + "\n")
    # the tests' subprocesses (python -m privdtol) import the mutated copy too; the directory
    # must exist before mutmut starts, or Python caches its absence and imports the original
    (work / "mutants" / "src").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(work / "mutants" / "src"))
    mutmut = Path(sys.executable).with_name("mutmut")
    start = time.perf_counter()
    log = OUT / f"{name}.log"
    with open(log, "w") as fh:
        proc = subprocess.run(
            [str(mutmut), "run", "--max-children", str(workers), *(mutants or [])],
            cwd=work,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    seconds = time.perf_counter() - start
    if proc.returncode != 0 and mutants != [NO_MUTANT]:
        print(f"{name}: mutmut exited {proc.returncode}; see {log}", file=sys.stderr)
    return seconds


@functools.cache
def _defs(path: Path) -> tuple[list[str], dict]:
    """The lines of a mutated file and its functions by name (parsed once per file)."""
    text = path.read_text()
    defs = {n.name: n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
    return text.splitlines(), defs


def mutant_diff(src: Path, key: str) -> str:
    """The changed lines of mutant ``key`` (e.g. ``privdtol.core.bounds.x_eta__mutmut_7``):
    mutmut keeps each mutant as a copy of the function, beside ``..._mutmut_orig``."""
    module, func = key.rsplit(".", 1)
    path = src.joinpath(*module.split(".")).with_suffix(".py")
    if not path.exists():  # a package's __init__.py
        path = src.joinpath(*module.split("."), "__init__.py")
    lines, defs = _defs(path)
    orig, mutant = (defs.get(f) for f in (func.rsplit("__mutmut_", 1)[0] + "__mutmut_orig", func))
    if orig is None or mutant is None:
        return ""
    a, b = (lines[n.lineno : n.end_lineno] for n in (orig, mutant))
    return "\n".join(
        line
        for line in difflib.unified_diff(a, b, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


def function_of(key: str) -> str:
    """``privdtol.core.clock.x_checkpoints__mutmut_7`` -> ``privdtol.core.clock.checkpoints``
    (methods: ``...xǁClassǁmethod__mutmut_3`` -> ``....Class.method``)."""
    module, func = key.rsplit(".", 1)
    func = func.rsplit("__mutmut_", 1)[0]
    func = func[2:] if func.startswith(("x_", "xǁ")) else func
    return f"{module}.{func.replace('ǁ', '.')}"


#: the lists of dispositions.yaml whose functions' mutants are not counted (column "dead")
DEAD_KINDS = ("dead", "import_time")


def load_dispositions(path: Path = DISPOSITIONS) -> tuple[dict, dict]:
    """``({(function, diff): reason}, {function: reason})``: the equivalent survivors, and the
    functions of tests/mutants/dispositions.yaml whose mutants are not counted (dead code, and
    code that runs only at import, before mutmut switches a mutant on)."""
    data = yaml.safe_load(path.read_text()) if path.exists() else {}
    equivalent = {
        (e["function"], e["diff"].strip()): e["reason"] for e in data.get("equivalent") or []
    }
    dead = {e["function"]: e["reason"] for kind in DEAD_KINDS for e in data.get(kind) or []}
    return equivalent, dead


def summarise(name: str, seconds: float | None) -> dict:
    """Per module: the count of each status, and the surviving mutants with their diffs (with
    a census of the group, its verdicts for the mutants mutmut holds none for: see
    scripts/mutation_census.py; ``census``: its counts as first measured)."""
    work = WORK / name
    src = work / "mutants" / "src"
    equivalent, dead = load_dispositions()
    modules, survivors, equivalents, fresh_counts, first = {}, {}, {}, {}, {}
    fresh_round = _fresh_round(name)
    fresh = set(fresh_round["mutants"])
    seen = set(_read(OUT / f"{name}-seen.json", []))
    stamp = work / "commit.txt"
    commit = stamp.read_text().strip() if stamp.exists() else "unknown"
    held = {
        str(meta.relative_to(src))[: -len(".py.meta")].replace("/", "."): codes
        for meta in sorted(src.rglob("*.py.meta"))
        if (codes := json.loads(meta.read_text())["exit_code_by_key"])
    }
    patterns = (yaml.safe_load(GROUPS.read_text()).get(name) or {}).get("mutate", [])
    digest = mutation_census.source_digest(ROOT, patterns)
    by_module, census = mutation_census.merge(
        OUT / f"{name}-census.json", held, digest, commit.split(", then ")[0]
    )

    def status_of(key, code, record=False):
        status, function = STATUS.get(code, "other"), function_of(key)
        if function in dead:
            return "dead"
        if status == "survived":
            diff = mutant_diff(src, key)
            status = "equivalent" if (function, diff.strip()) in equivalent else status
            if record:
                (equivalents if status == "equivalent" else survivors)[key] = diff
        return status

    for module, codes in by_module.items():
        counts, in_fresh = Counter(), Counter()
        seen |= {k for k, c in codes.items() if c is not None}
        for key, code in codes.items():
            status = status_of(key, code, record=True)
            counts[status] += 1
            in_fresh[status] += key in fresh
        modules[module] = {k: counts.get(k, 0) for k in COLUMNS} | {"score": score(counts)}
        if any(in_fresh.values()):
            fresh_counts[module] = {k: in_fresh.get(k, 0) for k in COLUMNS}
    for module, codes in (census or {}).get("codes", {}).items():
        counts = Counter(status_of(key, code) for key, code in codes.items())
        first[module] = {k: counts.get(k, 0) for k in COLUMNS} | {"score": score(counts)}
    (OUT / f"{name}-seen.json").write_text(json.dumps(sorted(seen), indent=0) + "\n")
    if fresh_round["counts"] is not None:
        fresh_counts = fresh_round["counts"]
    elif fresh and not any(c["not run"] for c in fresh_counts.values()):
        fresh_round["counts"] = fresh_counts  # measured once: frozen
        fresh_round["commit"] = commit.split(", then ")[-1]
        (OUT / f"{name}-fresh.json").write_text(json.dumps(fresh_round, indent=0) + "\n")
    if seconds is None and (OUT / f"{name}.json").exists():
        seconds = json.loads((OUT / f"{name}.json").read_text()).get("seconds")
    record = {
        "group": name,
        "commit": commit,
        "seconds": seconds,
        "modules": modules,
        "fresh": fresh_counts,
        "survivors": survivors,
        "equivalent": equivalents,
        "census": {"commit": census["commit"], "modules": first} if census else None,
        "rounds": [
            r for r in [*_read(OUT / f"{name}-rounds.json", []), fresh_round] if r["counts"]
        ],
    }
    (OUT / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def main(argv=None) -> int:
    groups = yaml.safe_load(GROUPS.read_text())
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"groups (default: all): {', '.join(groups)}")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--summary-only", action="store_true", help="summarise earlier runs")
    parser.add_argument(
        "--rerun",
        action="store_true",
        help="run again only the survivors and untested mutants of earlier runs (after new tests)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="run a seeded random sample of N mutants per module (what is not run is 'not run')",
    )
    parser.add_argument(
        "--fresh",
        type=int,
        default=0,
        metavar="N",
        help="run N more mutants per module, drawn among those no earlier run has run",
    )
    args = parser.parse_args(argv)
    chosen = [g for arg in args.groups for g in arg.split(",") if g]
    unknown = sorted(set(chosen) - set(groups))
    if unknown:
        parser.error(f"unknown group {unknown[0]!r}; allowed: {', '.join(groups)}")
    OUT.mkdir(parents=True, exist_ok=True)
    if not args.summary_only:
        for name in chosen or list(groups):
            if args.rerun:
                again = open_mutants(name)
                if again:
                    run(name, groups[name], args.workers, again)
                summarise(name, None)
            elif args.fresh:
                summarise(
                    name, run(name, groups[name], args.workers, per_module=args.fresh, fresh=True)
                )
            else:
                summarise(name, run(name, groups[name], args.workers, per_module=args.sample))
    records = [summarise(name, None) for name in groups if (WORK / name / "mutants").is_dir()]
    data = summary(records)
    (OUT / "summary.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    (OUT / "summary.md").write_text(markdown(data))
    print((OUT / "summary.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
