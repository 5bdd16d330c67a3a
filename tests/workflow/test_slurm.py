"""The pipeline on a real (single-node) SLURM cluster through workflow/profiles/slurm: the
aggregated tables are byte-identical to the local run's, ``sacct`` lists the jobs COMPLETED,
and a job failing on the cluster fails the run.

Needs root and the throwaway cluster of .ci/slurm-cluster.sh, so it only runs when
PRIVDTOL_SLURM_TESTS=1 (which .ci/run sets after `.ci/slurm-cluster.sh up`):

    .ci/slurm-cluster.sh up
    PRIVDTOL_SLURM_TESTS=1 .venv/bin/pytest -q tests/workflow/test_slurm.py
    .ci/slurm-cluster.sh down
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from support.paths import ROOT
from support.workflow import copy_workflow, run_snakemake, snakemake_env

CONFIG = "config/smoke.yaml"
ACCOUNT, PARTITION = "privdtol", "ci"  # the cluster of .ci/slurm-cluster.sh
TIMEOUT = 900  # seconds per Snakemake run: a hang (e.g. a status command that never
# answers) fails the test instead of blocking CI

pytestmark = [
    pytest.mark.slurm,
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("PRIVDTOL_SLURM_TESTS") != "1",
        reason="needs root and a SLURM cluster: run `.ci/slurm-cluster.sh up` and set "
        "PRIVDTOL_SLURM_TESTS=1 (.ci/run does both)",
    ),
]

TARGET = "aggregate_all"  # the simulations and the aggregated tables (results/agg/)
SLURM_ARGS = [
    "--workflow-profile",
    str(ROOT / "workflow/profiles/slurm"),
    "--profile",
    str(ROOT / "workflow/profiles/slurm-test"),
]


def _snakemake(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake in ``cwd``, both output streams in ``stdout`` (also kept in snakemake.out).
    The jobs call `privdtol`; the plugin submits with --export=ALL, so cluster jobs get the
    environment's PATH (this interpreter's scripts first) too."""
    env = snakemake_env(SBATCH_ACCOUNT=ACCOUNT, SBATCH_PARTITION=PARTITION)
    proc = run_snakemake(cwd, *args, check=False, env=env, timeout=TIMEOUT, merge_output=True)
    (cwd / "snakemake.out").write_text(proc.stdout)
    return proc


def _run_id(output: str) -> str:
    m = re.search(r"SLURM run ID: (\S+)", output)
    assert m, "no 'SLURM run ID' in Snakemake's output: the slurm executor was not used"
    return m.group(1)


def _sacct(run_id: str) -> list[tuple[str, str, str]]:
    """(job id, state, exit code) of the allocations whose job name is the run's ID."""
    out = subprocess.run(
        [
            "sacct",
            "-X",
            "-n",
            "-P",
            "-S",
            "now-1days",
            "--name",
            run_id,
            "--format=JobID,State,ExitCode",
        ],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    return [tuple(line.split("|")) for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="module", autouse=True)
def cluster():
    try:
        out = subprocess.run(
            ["sinfo", "-h", "-p", PARTITION, "-o", "%T"],
            check=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError) as err:
        pytest.fail(
            f"PRIVDTOL_SLURM_TESTS=1 but no SLURM cluster answers ({err}); "
            "run `.ci/slurm-cluster.sh up` first"
        )
    assert re.search(r"idle|mixed|alloc", out), f"partition {PARTITION}: node state {out!r}"


@pytest.fixture(scope="module")
def local_run(smoke_run):
    """The local run: the session's smoke build (tests/conftest.py), whose aggregated tables of
    the experiments are those of ``aggregate_all`` (no second local build)."""
    return smoke_run


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory):
    # (run after the local one, not beside it: on a 2-core machine side by side was slower)
    work = copy_workflow(tmp_path_factory.mktemp("slurm") / "wf", dirs=("workflow", "config"))
    proc = _snakemake(work, TARGET, *SLURM_ARGS, "--configfile", "config/smoke.yaml")
    assert proc.returncode == 0, proc.stdout[-5000:]
    return work, _run_id(proc.stdout)


def test_slurm_tables_byte_identical_to_local(local_run, slurm_run):
    slurm_dir, _ = slurm_run
    experiments = {e["name"] for e in yaml.safe_load((ROOT / CONFIG).read_text())["experiments"]}
    local = sorted(
        p.relative_to(local_run)
        for p in (local_run / "results/agg").glob("*.*")
        if p.suffix in (".parquet", ".csv") and p.stem in experiments  # aggregate_all's tables
    )
    remote = sorted(
        p.relative_to(slurm_dir)
        for p in (slurm_dir / "results/agg").glob("*.*")
        if p.suffix in (".parquet", ".csv")
    )
    assert local, "the local run produced no aggregated tables"
    assert remote == local
    differ = [str(p) for p in local if (local_run / p).read_bytes() != (slurm_dir / p).read_bytes()]
    assert not differ, f"tables differ between the local and the SLURM run: {differ}"


def test_sacct_lists_the_jobs_completed(slurm_run):
    _, run_id = slurm_run
    jobs = _sacct(run_id)
    assert jobs, f"sacct lists no job named {run_id}"
    assert all(state == "COMPLETED" and code == "0:0" for _, state, code in jobs), jobs


def test_failing_job_fails_the_run(tmp_path):
    (tmp_path / "Snakefile").write_text(
        'rule all:\n    input: "fail.txt"\n\n'
        'rule fail:\n    output: "fail.txt"\n    log: "logs/fail.log"\n'
        '    shell: "echo failing on purpose > {log}; exit 1"\n'
    )
    # --retries 0: the profile would resubmit the job once (a second FAILED allocation, ~30 s)
    proc = _snakemake(tmp_path, *SLURM_ARGS, "--retries", "0")
    assert proc.returncode != 0, proc.stdout[-5000:]
    assert "Error in rule fail" in proc.stdout or "Error in group" in proc.stdout, proc.stdout[
        -5000:
    ]
    assert not (tmp_path / "fail.txt").exists()
    jobs = _sacct(_run_id(proc.stdout))
    assert jobs and all(state == "FAILED" for _, state, _ in jobs), jobs
