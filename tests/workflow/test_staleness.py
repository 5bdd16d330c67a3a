"""What Snakemake reruns after an edit: a finished build has nothing to do, an analysis edit
reruns the checks and the report but no simulation, an engine version bump every simulation,
and another installation of the same code nothing (the code stamps are by content)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from support.paths import ROOT
from support.workflow import copy_build, job_stats, run_snakemake, snakemake_env

CONFIG = "config/smoke.yaml"


#: not copied: environments, outputs and caches of the source checkout
SKIP_TOP = {
    ".venv",
    "results",
    "logs",
    ".snakemake",
    ".git",
    ".pytest_cache",
    ".hypothesis",
    "build",
    "dist",
}


def _ignore(directory, names):
    skip = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
    if Path(directory) == ROOT:
        skip |= SKIP_TOP & set(names)
    if Path(directory) == ROOT / "docs":
        skip |= {"_build"} & set(names)
    return skip


def _snakemake(
    repo: Path, *args: str, timeout: int = 600, src: Path | None = None
) -> subprocess.CompletedProcess:
    """``snakemake --configfile CONFIG *args`` in ``repo``, the package imported from ``src``
    (default: the copy's own ``src``); a nonzero exit fails the test."""
    env = snakemake_env(PYTHONPATH=str(src if src is not None else repo / "src"))
    return run_snakemake(repo, "--configfile", CONFIG, *args, env=env, timeout=timeout)


def planned_jobs(repo: Path, src: Path | None = None) -> dict[str, int]:
    """Rule name -> number of jobs that ``snakemake -n`` would run ({} when nothing to do), with
    the package imported from ``src`` (default: the copy's own ``src``)."""
    proc = _snakemake(repo, "-n", src=src)
    out = proc.stdout + proc.stderr
    jobs = job_stats(out)
    if not jobs:
        assert "Nothing to be done" in out, out[-4000:]
    return jobs


@contextmanager
def edited(path: Path, edit):
    """Apply ``edit`` (old text -> new text) to ``path``; restore its bytes and mtime after."""
    before, times = path.read_bytes(), path.stat()
    path.write_text(edit(before.decode()))
    try:
        yield
    finally:
        path.write_bytes(before)
        os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))


@pytest.fixture(scope="module")
def built(tmp_path_factory, smoke_run):
    """A copy of the repository, its dry run on an empty results dir, then its full build: the
    session's smoke build (tests/conftest.py, built with the installed package) copied with its
    results, logs and Snakemake metadata (modification times kept), the repository's files
    (``src`` included) copied over it.  Its rules then run the copy's package, another
    installation of the same code: nothing may be left to do (the code stamps are by content)."""
    base = tmp_path_factory.mktemp("staleness")
    fresh = base / "empty"
    shutil.copytree(ROOT, fresh, symlinks=True, ignore=_ignore)
    empty = planned_jobs(fresh)
    repo = base / "repo"
    copy_build(smoke_run, repo)
    built_here = set(os.listdir(repo))  # the smoke build's copies of the workflow's files

    def rest(directory, names):
        top = built_here & set(names) if Path(directory) == ROOT else set()
        return _ignore(directory, names) | top

    shutil.copytree(ROOT, repo, symlinks=True, ignore=rest, dirs_exist_ok=True)
    return repo, empty


def _simulate_jobs(jobs: dict[str, int]) -> dict[str, int]:
    return {name: n for name, n in jobs.items() if name.startswith("simulate_")}


@pytest.mark.pipeline
@pytest.mark.slow
def test_full_build_leaves_nothing_to_do_and_readable_outputs(built):
    repo, empty = built
    assert _simulate_jobs(empty) and "compile_report" in empty, empty
    assert planned_jobs(repo) == {}
    assert (repo / "results" / "report" / "replication_report.pdf").is_file()
    outputs = [
        p
        for pattern in ("results/agg/*.parquet", "results/checks/*.json")
        for p in repo.glob(pattern)
    ]
    assert outputs, "no aggregated tables or check records"
    modes = {str(p.relative_to(repo)): oct(stat.S_IMODE(p.stat().st_mode)) for p in outputs}
    assert set(modes.values()) == {"0o644"}, modes


