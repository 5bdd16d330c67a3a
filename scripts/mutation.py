"""Mutation testing of one group with mutmut (``make mutation GROUP=<g>``; docs/testing.md).

mutmut is configured in ``[tool.mutmut]`` of pyproject.toml.  This adds what mutmut does not do:

- groups: group ``g`` mutates ``src/privdtol/<g>/`` and selects its tests from ``tests/<g>/`` (and
  ``[tool.mutmut.groups.g]``'s ``tests`` and ``pytest_args``), in a scratch tree
  ``mutants-work/g/`` of its own, made anew by each run (a verdict of an earlier run may have
  been reached with other tests);
- the equivalent mutants of tests/workflow/mutants/equivalent.yaml (named by function and change,
  scripts/equivalents.py) are neither run nor counted;
- ``--sample N``: a seeded sample of N mutants per module (seed: the commit, unless given), the
  group's score estimated stratified by module, with its standard error (``--sample 0``: every
  mutant, a census);
- ``results/mutation/<g>.json`` (counts per module, the survivors' diffs) and
  ``results/mutation/summary.{json,md}`` (one line per group measured).

    python scripts/mutation.py engine --sample 12
"""

from __future__ import annotations

import argparse
import ast
import difflib
import functools
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

from equivalents import is_equivalent, load_equivalent, mutation_of
from mutmut.stats import status_by_exit_code

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "mutants-work"
OUT = ROOT / "results" / "mutation"
#: the outcomes a score counts (mutmut's names); the others (not checked, suspicious) are listed
COUNTED = ("killed", "timeout", "survived", "no tests")
#: a mutant name that matches nothing: mutmut generates the mutants, records which tests reach
#: each function, and stops before running any mutant
NO_MUTANT = "privdtol.no_such_module.x_none__mutmut_0"


def group_names() -> list[str]:
    """The subpackages of privdtol: each a group."""
    pkg = ROOT / "src" / "privdtol"
    return sorted(p.name for p in pkg.iterdir() if (p / "__init__.py").is_file())


