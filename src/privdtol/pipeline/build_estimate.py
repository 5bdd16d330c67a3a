"""What a whole build of a config costs before it is run (``privdtol check-config``): the job
time of every job of ``snakemake --cores N`` and the wall time on N cores.

The jobs are counted by Snakemake itself (:func:`planned_jobs`: a dry run of every job,
``--forceall``), so a rule added to the workflow is counted without an edit here.  Each job's
time is a model of its rule (:func:`job_seconds`): a simulation batch the plan's estimate of
its cells (:meth:`privdtol.pipeline.plan.Batch.estimated_seconds`) times
:data:`SIMULATION_FACTOR`, a search its evaluations times a cost growing with K, the privacy
audit a start plus its statistical runs, every other rule a measured constant per job
(:data:`RULE_SECONDS`, :data:`DEFAULT_SECONDS` for a rule it does not know).  The constants were
fitted to the two measured builds of docs/performance.md (the default config: 87 jobs, 276 s
of job time, 150 s wall on 2 cores; the paper config: 93 jobs, 854 s, 442 s): an estimate, not
a measurement (a busy machine is slower).

The wall time on ``cores`` cores (:func:`wall_seconds`) is the job time shared by the cores,
plus the report's last steps, which run alone (nothing else is left to run beside them).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from privdtol.errors import InputError

#: measured job time over the plan's estimate of the cells' CPU time (the plan's per-cell model
#: sizes batches and is conservative: the paper build's simulations took 380 s of 1439 s)
SIMULATION_FACTOR = 0.27
#: seconds of one evaluation of a worst-instance search, per action (K): 6 searches of 270
#: evaluations at K = 16 took 187-194 s, 6 of 220 at K = 4 about 44 s
SEARCH_SECONDS_PER_K = 0.0075
#: the privacy audit: a start (its exact searches) plus its statistical runs (algorithms x K x
#: runs x epsilons; 1.6 million in the default config, 32 s; 9.6 million in the paper's, 56 s)
PRIVACY_START_SECONDS = 28.0
PRIVACY_SECONDS_PER_RUN = 3e-6
#: the lower bound's table: per cell of the regret experiments it reads (2408 cells: 31 s)
LOWER_BOUND_SECONDS_PER_CELL = 0.0125
#: seconds per job of the other rules, by rule name or name prefix (``check_`` every check)
RULE_SECONDS = {
    "check_": 0.9,
    "notebook_": 7.0,
    "aggregate": 2.5,
    "aggregate_proof": 3.0,
    "aggregate_worst_case": 3.0,
    "power": 25.0,
    "multiverse": 10.0,
    "findings": 3.0,
    "index_notebooks": 2.0,
    "build_report_assets": 8.0,
    "draw_rulegraph": 5.0,
    "compile_report": 20.0,
    "build_explorer": 6.0,
    "write_config": 1.0,
    "all": 0.0,
}
#: a rule this model does not know
DEFAULT_SECONDS = 3.0
#: the rules that run alone at the end of a build (what waits for everything else)
TAIL_RULES = ("build_report_assets", "compile_report")
#: the experiments whose cells the lower bound's table reads
LOWER_EXPERIMENTS = ("horizon", "gap", "epsilon", "actions", "grid", "ablations")

_JOB_STATS = re.compile(r"^Job stats:\n.*?\n-+\s+-+\n(.*?)^total\s+\d+", re.S | re.M)


def parse_job_stats(output: str) -> dict[str, int]:
    """Rule name -> number of jobs, from the "Job stats" table of a Snakemake dry run."""
    table = _JOB_STATS.search(output)
    if table is None:
        return {}
    return {name: int(n) for name, n in re.findall(r"^(\S+)\s+(\d+)\s*$", table.group(1), re.M)}


def planned_jobs(snakefile: Path, configfile: str) -> dict[str, int]:
    """Every job of a build of ``configfile`` (``snakemake -n --forceall``, run beside
    ``snakefile``), rule name -> number of jobs; one line naming the config when Snakemake
    refuses it."""
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-n",
        "--forceall",
        "--nolock",
        "--snakefile",
        str(snakefile),
        "--configfile",
        str(Path(configfile).resolve()),
    ]
    proc = subprocess.run(
        cmd, cwd=snakefile.parent, capture_output=True, text=True, timeout=900, check=False
    )
    jobs = parse_job_stats(proc.stdout + proc.stderr)
    if proc.returncode != 0 or not jobs:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no job stats"]
        raise InputError("config", f"snakemake -n refused {configfile}: {tail[0]}", "")
    return jobs


def search_seconds(search) -> float:
    """One worst-instance search: its evaluations (budget and unseen instances) x K."""
    return (search.budget + search.unseen) * SEARCH_SECONDS_PER_K * search.K


def privacy_seconds(block: dict) -> float:
    """The privacy audit of a config's ``privacy:`` block (defaults filled)."""
    stat = block.get("statistical") or {}
    runs = (
        len(stat.get("algorithms", []))
        * len(stat.get("K", []))
        * int(stat.get("runs", 0))
        * len(block.get("epsilons", []))
    )
    return PRIVACY_START_SECONDS + PRIVACY_SECONDS_PER_RUN * runs