@pytest.mark.pipeline
@pytest.mark.slow
def test_editing_the_analysis_layer_reruns_checks_and_report_but_no_simulation(built):
    repo, empty = built
    checks = sorted(name for name in empty if name.startswith("check_"))
    assert checks, f"no check_ rule on an empty results dir: {sorted(empty)}"
    module = repo / "src" / "privdtol" / "analysis" / "stats.py"
    with edited(module, lambda text: text + "\n# a comment: the law of nothing changes\n"):
        jobs = planned_jobs(repo)
    assert not _simulate_jobs(jobs), f"simulations scheduled by an analysis edit: {jobs}"
    assert "aggregate" not in jobs, f"aggregation scheduled by an analysis edit: {jobs}"
    missing = [c for c in checks if c not in jobs]
    assert not missing, f"checks not rescheduled by an analysis edit: {missing}; planned {jobs}"
    assert "compile_report" in jobs, f"report not rescheduled by an analysis edit: {jobs}"
    assert planned_jobs(repo) == {}, "restoring the module (bytes and mtime) leaves no work"


@pytest.mark.pipeline
@pytest.mark.slow
def test_bumping_the_engine_version_reschedules_every_simulation(built):
    repo, empty = built
    engine = repo / "src" / "privdtol" / "engine" / "__init__.py"

    def bump(text):
        found = re.search(r"^ENGINE_VERSION = (\d+)$", text, re.M)
        assert found, "ENGINE_VERSION = <n> not found"
        return text.replace(found.group(0), f"ENGINE_VERSION = {int(found.group(1)) + 1}")

    with edited(engine, bump):
        jobs = planned_jobs(repo)
    assert _simulate_jobs(jobs) == _simulate_jobs(empty), (
        f"after the bump: {_simulate_jobs(jobs)}; on an empty results dir: {_simulate_jobs(empty)}"
    )


@pytest.mark.pipeline
@pytest.mark.slow
def test_another_installation_of_the_same_code_sees_nothing_to_do(built, tmp_path):
    """The build above used the copy's ``src``; a second installation of the
    same files elsewhere, every file with a new modification time, plans no job, and an edit
    in *it* reschedules the checks and the report (and no simulation)."""
    repo, _ = built
    other = tmp_path / "elsewhere" / "site-packages"
    shutil.copytree(repo / "src", other, ignore=shutil.ignore_patterns("__pycache__"))
    later = time.time() + 60
    for path in other.rglob("*"):
        os.utime(path, (later, later))
    assert planned_jobs(repo, src=other) == {}, "another installation reschedules jobs"
    module = other / "privdtol" / "analysis" / "stats.py"
    with edited(module, lambda text: text + "\n# an edit in the installation that runs\n"):
        jobs = planned_jobs(repo, src=other)
    assert not _simulate_jobs(jobs), f"simulations scheduled by an analysis edit: {jobs}"
    assert "compile_report" in jobs and any(n.startswith("check_") for n in jobs), jobs
    assert planned_jobs(repo) == {}, "the first installation has nothing to do after the undo"
    stamps = "".join(p.read_text() for p in (repo / "results" / "code").glob("*.sha256"))
    assert str(tmp_path) not in stamps and str(repo) not in stamps, "a stamp names a location"


def _replace(old: str, new: str):
    """An edit of a config file: ``old`` (found exactly once) -> ``new``."""

    def edit(text: str) -> str:
        assert text.count(old) == 1, f"{old!r} found {text.count(old)} times"
        return text.replace(old, new)

    return edit


