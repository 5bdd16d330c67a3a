# privdtol: replication pipeline for Cesari & Colomboni, "Optimal Gap-Dependent Regret for
# Private Stochastic Decision-Theoretic Online Learning" (arXiv 2605.29148).
#
#   snakemake --cores 8                              # default config (config/config.yaml)
#   snakemake --cores 8 --configfile config/paper.yaml
#   snakemake simulate_all | aggregate_all | results/agg/horizon.parquet
#   snakemake archive                                # the run archive (after the build)
#   snakemake explore                                # the explorer, results/explorer/index.html
#
# The computation lives in the `privdtol` package; rules are thin shell calls to its CLI.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


# privdtol.pipeline.config validates the config once (JSON schema + semantics, one line naming
# the key and the allowed values) and fills the schema's defaults, at parse time.
include: "workflow/rules/common.smk"
include: "workflow/rules/config.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/worst_case.smk"
include: "workflow/rules/proof.smk"
include: "workflow/rules/lower_bound.smk"
include: "workflow/rules/floor.smk"
include: "workflow/rules/privacy.smk"
include: "workflow/rules/checks.smk"
include: "workflow/rules/notebooks.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/explorer.smk"


rule all:
    default_target: True
    input:
        # the files the aggregations read (cells, proof terms, search results) are targets too:
        # Snakemake does not recompute a deleted file that a job with up-to-date outputs reads,
        # only a missing target, so deleting a folder of cells under the sim_dir reruns those
        # cells and what aggregates them
        rules.simulate_all.input,
        rules.aggregate_proof.input.terms,
        rules.aggregate_proof.input.worst,
        rules.aggregate_worst_case.input.tables,
        rules.aggregate_worst_case.input.results,
        rules.aggregate_worst_case.input.traces,
        rules.aggregate_all.input,
        rules.checks_all.input,
        rules.notebooks_all.input,
        rules.compile_report.output,  # the PDF, and the .fls and .bbl report-arxiv reads
        rules.build_explorer.output,


# after `all`: the archive holds its outputs
include: "workflow/rules/archive.smk"