def tool_config(group: str) -> str:
    """The ``[tool.mutmut]`` table of one group's scratch tree."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    extra = cfg.pop("groups", {}).get(group, {})
    cfg["only_mutate"] = [f"src/privdtol/{group}/*"]
    cfg["pytest_add_cli_args"] = [
        *cfg.get("pytest_add_cli_args", []),
        *extra.get("pytest_args", []),
    ]
    tests = [f"tests/{group}", *extra.get("tests", [])]
    for path in [t for t in tests if not (ROOT / t).exists()]:
        print(f"{group}: no {path}, left out of the selection", file=sys.stderr)
    cfg["pytest_add_cli_args_test_selection"] = [t for t in tests if (ROOT / t).exists()]
    lines = [f"{k} = {json.dumps(v)}" for k, v in cfg.items()]  # strings, numbers, lists
    return "[tool.mutmut]\n" + "\n".join(lines) + "\n"


def prepare(group: str) -> Path:
    """The group's scratch tree, made anew: sources, tests and pyproject copied, and no result
    of an earlier run kept (mutmut would keep a verdict reached with other tests, and the
    mutants of a module that has since moved or gone)."""
    work = WORK / group
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if not (ROOT / "tests" / group).is_dir():
        raise SystemExit(f"{group}: no tests/{group}/ to select tests from")
    also = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["also_copy"]
    for name in ("src", "tests", *also):
        source, target = ROOT / name, work / name
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.is_file():
            shutil.copy2(source, target)
    # mutmut copies the package's data files (schema, templates) into mutants/ only once
    for path in (ROOT / "src").rglob("*"):
        target = work / "mutants" / path.relative_to(ROOT)
        if path.is_file() and path.suffix != ".py" and target.parent.is_dir():
            shutil.copy2(path, target)
    text = (ROOT / "pyproject.toml").read_text()
    text = re.sub(r"\n\[tool\.mutmut[.\w]*\]\n.*?(?=\n\[|\Z)", "\n", text, flags=re.S)
    (work / "pyproject.toml").write_text(text.rstrip() + "\n\n" + tool_config(group))
    return work


def run(group: str, work: Path, names: list[str], workers: int) -> float:
    """``mutmut run`` of ``names`` in the scratch tree; its output goes to ``<group>.log``."""
    # the tests' subprocesses (python -m privdtol) import the mutated copy too; the directory
    # must exist before mutmut starts, or Python caches its absence and imports the original
    (work / "mutants" / "src").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(work / "mutants" / "src"))
    mutmut = Path(sys.executable).with_name("mutmut")
    start = time.perf_counter()
    with open(OUT / f"{group}.log", "a") as log:
        subprocess.run(
            [str(mutmut), "run", "--max-children", str(workers), *names],
            cwd=work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return time.perf_counter() - start


def exit_codes(work: Path) -> dict[str, dict[str, int | None]]:
    """{module: {mutant: mutmut's exit code, None if not run}} of the scratch tree."""
    src = work / "mutants" / "src"
    return {
        str(meta.relative_to(src))[: -len(".py.meta")].replace("/", "."): codes
        for meta in sorted(src.rglob("*.py.meta"))
        if (codes := json.loads(meta.read_text())["exit_code_by_key"])
    }


@functools.cache
def _defs(path: Path) -> tuple[list[str], dict]:
    """The lines of a mutated file and its functions by name (parsed once per file)."""
    text = path.read_text()
    defs = {n.name: n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)}
    return text.splitlines(), defs


def _module_path(src: Path, key: str) -> Path:
    module = key.rsplit(".", 1)[0]
    path = src.joinpath(*module.split(".")).with_suffix(".py")
    return path if path.exists() else src.joinpath(*module.split("."), "__init__.py")


def _copies(src: Path, key: str) -> tuple[ast.AST | None, ast.AST | None]:
    """mutmut's copy of the original function of mutant ``key`` and the mutant's."""
    path, func = _module_path(src, key), key.rsplit(".", 1)[1]
    if not path.exists():
        return None, None
    defs = _defs(path)[1]
    return defs.get(func.rsplit("__mutmut_", 1)[0] + "__mutmut_orig"), defs.get(func)


def mutant_diff(src: Path, key: str) -> tuple[str, str]:
    """(removed lines, added lines) of mutant ``key``, each stripped, joined by newlines: mutmut
    keeps each mutant as a copy of its function, beside ``..._mutmut_orig``."""
    orig, mutant = _copies(src, key)
    if orig is None or mutant is None:
        return "", ""
    lines = _defs(_module_path(src, key))[0]
    a, b = (lines[n.lineno : n.end_lineno] for n in (orig, mutant))
    diff = list(difflib.unified_diff(a, b, lineterm="", n=0))[2:]
    return tuple("\n".join(x[1:].strip() for x in diff if x.startswith(sign)) for sign in "-+")


def mutant_change(src: Path, key: str) -> tuple[str, str]:
    """:func:`mutation_of` of mutant ``key``, read from mutmut's copies of its function."""
    orig, mutant = _copies(src, key)
    return ("", "") if orig is None or mutant is None else mutation_of(orig, mutant)


def draw(candidates: dict[str, list[str]], per_module: int, seed: str) -> list[str]:
    """Up to ``per_module`` mutants of each module, uniformly at random (seeded by ``seed`` and
    the module's name: the same draw on every machine); 0: every mutant."""
    names = []
    for module, keys in sorted(candidates.items()):
        keys = sorted(keys)
        if per_module and len(keys) > per_module:
            keys = random.Random(f"{seed}:{module}").sample(keys, per_module)
        names += keys
    return names


def score(counts: dict) -> float | None:
    """(killed + timeout) / (killed + timeout + survived + no tests)."""
    n = sum(counts.get(k, 0) for k in COUNTED)
    return (counts.get("killed", 0) + counts.get("timeout", 0)) / n if n else None


def stratified(modules: dict) -> tuple[float | None, float | None]:
    """The group's score from per-module samples, each module weighted by its number of
    mutants (``size``), and its standard error sqrt(sum w^2 s (1 - s) / n) / sum w; a module
    measured in full adds no error."""
    est = var = total = 0.0
    for counts in modules.values():
        n, s = sum(counts[k] for k in COUNTED), score(counts)
        if not n:
            continue
        w = counts["size"]
        est, total = est + w * s, total + w
        var += 0.0 if n >= w else w**2 * s * (1 - s) / n
    return (est / total, math.sqrt(var) / total) if total else (None, None)


def commit() -> str:
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run([*git, "status", "--porcelain", "src", "tests"], capture_output=True)
    return head.stdout.strip() + (" (dirty)" if dirty.stdout.strip() else "")


def measure(group: str, per_module: int, seed: str | None, workers: int) -> dict:
    """Generate the group's mutants, run the sample, and record what it found."""
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{group}.log").unlink(missing_ok=True)
    at = commit()
    seed = seed or at.split()[0]
    work = prepare(group)
    seconds = run(group, work, [NO_MUTANT], workers)
    src, equivalent = work / "mutants" / "src", load_equivalent()
    candidates, skipped = {}, Counter()
    for module, codes in exit_codes(work).items():
        keys = [k for k in codes if not is_equivalent(k, mutant_change(src, k), equivalent)]
        candidates[module], skipped[module] = keys, len(codes) - len(keys)
    names = draw(candidates, per_module, seed)
    seconds += run(group, work, names, workers) if names else 0.0
    codes = exit_codes(work)
    chosen, modules, survivors = set(names), {}, {}
    for module, keys in candidates.items():
        counts = Counter(status_by_exit_code[codes[module].get(k)] for k in keys if k in chosen)
        modules[module] = {k: counts.get(k, 0) for k in COUNTED} | dict(counts)
        modules[module] |= {"size": len(keys), "equivalent": skipped[module]}
        survivors |= {
            k: "\n".join(mutant_diff(src, k))
            for k in keys
            if k in chosen and status_by_exit_code[codes[module].get(k)] in COUNTED[2:]
        }
    total = Counter()
    for counts in modules.values():
        total.update({k: v for k, v in counts.items() if k not in ("size", "equivalent")})
    if names and not any(total.values()):
        raise SystemExit(f"{group}: mutmut ran no mutant (a test fails?): {OUT / group}.log")
    est, se = stratified(modules)
    record = {
        "group": group,
        "commit": at,
        "sample": per_module or None,
        "seed": seed if per_module else None,
        "seconds": round(seconds),
        "counts": dict(total),
        "score": score(total),
        "stratified": est,
        "se": se,
        "modules": modules,
        "survivors": survivors,
    }
    (OUT / f"{group}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def summary() -> str:
    """results/mutation/summary.{json,md}: one line per group measured in this workspace."""
    records = [json.loads(p.read_text()) for p in sorted(OUT.glob("*.json"))]
    records = [r for r in records if isinstance(r, dict) and "stratified" in r]  # not older ones
    keep = ("commit", "sample", "seed", "seconds", "counts", "score", "stratified", "se")
    data = {r["group"]: {k: r[k] for k in keep} for r in records}
    (OUT / "summary.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    lines = [
        "| group | commit | sample | killed | timeout | survived | no tests | score | minutes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for group, r in data.items():
        c = r["counts"]
        sample = f"{r['sample']} per module (seed {r['seed']})" if r["sample"] else "all"
        est = "-" if r["stratified"] is None else f"{100 * r['stratified']:.1f}%"
        est += f" ± {100 * r['se']:.1f}" if r["se"] else ""
        cells = " | ".join(str(c.get(k, 0)) for k in COUNTED)
        lines.append(
            f"| {group} | {r['commit']} | {sample} | {cells} | {est} | {r['seconds'] / 60:.0f} |"
        )
    text = "\n".join(lines) + "\n"
    (OUT / "summary.md").write_text(text)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("group", choices=group_names())
    parser.add_argument("--sample", type=int, default=12, metavar="N", help="per module; 0: all")
    parser.add_argument("--seed", help="the sample's seed (default: the commit measured)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    record = measure(args.group, args.sample, args.seed, args.workers)
    print(summary(), end="")
    print(f"{args.group}: {OUT / (args.group + '.json')}, {len(record['survivors'])} survivors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
