# The lower side of Corollary 1: the explicit lower bound LB_T (privdtol.core.lower_bound) at
# every standard-instance cell and checkpoint of the regret experiments, computed once per run
# into results/agg/lower_bound.parquet (`privdtol lower-bound-table`).  The claims C6 and C7
# (checks.smk), the notebooks `lower` and `bounds` and the finding `lower_bound` read it.
#
#   snakemake results/agg/lower_bound.parquet

import os

from privdtol.analysis.claim_types import BOUNDS_TABLE, LOWER_EXPERIMENTS

#: the regret experiments of this config whose cells are held against LB_T
LOWER_TABLES = [agg_table(e) for e in LOWER_EXPERIMENTS if e in EXPERIMENTS]


rule lower_bound_table:
    input:
        agg=LOWER_TABLES,
        code=code_stamp("core", "analysis", "algorithms"),
    output:
        parquet=agg_table(BOUNDS_TABLE),
        csv=f"{AGG_DIR}/{BOUNDS_TABLE}.csv",
    log:
        "logs/aggregate/lower_bound.log",
    # on the critical path (C6, C7, three notebooks and the findings wait for it): first among
    # ready jobs, and one thread (asking for two, it waited for both cores to be free at once,
    # which a busy 2-core build reaches only at its end)
    priority: 20
    conda:
        "../envs/privdtol.yaml"
    threads: 1
    params:
        agg_dir=lambda wc, output: os.path.dirname(output.parquet),
    shell:
        "privdtol lower-bound-table --agg-dir {params.agg_dir:q} --jobs {threads:q}"
        " --out {output.parquet:q} --out {output.csv:q} > {log:q} 2>&1"
