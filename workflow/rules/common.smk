# Shared set-up: configuration checks and the simulation plan (privdtol.pipeline.plan).

from pathlib import Path

from snakemake.exceptions import WorkflowError

from privdtol.pipeline import plan as grid
from privdtol.errors import InputError
from privdtol.pipeline.config import load_config


def checked_config(cfg):
    """privdtol.pipeline.plan's validation: the first problem as one line naming the key and the
    allowed values, raised before any job is scheduled."""
    try:
        return load_config(cfg)
    except InputError as err:
        raise WorkflowError(f"invalid config: {err}") from None


CONFIG = checked_config(config)
config.clear()
config.update(CONFIG)  # one validated, default-filled dict for every rule

SIM_DIR = CONFIG["sim_dir"]
AGG_DIR = CONFIG["agg_dir"]
PLAN = grid.plan(CONFIG)
EXPERIMENTS = list(PLAN)


def layer_sources(*layers):
    """The Python files of the given subpackages of privdtol (e.g. "analysis", "report"): a
    rule lists them as inputs so that editing a layer reruns exactly the rules that use it
    (mtime trigger), never the simulations below it.  See docs on staleness."""
    import privdtol

    root = Path(privdtol.__file__).parent
    return sorted(str(p) for layer in layers for p in (root / layer).rglob("*.py"))


def cell_files(experiment):
    """The cell files of an experiment (results/sim/<experiment>/<cell_id>.parquet)."""
    return [grid.cell_path(SIM_DIR, experiment, c) for c in PLAN[experiment][0]]


# ----------------------------------------------------------------------------- report helpers

from pathlib import Path

from privdtol.report import assets as REPORT


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
    """Claims whose check JSON this config produces; notebooks.smk may define CHECK_CLAIMS.
    Missing ones (C1 until the privacy audit exists) are shown as "not run"."""
    claims = globals().get("CHECK_CLAIMS")
    if claims is not None:
        return list(claims)
    return [c for c in REPORT.CLAIMS if c != "C1" or config.get("privacy")]


def report_results():
    """Figures and tables whose experiments this config runs."""
    return [n for n in REPORT.RESULTS
            if any(e in EXPERIMENTS or (e == "privacy" and config.get("privacy"))
                   for e in REPORT.RESULT_EXPERIMENTS[n])]
