# Aggregation: one table per experiment, one row per (cell, checkpoint horizon), with mean
# regret, se, 95% CI, quantiles and the bound shapes (privdtol.pipeline.aggregate).


rule aggregate:
    input:
        cells=lambda wildcards: cell_files(wildcards.experiment),
    output:
        parquet=f"{AGG_DIR}/{{experiment}}.parquet",
        csv=f"{AGG_DIR}/{{experiment}}.csv",
    log:
        "logs/aggregate/{experiment}.log",
    wildcard_constraints:
        experiment="|".join(EXPERIMENTS),
    # first among ready jobs: short, everything downstream waits for them, and while they wait
    # Snakemake stats their thousands of inputs at every scheduling pass
    priority: 20
    conda:
        "../envs/privdtol.yaml"
    shell:
        "privdtol aggregate --experiment {wildcards.experiment:q} --out {output.parquet:q}"
        " --out {output.csv:q} {input.cells:q} > {log:q} 2>&1"


rule aggregate_all:
    input:
        expand(f"{AGG_DIR}/{{experiment}}.{{ext}}", experiment=EXPERIMENTS, ext=["parquet", "csv"]),
