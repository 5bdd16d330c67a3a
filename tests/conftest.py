"""Fixtures shared by every test module: the repository's places, the marker rule of
``make test-fast``, the grouping of ``--dist loadgroup``, fresh exact results per test, the
session's one smoke build, and the checks' inputs (the smoke config's thresholds, the regret
model's tables, a tiny agg directory)."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest
from support.paths import BIN, ROOT, SMOKE
from support.scheduling import shared_fixture_group
from support.synthetic_regret import CONTROLS, rate_tables
from support.tiny_agg import build_tiny_agg
from support.workflow import copy_workflow, run_snakemake

from privdtol.pipeline.config import load_config_files

#: markers that imply ``slow``: `make test-fast` (``pytest -m "not slow"``) leaves them out
IMPLY_SLOW = ("pipeline", "slurm", "notebook")


@pytest.hookimpl(tryfirst=True)  # before -m deselects and before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("slow") is None and any(
            item.get_closest_marker(name) for name in IMPLY_SLOW
        ):
            item.add_marker(pytest.mark.slow)
        group = shared_fixture_group(item)
        if group and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def _fresh_exact_results():
    """Each test computes its exact cells anew: the exact engine keeps its last results per
    law (privdtol.engine.exact._RECENT), which a test that patches the engine must not get."""
    from privdtol.engine import exact

    exact._RECENT.clear()
    yield
    exact._RECENT.clear()


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """The whole pipeline on the smoke config (``snakemake --cores 2``) in a copy of the
    workflow, built once per session: tests/workflow/test_end_to_end.py reads its report,
    notebooks and figures, tests/cli/test_archive.py archives and replays it.  Tests only read
    it (those that change a build copy it first).  Under ``make test`` (pytest-xdist, two
    workers) the workers share one build: the first to need it builds it under a lock, the
    other waits for it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's directory, shared by its workers
    wd, done = base / "e2e", base / "e2e.done"
    with open(base / "e2e.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            done.write_text(_build_smoke(wd))
    failure = done.read_text()
    assert not failure, failure
    return wd


def _build_smoke(wd: Path) -> str:
    """Build the smoke run in ``wd`` (made anew); '' on success, else snakemake's output tail."""
    shutil.rmtree(wd, ignore_errors=True)
    copy_workflow(wd)
    proc = run_snakemake(wd, "--cores", "2", "--configfile", "config/smoke.yaml", check=False)
    return "" if proc.returncode == 0 else proc.stdout[-4000:] + proc.stderr[-4000:]


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository under test."""
    return ROOT


@pytest.fixture(scope="session")
def bin_dir() -> Path:
    """The running interpreter's scripts directory (snakemake, privdtol)."""
    return BIN


# the checks: the smoke config's thresholds, the regret model's tables, a tiny real agg directory
@pytest.fixture(scope="module")
def thresholds():
    """The ``checks:`` block of the smoke config."""
    return load_config_files([SMOKE])["checks"]


@pytest.fixture(scope="module")
def synthetic():
    """The rate experiments' tables of rps and of each control, on the regret model."""
    return {alg: rate_tables(alg) for alg in ("rps", *CONTROLS)}


@pytest.fixture(scope="module")
def tiny_agg(tmp_path_factory):
    """The grid and gap experiments of :func:`support.tiny_agg.build_tiny_agg`, 20 runs."""
    return build_tiny_agg(tmp_path_factory.mktemp("agg"), runs=20, experiments=("grid", "gap"))