def job_seconds(rule: str, config: dict, plan: dict) -> float:
    """The modelled time of one job of ``rule`` in a build of ``config`` (its ``plan``)."""
    from privdtol.pipeline.worst_case import searches

    if rule.startswith("simulate_"):
        batches = {b.name: b for _, (_, bs) in plan.items() for b in bs}
        batch = batches.get(rule.removeprefix("simulate_"))
        return SIMULATION_FACTOR * batch.estimated_seconds() if batch else DEFAULT_SECONDS
    if rule.startswith("search_"):
        found = {s.search_id: s for s in searches(config)}
        search = found.get(rule.removeprefix("search_"))
        return search_seconds(search) if search else DEFAULT_SECONDS
    if rule == "audit_privacy":
        return privacy_seconds(config.get("privacy") or {})
    if rule == "lower_bound_table":
        cells = sum(len(plan[e][0]) for e in LOWER_EXPERIMENTS if e in plan)
        return 1.0 + LOWER_BOUND_SECONDS_PER_CELL * cells
    if rule in RULE_SECONDS:
        return RULE_SECONDS[rule]
    for prefix, seconds in RULE_SECONDS.items():
        if prefix.endswith("_") and rule.startswith(prefix):
            return seconds
    return DEFAULT_SECONDS


def family(rule: str) -> str:
    """The row of the estimate a rule is counted in: its name up to the first ``_`` for the
    generated rules (``simulate``, ``search``, ``check``, ``notebook``), else its name."""
    head = rule.split("_", 1)[0]
    return head if head in ("simulate", "search", "check", "notebook") else rule


def estimate(jobs: dict[str, int], config: dict, plan: dict) -> dict[str, tuple[int, float]]:
    """``{family: (jobs, seconds)}`` of a build's jobs (:func:`planned_jobs`)."""
    out: dict[str, tuple[int, float]] = {}
    for rule, n in jobs.items():
        key = family(rule)
        count, seconds = out.get(key, (0, 0.0))
        out[key] = (count + n, seconds + n * job_seconds(rule, config, plan))
    return out


def wall_seconds(rows: dict[str, tuple[int, float]], cores: int) -> float:
    """The wall time on ``cores`` cores: the job time shared by the cores, the report's last
    steps (:data:`TAIL_RULES`) alone."""
    if cores < 1:
        raise InputError("cores", f"got {cores}", "an integer >= 1")
    total = sum(s for _, s in rows.values())
    tail = sum(rows[r][1] for r in TAIL_RULES if r in rows)
    return (total - tail) / cores + tail


def minutes(seconds: float) -> str:
    """``2 min 30 s`` (rounded to the second)."""
    s = round(seconds)
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"
