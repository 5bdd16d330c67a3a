"""Mutation smoke test (slow tier): curated one-line bugs on the lines that decide
verdicts, bounds, laws and seeds (tests/workflow/mutants/curated.yaml), each planted alone in a
scratch copy of ``src/``, must each make the fast-tier tests named for it fail.

Per mutant only those tests run (``pytest -x -m "not slow"``, the copy first on PYTHONPATH), two
mutants at a time; the whole set costs about 2-3 minutes on 2 cores (docs/testing.md).  The
full, uncurated measurement is ``make mutation`` (mutmut).  By hand:
``python tests/workflow/test_mutants.py [id ...]`` prints each mutant's outcome and time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
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


#: imported once by the fork server, so that each mutant's pytest starts without that cost
PRELOAD = ("numpy", "scipy.stats", "scipy.special", "scipy.integrate", "pandas", "pyarrow.parquet")
#: addopts emptied (no durations report); the import mode of pyproject.toml's addopts kept
PYTEST_ARGS = ["-x", "-q", "-m", "not slow", "-p", "no:cacheprovider", "-o", "addopts="]
PYTEST_ARGS += ["--import-mode=importlib"]


def _child(src: Path, mutant: dict, log: Path) -> None:
    """In the forked child: import the package from the mutated copy, run its tests, exit."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.environ["PYTHONPATH"] = str(src)  # for the tests' own subprocesses
    sys.path.insert(0, str(src))
    os.chdir(ROOT)
    import pytest as child_pytest

    os._exit(int(child_pytest.main([*PYTEST_ARGS, "--strict-markers", *mutant["tests"]])))


def serve(mutants: list[dict], scratch: Path, workers: int) -> dict:
    """The fork server (a fresh interpreter that has not imported privdtol): preload the heavy
    libraries, then per mutant plant it in its own copy of src/ and fork a child that runs its
    tests, ``workers`` at a time; returns {id: (exit code, seconds, output tail)}."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    import pytest  # noqa: F401

    pending, running, results = list(mutants), {}, {}
    while pending or running:
        while pending and len(running) < workers:
            m = pending.pop(0)
            src = scratch / m["id"] / "src"
            shutil.copytree(
                ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
            plant(src, m)
            log = scratch / m["id"] / "pytest.log"
            pid = os.fork()
            if pid == 0:
                try:
                    _child(src, m, log)
                finally:
                    os._exit(70)
            running[pid] = (m, log, time.perf_counter())
        pid, status = os.wait()
        m, log, start = running.pop(pid)
        tail = log.read_text(errors="replace")[-1500:]
        results[m["id"]] = (os.waitstatus_to_exitcode(status), time.perf_counter() - start, tail)
    return results


def run_all(mutants: list[dict], workers: int = 2) -> dict[str, tuple[int, float, str]]:
    """Run :func:`serve` in a fresh interpreter (single-threaded BLAS, safe to fork)."""
    with tempfile.TemporaryDirectory(prefix="privdtol-mutants-") as tmp:
        spec = Path(tmp) / "mutants.json"
        spec.write_text(json.dumps({"mutants": mutants, "workers": workers}))
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        env.pop("PYTHONPATH", None)
        proc = subprocess.run(
            [sys.executable, __file__, "--serve", str(spec)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        out = json.loads((Path(tmp) / "results.json").read_text())
        return {k: tuple(v) for k, v in out.items()}


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


def main(argv: list[str]) -> None:
    if argv[:1] == ["--serve"]:
        spec = Path(argv[1])
        job = json.loads(spec.read_text())
        results = serve(job["mutants"], spec.parent, job["workers"])
        (spec.parent / "results.json").write_text(json.dumps(results))
        return
    chosen = set(argv)
    mutants = [m for m in load_catalogue() if not chosen or m["id"] in chosen]
    start = time.perf_counter()
    for key, (rc, secs, tail) in run_all(mutants).items():
        status = "killed" if rc == TESTS_FAILED else f"NOT KILLED (exit {rc})"
        print(f"{key:32s} {status:22s} {secs:6.1f} s")
        if rc != TESTS_FAILED:
            print(tail)
    print(f"total {time.perf_counter() - start:.1f} s for {len(mutants)} mutants")


if __name__ == "__main__":
    main(sys.argv[1:])
