# Shared set-up: configuration checks and the simulation plan (privdtol.pipeline.plan).

import shlex
import sys
from pathlib import Path

from privdtol.errors import InputError

try:  # the registries, installed plugins included: a broken plugin is one line naming it
    from privdtol.algorithms import ALGORITHMS
    from privdtol.environments import MODELS
except InputError as err:
    print(f"invalid plugin: {err}", file=sys.stderr, flush=True)
    raise SystemExit(2)

from privdtol.pipeline import plan as grid
from privdtol.pipeline import config_stamps, run_config, staleness, tools
from privdtol.analysis.registry import CLAIMS
from privdtol.analysis import held_out as OUT_OF_SAMPLE
from privdtol.pipeline.config import load_config, read_config_files
from privdtol.pipeline.semantics import check_out_dirs
from privdtol.pipeline.overrides import coerce_overrides


def checked(make, *args):
    """privdtol.pipeline's validation (config files read strictly: no YAML aliases, duplicate
    keys or non-UTF-8 bytes; then schema, semantics, the engine's limits and the size guard of
    the plan): the first problem as one line naming the key (or file) and the allowed values,
    raised before any job is scheduled."""
    try:
        return make(*args)
    except InputError as err:
        refuse_config(err)


def refuse_config(err):
    """A config refusal as one line on stderr, no frames, exit 2 (Snakemake's WorkflowError
    would print the rule file's frames and exit 1)."""
    print(f"invalid config: {err}", file=sys.stderr, flush=True)
    raise SystemExit(2)


checked(read_config_files, [*workflow.configfiles, *(workflow.overwrite_configfiles or [])])
# `--config checks="{confidence: 0.9}"`: Snakemake reads nested values as strings; the schema's
# types make them numbers again (privdtol.pipeline.overrides)
coerce_overrides(config, workflow.config_settings.overwrite_config or {})
CONFIG = checked(load_config, config)
checked(check_out_dirs, CONFIG)
config.clear()
config.update(CONFIG)  # one validated, default-filled dict for every rule

#: the run's merged config (the config files and the --config overrides, validated, defaults
#: filled: CONFIG), written once by the rule write_config; every job that reads the config is
#: given this file, never the config files (privdtol.pipeline.run_config)
RUN_CONFIG = run_config.MERGED
#: the config files (with their sha256) and the --config overrides it was merged from (the
#: report's provenance lists them): the rule write_config, with the merged config
RUN_SOURCES = run_config.SOURCES

SIM_DIR = CONFIG["sim_dir"]
AGG_DIR = CONFIG["agg_dir"]
PLAN = checked(grid.plan, CONFIG)
EXPERIMENTS = list(PLAN)


#: the content-addressed code stamps of code_stamp() (privdtol.pipeline.staleness)
CODE_DIR = "results/code"


#: what a simulation, an audit or a search runs: its layers and the installed plugins' modules
SIM_CODE = (*staleness.SIM_LAYERS, staleness.PLUGINS)


def code_stamp(*layers):
    """The stamp of the given subpackages of privdtol (e.g. "analysis", "report"): a rule lists
    it as an input, so that editing a layer reruns exactly the rules that run it, never the
    simulations below it, whichever installation of the same code runs (docs/pipeline.md,
    the staleness rule)."""
    return staleness.code_stamp(CODE_DIR, layers)


#: the content-addressed stamps of the config's pieces of config_piece()
#: (privdtol.pipeline.config_stamps)
CONFIG_STAMP_DIR = "results/config"


def config_piece(name, value):
    """The stamp of the piece ``value`` of the config that the rule ``name`` reads (e.g. a
    check's thresholds): a rule lists it as an input (and reads the config from MERGED_PIECE,
    a param), so that editing a value reruns exactly the rules that read it (docs/pipeline.md,
    the staleness rule)."""
    return config_stamps.config_stamp(CONFIG_STAMP_DIR, name, value)