#: what every value edit reruns besides the rules that read the value: the run's merged config
#: and its sources (one job), and the report's assets and PDF (with the default target `all`)
CONFIG_JOBS = {"write_config", "build_report_assets", "compile_report", "all"}
#: what reads C7's check records: the notebook index and the explorer
CHECK_READERS = {"index_notebooks", "build_explorer"}
#: the tables that run C7's rule (its thresholds are in their config pieces): the multiverse
#: (a threshold of C7 has a range), the battery (every claim) and by_algorithm (a rate claim);
#: not the power table (C7 is measured on the battery)
THRESHOLD_READERS = {"multiverse", "battery", "by_algorithm"}
#: a threshold of one claim (C7, whose record declares it, and whose notebook is `lower`)
THRESHOLD = ("optimality_growth_max: 0.25\n", "optimality_growth_max: 0.3\n")


@pytest.mark.pipeline
@pytest.mark.slow
def test_a_config_edit_plans_exactly_the_rules_that_read_the_edited_value(built):
    """The jobs that read the config depend on the stamps of the pieces they read
    (privdtol.pipeline.config_stamps), not on the merged config's time: each kind of edit plans
    its readers only, and undoing it plans nothing."""
    repo, _ = built
    config = repo / CONFIG
    plans = {}
    edits = {
        "description": _replace('description: "the smoke', 'description: "the edited smoke'),
        "comment": lambda text: text + "\n# a comment changes no value\n",
        "threshold": _replace(*THRESHOLD),
        # read by the power table only (and written in the report's table of check settings)
        "power": _replace("  confidence: 0.95\n", "  confidence: 0.95\n  power_replicates: 41\n"),
        "privacy": _replace("block: 4, runs: 20000", "block: 4, runs: 20001"),
        "runs": _replace("runs: 20\n", "runs: 21\n"),
        "grid": _replace("epsilon: [4.0, 0.25]\n", "epsilon: [4.0, 0.25, 0.125]\n"),
    }
    for kind, edit in edits.items():
        with edited(config, edit):
            plans[kind] = planned_jobs(repo)
    assert set(plans["description"]) == CONFIG_JOBS, plans["description"]
    assert set(plans["comment"]) == CONFIG_JOBS, plans["comment"]
    threshold = plans["threshold"]
    assert set(threshold) == CONFIG_JOBS | CHECK_READERS | THRESHOLD_READERS | {
        "check_C7",
        "check_C7__rps_eta_logk",
        "notebook_lower",
    }, threshold
    assert sum(threshold.values()) <= 12, threshold
    assert set(plans["power"]) == CONFIG_JOBS | {"power"}, plans["power"]
    privacy = plans["privacy"]
    assert {"audit_privacy", "check_C1", "notebook_privacy"} <= set(privacy), privacy
    assert not _simulate_jobs(privacy) and "check_C2" not in privacy, privacy
    runs = plans["runs"]
    assert _simulate_jobs(runs) and "aggregate" in runs and "check_C2" in runs, runs
    assert "audit_privacy" not in runs and not any(n.startswith("search_") for n in runs), runs
    grid = plans["grid"]
    assert _simulate_jobs(grid) and grid["aggregate"] == 1, grid
    assert all(n.startswith("simulate_ablations_") for n in _simulate_jobs(grid)), grid
    assert "check_C2" not in grid and "audit_privacy" not in grid, grid
    assert planned_jobs(repo) == {}, "undoing every edit leaves nothing to do"


@pytest.mark.pipeline
@pytest.mark.slow
def test_a_threshold_edit_reaches_its_check_and_the_report(built, tmp_path):
    """The rerun of a threshold edit on a copy of the build: the check record, the merged
    config and the report's table of check settings hold the new value; then nothing to do."""
    repo, _ = built
    copy = copy_build(repo, tmp_path / "repo")
    config = copy / CONFIG
    config.write_text(_replace(*THRESHOLD)(config.read_text()))
    _snakemake(copy, "--cores", "2")
    record = json.loads((copy / "results" / "checks" / "C7.json").read_text())
    assert "every growth <= 0.3" in record["threshold"], record
    merged = yaml.safe_load((copy / "results" / "config.merged.yaml").read_text())
    assert merged["checks"]["optimality_growth_max"] == 0.3
    table = (copy / "results" / "report" / "generated" / "thresholds.tex").read_text()
    row = next(
        line for line in table.splitlines() if line.startswith(r"\texttt{optimality\_growth")
    )
    assert row.endswith(r"& \num{0.3} \\"), row
    assert planned_jobs(copy) == {}


