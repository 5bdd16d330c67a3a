# The floor experiment (the config's `floor:` block; privdtol.pipeline.floor): at every cell
# (K, gap, epsilon) of the standard two-level instance and every horizon up to the largest the
# block's budget solves, the true floor OPT_T (an exact linear program, `privdtol optimal`),
# the lower bound LB_T and its terms, and every registered private algorithm's exact Reg_T,
# into results/agg/floor.parquet (`privdtol floor-table`).  The claim C8 (checks.smk) and the
# notebook `floor` read it.  Deterministic: no seed.
#
#   snakemake results/agg/floor.parquet

import json

from privdtol.pipeline.floor import check_floor_block

if config.get("floor"):  # the block's checks at parse time, before any job
    checked(check_floor_block, config["floor"])


rule floor_table:
    input:
        # the floor: block, so that editing it reruns the table (the params are not a trigger)
        piece=config_piece("floor", config.get("floor", {})),
        code=code_stamp("core", "engine", "algorithms", "pipeline"),
    output:
        parquet=f"{AGG_DIR}/floor.parquet",
        csv=f"{AGG_DIR}/floor.csv",
    log:
        "logs/aggregate/floor.log",
    # independent of the simulations: early, beside them
    priority: 40
    conda:
        "../envs/privdtol.yaml"
    threads: 1
    params:
        grid=json.dumps(config.get("floor", {}), sort_keys=True),
    shell:
        "privdtol floor-table --grid-json {params.grid:q}"
        " --out {output.parquet:q} --out {output.csv:q} > {log:q} 2>&1"