#: the run's whole config (description included): the stamp of the rules that read all of it
#: (write_config, the report's assets).  It is also the config file the jobs read (`--config`,
#: a param, not an input): written at parse time and never rewritten (a new content is a new
#: file), it exists before any job and cannot change under one.  An input RUN_CONFIG would
#: make every job that reads it downstream of write_config, which reruns on every edit: Snakemake
#: then reruns them all (or, flagged ancient, skips the ones whose own stamp changed)
MERGED_PIECE = config_piece("merged", run_config.canonical(CONFIG))
MERGED_ARG = f"--config {shlex.quote(MERGED_PIECE)}"


def agg_table(experiment):
    """The aggregated table of an experiment (the privacy audit's included)."""
    return f"{AGG_DIR}/{experiment}.parquet"


def claim_tables(claim):
    """The aggregated tables of a claim's experiments that this config produces."""
    return [agg_table(e) for e in CLAIMS[claim].experiments if e in CHECK_EXPERIMENTS]


def cell_files(experiment):
    """The cell files of an experiment (results/sim/<experiment>/<cell_id>.parquet)."""
    return [grid.cell_path(SIM_DIR, experiment, c) for c in PLAN[experiment][0]]


onstart:
    # before the first job (never in a dry run): a build of other config files over this
    # results/ is refused in one line naming both (it would replace that run's outputs)
    try:
        run_config.check_same_run(RUN_SOURCES, report_configfiles())
    except InputError as err:
        refuse_config(err)
    # the commands the jobs to run need, present and importing this package
    # (privdtol.pipeline.tools), or one line saying what to install
    tools.check_jobs(
        {job.rule.name: job.rule.shellcmd for job in workflow.dag.needrun_jobs()},
        staleness.package_root(),
    )


# ----------------------------------------------------------------------------- report helpers

from privdtol.analysis.registry import NOTEBOOKS as REPORT_NOTEBOOKS
from privdtol.report.latex import assets as REPORT


def report_configfiles():
    """The config files in Snakemake's merge order: the Snakefile's ``configfile:``, then
    every ``--configfile`` (later ones win), each once."""

    def rel(f):  # relative to the working directory when inside it (as the report shows it)
        path = Path(f).resolve()
        return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(f)

    cli = [rel(f) for f in (workflow.overwrite_configfiles or [])]
    files = [rel(f) for f in workflow.configfiles if rel(f) not in cli] + cli
    return list(dict.fromkeys(files))


def report_claims():
    """Claims whose check JSON this config produces (CHECK_CLAIMS of checks.smk); the
    registry's other claims are shown as "not run"."""
    return list(CHECK_CLAIMS)


def report_results():
    """The figures and table CSVs of the notebooks this config runs (NB_NAMES of
    notebooks.smk: those reading an experiment it produces, privacy only with a
    ``privacy:`` block); the others are shown as "not run"."""
    return [f"results/figures/{n}.pdf" for n in NB_NAMES] + [
        f"results/tables/{t}.csv" for n in NB_NAMES for t in REPORT_NOTEBOOKS[n].tables
    ]


from privdtol.analysis.registry import proof_algorithms
from privdtol.pipeline.proof import proof_homes, proof_path

PROOF_DIR = "results/proof"
#: {home experiment: ids of its cells whose simulation job also writes their proof terms
#: (results/proof/<cell_id>.json, from the laws of the cell's exact regret: proof.smk)}
PROOF_HOMES = proof_homes(PLAN, proof_algorithms())


def batch_proof_ids(wildcards, output):
    """The ids of a simulation batch's proof cells, comma-separated ("" if none)."""
    return ",".join(Path(f).stem for f in output.proof)


def checks_piece(name, claims, *keys):
    """The stamp of what a job running the checks of ``claims`` reads of the config: the
    thresholds their records declare (a check reads no other: privdtol check holds it to
    them), the ``checks`` keys ``keys`` of the job itself, and every other value but the
    descriptions (the cells it builds its tables from).  A threshold none of them declares is
    not in the piece: editing it does not rerun the job."""
    declared = {k for c in claims for k in CLAIMS[c].thresholds}
    return config_piece(name, config_stamps.with_checks(CONFIG, declared | set(keys)))
