# The explorer (privdtol explorer, privdtol.report.explorer): results/explorer/index.html, one
# self-contained page (data and Plotly inline, no network) plotting regret against the horizon
# for every cell of the aggregated regret tables of this config, with Theorem 1's bound for RPS,
# and linking to the report, the notebook index and every check record.  Part of `all` and of
# the run archive.
#
#   snakemake explore                # or: results/explorer/index.html

import os

EXPLORER_HTML = "results/explorer/index.html"


rule build_explorer:
    input:
        agg=expand(
            f"{AGG_DIR}/{{experiment}}.parquet",
            experiment=EXPERIMENTS + (["worst_case"] if WORST_SEARCHES else []),
        ),
        checks=[f"{CHECKS_DIR}/{c}.json" for c in CHECK_CLAIMS],
        code=code_stamp("report"),  # its templates (explorer.html.j2, explorer.js) included
    output:
        report(EXPLORER_HTML, caption="../report/explorer.rst", category="Explorer"),
    log:
        "logs/explorer/build_explorer.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        checks=lambda wc, input: os.path.dirname(input.checks[0]),
    shell:
        "privdtol explorer --agg {input.agg:q} --checks {params.checks:q} --out {output:q}"
        " > {log:q} 2>&1"


rule explore:
    input:
        rules.build_explorer.output,
    localrule: True
