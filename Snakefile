# privdtol: replication pipeline for Cesari & Colomboni, "Optimal Gap-Dependent Regret for
# Private Stochastic Decision-Theoretic Online Learning" (arXiv 2605.29148).
#
#   snakemake --cores 8                              # default config (config/config.yaml)
#   snakemake --cores 8 --configfile config/paper.yaml
#   snakemake simulate_all | aggregate_all | results/agg/horizon.parquet
#
# The computation lives in the `privdtol` package; rules are thin shell calls to its CLI.

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


# privdtol.grid checks the config first (schema + semantics; one line naming the key and the
# allowed values), then Snakemake's own validation fills the documented defaults.  Both run at
# parse time, before any job is scheduled.
include: "workflow/rules/common.smk"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/simulate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/privacy.smk"
include: "workflow/rules/notebooks.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        rules.aggregate_all.input,
        rules.notebooks_all.input,
        rules.compile_report.output.pdf,
