"""Shared helpers: statistical tolerances come from standard errors, never guesses."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

#: markers that imply ``slow``: `make test-fast` (``pytest -m "not slow"``) leaves them out
IMPLY_SLOW = ("pipeline", "slurm", "notebook")


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("slow") is None and any(
            item.get_closest_marker(name) for name in IMPLY_SLOW
        ):
            item.add_marker(pytest.mark.slow)


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
    workflow, built once per session: tests/test_end_to_end.py reads its report, notebooks and
    figures, tests/test_archive.py archives and replays it.  Tests only read it (those that
    change a build copy it first).  Under ``make test`` (pytest-xdist, two workers) the workers
    share one build: the first to need it builds it under a lock, the other waits for it."""
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
    wd.mkdir()
    shutil.copy(ROOT / "Snakefile", wd / "Snakefile")
    for name in ("workflow", "config", "notebooks", "paper", "profiles"):
        shutil.copytree(ROOT / name, wd / name, symlinks=True)
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(
        [str(BIN / "snakemake"), "--cores", "2", "--configfile", "config/smoke.yaml"],
        cwd=wd,
        env=env,
        capture_output=True,
        text=True,
    )
    return "" if proc.returncode == 0 else proc.stdout[-4000:] + proc.stderr[-4000:]


#: two-sided tolerance in standard errors for mean comparisons (false-alarm rate ~6e-5 each)
Z_TOL = 4.0
#: p-value below which a goodness-of-fit test fails (fixed seeds make each run deterministic)
P_MIN = 1e-4
#: false-alarm level of one test function as a whole: its m comparisons share it (Bonferroni),
#: each two-sided z test at ``z_familywise(m)`` and each goodness-of-fit test at ``ALPHA_FW / m``
ALPHA_FW = 1e-4


def z_familywise(m: int, alpha: float = ALPHA_FW) -> float:
    """Two-sided normal quantile for ``m`` comparisons at familywise level ``alpha``."""
    return float(stats.norm.isf(alpha / (2 * m)))


def assert_within_se(estimate, target, se, m: int, what: str = "estimate", alpha=ALPHA_FW):
    """Every ``|estimate - target| <= z_familywise(m) * se``, ``se`` being the exact standard
    error of the estimate (computed from the law under test, not from the sample)."""
    estimate, target, se = np.broadcast_arrays(
        *(np.asarray(v, float) for v in (estimate, target, se))
    )
    assert np.all(se > 0), f"{what}: standard errors must be positive"
    z = np.abs(estimate - target) / se
    limit = z_familywise(m, alpha)
    assert np.all(z <= limit), (
        f"{what}: {np.round(estimate, 8)} vs {np.round(target, 8)} is {np.round(z, 2)} SE "
        f"(limit {limit:.2f} SE for {m} comparisons at familywise level {alpha:g})"
    )


def assert_mean_close(samples, target, target_se=0.0, z=Z_TOL):
    samples = np.asarray(samples, dtype=float)
    se = np.hypot(samples.std(ddof=1) / np.sqrt(samples.size), target_se)
    assert abs(samples.mean() - target) <= z * se + 1e-12, (
        f"mean {samples.mean():.6g} vs {target:.6g}: {abs(samples.mean() - target) / se:.2f} SE"
    )


def assert_means_equal(a, b, z=Z_TOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    se = np.hypot(a.std(ddof=1) / np.sqrt(a.size), b.std(ddof=1) / np.sqrt(b.size))
    assert abs(a.mean() - b.mean()) <= z * se + 1e-12, (
        f"means {a.mean():.6g} vs {b.mean():.6g} differ by {abs(a.mean() - b.mean()) / se:.2f} SE"
    )


def chisquare_against(draws, probs, n_categories):
    """Chi-square goodness of fit of integer draws against a law; pools cells with E < 5."""
    counts = np.bincount(draws, minlength=n_categories).astype(float)
    expected = np.asarray(probs, float) * counts.sum()
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
        if expected[-1] == 0:
            assert counts[-1] == 0, "draws fell where the law puts no mass"
            counts, expected = counts[:-1], expected[:-1]
    if counts.size < 2:
        return 1.0
    return stats.chisquare(counts, expected).pvalue


def two_sample_chisquare(x, y):
    """Homogeneity test of two samples of discrete values (rows of tuples allowed)."""
    x = [tuple(np.atleast_1d(v)) for v in x]
    y = [tuple(np.atleast_1d(v)) for v in y]
    keys = sorted(set(x) | set(y))
    index = {k: i for i, k in enumerate(keys)}
    table = np.zeros((2, len(keys)))
    for row, sample in enumerate((x, y)):
        for v in sample:
            table[row, index[v]] += 1
    # pool sparse columns into one
    expected_min = table.sum(axis=0) * min(table.sum(axis=1)) / table.sum()
    sparse = expected_min < 5
    if sparse.any():
        table = np.column_stack([table[:, ~sparse], table[:, sparse].sum(axis=1)])
    if table.shape[1] < 2:
        return 1.0
    return stats.chi2_contingency(table)[1]
