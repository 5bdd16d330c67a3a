"""The Snakemake pipeline up to the aggregated tables: lint and dry runs, config errors stopped
before any job, outputs and logs, bytes independent of cores and batching, incremental grids
and a killed run resumed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from support.paths import BIN, ROOT, SMOKE
from support.workflow import copy_build, copy_workflow, run_snakemake, snakemake_env

T30 = (1 << 30) - 1


def smoke() -> dict:
    return yaml.safe_load(SMOKE.read_text())


def small_config(**batching) -> dict:
    """Two experiments of the smoke config (private and non-private, two loss models)."""
    cfg = smoke()
    keep = {"horizon", "dependent"}
    cfg["experiments"] = [e for e in cfg["experiments"] if e["name"] in keep]
    cfg["experiments"][0]["algorithms"] = ["rps", "wu_wang", "ftl"]
    cfg["batching"].update(batching)
    return cfg


def workdir(tmp: Path, cfg: dict) -> Path:
    """A copy of the workflow in ``tmp`` with ``cfg`` as its ``test.yaml``."""
    copy_workflow(tmp)
    (tmp / "test.yaml").write_text(yaml.safe_dump(cfg))
    return tmp


def snakemake(wd: Path, *args, check=True, configfile="test.yaml", target="aggregate_all", **kw):
    """Run snakemake in ``wd``; by default only up to the aggregated tables (the stage these
    tests are about: notebooks and the report have their own tests)."""
    targets = [target] if target and "--unlock" not in args else []
    return run_snakemake(wd, *targets, "--configfile", configfile, *args, check=check, **kw)


def agg_bytes(wd: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((wd / "results" / "agg").iterdir())}


def cell_files(wd: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(wd)): p.read_bytes()
        for p in sorted((wd / "results" / "sim").rglob("*.parquet"))
    }


def sim_logs(wd: Path, pattern="*.log") -> str:
    return "".join(p.read_text() for p in sorted((wd / "logs" / "simulate").glob(pattern)))


def n_cells(cfg: dict) -> int:
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.config import load_config

    return sum(len(cells) for cells, _ in grid.plan(load_config(cfg)).values())


def job_count(out: str) -> int:
    m = re.search(r"^total\s+(\d+)", out, re.M)
    return int(m.group(1)) if m else 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The small config, one job per experiment, --cores 1."""
    wd = workdir(tmp_path_factory.mktemp("ref"), small_config())
    snakemake(wd, "--cores", "1")
    return wd


@pytest.mark.pipeline
@pytest.mark.slow
def test_lint_and_dry_run():
    proc = run_snakemake(ROOT, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_snakemake(ROOT, "-n", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.pipeline
@pytest.mark.slow
def test_paper_dry_run_has_at_most_500_jobs(tmp_path):
    wd = workdir(tmp_path, smoke())
    proc = snakemake(wd, "-n", "--quiet", "rules", configfile="config/paper.yaml", target=None)
    n = job_count(proc.stdout + proc.stderr)
    assert 0 < n <= 500, proc.stdout


@pytest.mark.pipeline
@pytest.mark.slow
@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda e: e.update(gaps=[0.5]),
            "experiments[0].gaps: unknown key (allowed: name, description, algorithms",
        ),
        (
            lambda e: e.update(epsilon=[-1.0]),
            "experiments[0].epsilon[0]: got -1.0 (allowed: numbers > 0)",
        ),
        (
            lambda e: e.update(gap=[1.5]),
            "experiments[0].gap[0]: got 1.5 (allowed: numbers > 0 and <= 1)",
        ),
        (lambda e: e.update(K=[1]), "experiments[0].K[0]: got 1 (allowed: integers >= 2"),
        (
            lambda e: e.update(algorithms=["rps", "ucb"]),
            "experiments[0].algorithms[1]: got 'ucb' (allowed: rps, rnm_ftnl, wu_wang, "
            "wu_wang_gumbel, rps_full_prefix, rps_uncapped, ftl, hedge, uniform, ftl_egreedy, "
            "rps_eta_logk, rps_eta_sq, rps_short_prefix, rps_uniform_mix, rps_hot)",
        ),
    ],
)
def test_bad_config_stops_before_any_job(tmp_path, mutate, message):
    cfg = small_config()
    mutate(cfg["experiments"][0])
    wd = workdir(tmp_path, cfg)
    proc = snakemake(wd, "--cores", "1", check=False)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert f"invalid config: {message}" in out, out
    assert out.count("invalid config:") == 1
    assert not (wd / "results").exists() and not (wd / "logs").exists()


