"""Mutation smoke test (slow tier, issue 24): curated one-line bugs on the lines that decide
verdicts, bounds, laws and seeds (tests/mutants/curated.yaml), each planted alone in a scratch
copy of ``src/``, must each make the fast-tier tests named for it fail.

Per mutant only those tests run (``pytest -x -m "not slow"``, the copy first on PYTHONPATH), two
mutants at a time; the whole set costs about 2-3 minutes on 2 cores (docs/testing.md).  The
full, uncurated measurement is ``make mutation`` (mutmut).  By hand:
``python tests/test_mutants.py [id ...]`` prints each mutant's outcome and time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = Path(__file__).with_name("mutants") / "curated.yaml"
#: pytest's exit code when tests ran and some failed (2-5: interrupted, usage, no tests...)
TESTS_FAILED = 1


def load_catalogue(path: Path = CATALOGUE) -> list[dict]:
    with open(path) as fh:
        mutants = yaml.safe_load(fh)
    ids = [m["id"] for m in mutants]
    assert len(ids) == len(set(ids)), "duplicate mutant ids"
    return mutants


def plant(src: Path, mutant: dict) -> None:
    """Apply ``mutant`` (its ``find`` occurs exactly once in its ``file``) to the copy ``src``."""
    path = src / "privdtol" / mutant["file"]
    text = path.read_text()
    count = text.count(mutant["find"])
    if count != 1:
        raise AssertionError(f"{mutant['id']}: 'find' occurs {count} times in {mutant['file']}")
    path.write_text(text.replace(mutant["find"], mutant["replace"]))


def run_mutant(mutant: dict, scratch: Path) -> tuple[int, float, str]:
    """Plant ``mutant`` in a fresh copy of src/ under ``scratch``, run its tests; return
    (pytest's exit code, seconds, the output's tail)."""
    src = scratch / mutant["id"] / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    plant(src, mutant)
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-m", "not slow", "-p", "no:cacheprovider"]
    cmd += ["-o", "addopts=--strict-markers", *mutant["tests"]]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    return proc.returncode, time.perf_counter() - start, (proc.stdout + proc.stderr)[-1500:]


def run_all(mutants: list[dict], workers: int = 2) -> dict[str, tuple[int, float, str]]:
    with (
        tempfile.TemporaryDirectory(prefix="privdtol-mutants-") as tmp,
        ThreadPoolExecutor(workers) as pool,
    ):
        results = pool.map(lambda m: run_mutant(m, Path(tmp)), mutants)
        return {m["id"]: r for m, r in zip(mutants, results, strict=True)}


def test_catalogue_applies_to_the_sources(tmp_path):
    """Every curated mutant still matches its line exactly once (cheap; fast tier)."""
    mutants = load_catalogue()
    assert len(mutants) >= 20
    for m in mutants:
        assert {"id", "file", "find", "replace", "tests", "why"} <= set(m), m.get("id")
        assert m["find"] != m["replace"], m["id"]
        text = (ROOT / "src" / "privdtol" / m["file"]).read_text()
        assert text.count(m["find"]) == 1, f"{m['id']}: 'find' must occur once in {m['file']}"
        for sel in m["tests"]:
            assert (ROOT / sel.split("::")[0]).is_file(), f"{m['id']}: no test file {sel}"


@pytest.mark.slow
def test_fast_tier_kills_every_curated_mutant():
    results = run_all(load_catalogue())
    survivors = {k: tail for k, (rc, _, tail) in results.items() if rc != TESTS_FAILED}
    assert not survivors, "mutants not killed (exit code != 1):\n" + "\n\n".join(
        f"{k}:\n{tail}" for k, tail in survivors.items()
    )


if __name__ == "__main__":
    chosen = set(sys.argv[1:])
    mutants = [m for m in load_catalogue() if not chosen or m["id"] in chosen]
    start = time.perf_counter()
    for key, (rc, secs, tail) in run_all(mutants).items():
        status = "killed" if rc == TESTS_FAILED else f"NOT KILLED (exit {rc})"
        print(f"{key:32s} {status:22s} {secs:6.1f} s")
        if rc != TESTS_FAILED:
            print(tail)
    print(f"total {time.perf_counter() - start:.1f} s for {len(mutants)} mutants")