@pytest.mark.pipeline
@pytest.mark.slow
def test_check_config_counts_every_job_of_the_build(built, tmp_path):
    """``privdtol check-config --cores 2`` counts the jobs Snakemake plans on an empty results
    directory (every rule, not the simulations only) and says the wall time."""
    _, empty = built
    fresh = tmp_path / "fresh"
    shutil.copytree(ROOT, fresh, symlinks=True, ignore=_ignore)
    proc = subprocess.run(
        ["privdtol", "check-config", CONFIG, "--cores", "2"],
        cwd=fresh,
        env=snakemake_env(PYTHONPATH=str(fresh / "src")),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    total = re.search(r"^  total +(\d+) +\d+$", proc.stdout, re.M)
    assert total and int(total.group(1)) == sum(empty.values()), proc.stdout
    assert re.search(r"wall time on 2 cores: about \d+", proc.stdout), proc.stdout
    assert max(map(len, proc.stdout.splitlines())) < 100


@pytest.mark.pipeline
@pytest.mark.slow
def test_a_build_of_other_config_files_is_refused_and_leaves_the_run(built, tmp_path):
    """A second config built over the results of the first would replace its checks,
    notebooks and report: refused before the first job, in one line naming both."""
    repo, _ = built
    copy = copy_build(repo, tmp_path / "repo")
    (copy / "config" / "other.yaml").write_text((copy / CONFIG).read_text())
    record = copy / "results" / "config.sources.json"
    before = record.read_bytes()
    env = snakemake_env(PYTHONPATH=str(copy / "src"))
    args = ("--cores", "1", "--configfile", "config/other.yaml")
    proc = run_snakemake(copy, *args, check=False, env=env)
    refusal = [line for line in proc.stderr.splitlines() if line.startswith("invalid config:")]
    assert proc.returncode != 0 and len(refusal) == 1, proc.stderr[-3000:]
    assert "the build of config/config.yaml + config/smoke.yaml" in refusal[0], refusal
    assert "this build is of config/config.yaml + config/other.yaml" in refusal[0], refusal
    assert record.read_bytes() == before, "the first run's record is left as it was"


@pytest.mark.pipeline
@pytest.mark.slow
def test_editing_the_simulator_reruns_every_simulation(built):
    """An edit of the engine (a factor 2 on the regret) reran nothing: the simulation jobs list
    the simulation layers' code stamp (and simulate-batch recomputes the cells whose recorded
    code digest is not the running code's)."""
    repo, empty = built
    module = repo / "src" / "privdtol" / "engine" / "fast.py"
    with edited(module, lambda text: text + "\n# an edit of the simulator\n"):
        jobs = planned_jobs(repo)
    assert _simulate_jobs(jobs) == _simulate_jobs(empty), jobs
    assert planned_jobs(repo) == {}, "restoring the module leaves no work"


@pytest.mark.pipeline
@pytest.mark.slow
def test_deleting_an_experiment_s_cell_folder_reruns_its_cells(built):
    """The profile's advice, "delete results/sim/ (or one experiment's folder under it)", left
    "Nothing to be done": Snakemake does not recompute a deleted file that a job with up-to-date
    outputs reads.  The default target lists every cell file: the folder's cells are planned
    again (every batch of that experiment, none of another), with what aggregates them."""
    repo, empty = built
    folder = repo / "results" / "sim" / "gap"
    aside = repo / "gap-aside"
    shutil.move(folder, aside)
    try:
        jobs = planned_jobs(repo)
    finally:
        shutil.move(aside, folder)
    gap_batches = {n: k for n, k in _simulate_jobs(empty).items() if n.startswith("simulate_gap_")}
    assert gap_batches and _simulate_jobs(jobs) == gap_batches, jobs
    assert jobs.get("aggregate") == 1 and "compile_report" in jobs, jobs
    assert planned_jobs(repo) == {}, "the cells back (bytes and times): nothing to do"