@pytest.mark.pipeline
@pytest.mark.slow
def test_outputs_logs_benchmarks_and_contract(reference):
    import pandas as pd

    from privdtol.pipeline.aggregate import COLUMNS

    for name in ("horizon", "dependent"):
        df = pd.read_parquet(reference / "results" / "agg" / f"{name}.parquet")
        assert list(df.columns) == COLUMNS
        csv = pd.read_csv(reference / "results" / "agg" / f"{name}.csv")
        assert list(csv.columns) == COLUMNS and len(csv) == len(df)
        assert (df.experiment == name).all()
        final = df[df.env != "beta"].groupby("cell_id").horizon.max()
        assert (final == T30).all()
        assert (reference / "logs" / "aggregate" / f"{name}.log").exists()
    assert list((reference / "logs" / "simulate").glob("*.log"))
    assert list((reference / "results" / "benchmarks" / "simulate").glob("*.tsv"))
    # readable by the other users of a shared cluster (mode 0666 & ~umask, umask 022 here)
    modes = {
        str(p.relative_to(reference)): oct(p.stat().st_mode & 0o777)
        for d in ("results", "logs")
        for p in (reference / d).rglob("*")
        if p.is_file()
    }
    assert modes and set(modes.values()) == {"0o644"}, modes
    # nothing left to do
    assert job_count(snakemake(reference, "-n").stdout) == 0


@pytest.mark.pipeline
@pytest.mark.slow
def test_bytes_do_not_depend_on_cores_or_batching(reference, tmp_path):
    wd = workdir(tmp_path, small_config(max_cells=3))
    proc = snakemake(wd, "--cores", "2")
    assert "simulate_dependent_002" in proc.stdout + proc.stderr  # really re-batched
    assert agg_bytes(wd) == agg_bytes(reference)


@pytest.mark.pipeline
@pytest.mark.slow
def test_growing_a_grid_list_computes_only_new_cells(reference, tmp_path):
    wd = tmp_path / "wd"
    copy_build(reference, wd)
    before = cell_files(wd)
    cfg = small_config()
    cfg["experiments"][0]["K"].append(2)  # horizon: three new cells
    (wd / "test.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(wd, "--cores", "1")
    after = cell_files(wd)
    assert set(before) < set(after) and len(after) - len(before) == 3
    assert {k: after[k] for k in before} == before  # same bytes, and not recomputed:
    logs = sim_logs(wd, "horizon_*.log")
    computed = sum(int(m) for m in re.findall(r"simulate-batch: (\d+) cells computed", logs))
    assert computed == 3 and logs.count("skip ") == 3, logs  # whatever the batch boundaries
    # the dependent experiment was not touched at all
    assert "aggregate" in proc.stdout + proc.stderr
    assert agg_bytes(wd)["dependent.parquet"] == agg_bytes(reference)["dependent.parquet"]


@pytest.mark.pipeline
@pytest.mark.slow
def test_killed_run_resumes_missing_work_only(reference, tmp_path):
    cfg = small_config(max_cells=1)  # one cell per job
    total = n_cells(cfg)
    wd = workdir(tmp_path, cfg)
    cmd = [str(BIN / "snakemake"), "aggregate_all", "--configfile", "test.yaml", "--cores", "1"]
    proc = subprocess.Popen(
        cmd,
        cwd=wd,
        env=snakemake_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    sim = wd / "results" / "sim"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list(sim.rglob("*.parquet"))) >= 3:
                break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its running job
        proc.wait()
    done = cell_files(wd)
    assert 3 <= len(done) < total, "the run was not interrupted halfway"
    import pyarrow.parquet as pq

    for path in done:  # nothing truncated is trusted
        pq.read_table(wd / path)
    # a SIGKILL leaves Snakemake's lock behind (Ctrl-C does not): release it, then rerun
    snakemake(wd, "--unlock")
    shutil.rmtree(wd / "logs" / "simulate")  # keep only the rerun's logs
    proc = snakemake(wd, "--cores", "2")
    out = proc.stdout + proc.stderr
    after = cell_files(wd)
    assert {k: after[k] for k in done} == done
    assert len(after) == total
    logs = sim_logs(wd)
    computed = sum(int(n) for n in re.findall(r"(\d+) cells computed", logs))
    skipped = sum(int(n) for n in re.findall(r"(\d+) skipped", logs))
    assert computed == total - len(done), logs  # only the missing cells
    assert skipped <= 1  # the killed job's cell, if written
    assert agg_bytes(wd) == agg_bytes(reference)
    assert job_count(snakemake(wd, "-n").stdout) == 0
    assert "Error" not in out
