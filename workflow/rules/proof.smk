# The proof of Theorem 1, step by step (Lemmas 4 and 5): the exact proof terms of every exact
# rps cell of the regret experiments, and of the proof claims' negative controls
# (privdtol.pipeline.proof).  The simulation job of a cell's home experiment writes
# results/proof/<cell_id>.json beside its exact table (simulate.smk, PROOF_HOMES: the proof's
# m-sums reuse the laws of the cell's exact regret, and Reg_T at its horizon is the number claim
# C2 reads); `privdtol proof-table` collects them, with the worst instances' terms, into
# results/agg/proof.parquet, the table of the proof claims L4, L5, L5a, L5b (checks.smk) and of
# the proof notebook.
#
#   snakemake results/agg/proof.parquet

import shlex

from privdtol.pipeline.proof import proof_rows


rule aggregate_proof:
    input:
        terms=[proof_path(PROOF_DIR, c) for ids in PROOF_HOMES.values() for c in sorted(ids)],
        worst=[f"{WORST_DIR}/{s.search_id}.proof.json" for s in PROOF_SEARCHES],
        # what it reads of the config: the proof cells of the plan, by experiment
        piece=config_piece("proof", proof_rows(PLAN, proof_algorithms())),
        code=code_stamp("pipeline"),
    output:
        parquet=f"{AGG_DIR}/proof.parquet",
        csv=f"{AGG_DIR}/proof.csv",
    log:
        "logs/aggregate/proof.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=MERGED_ARG,
        proof_dir=lambda wildcards, input: (
            Path(input.terms[0]).parent if input.terms else PROOF_DIR
        ),
    shell:
        "privdtol proof-table {params.configs} --proof-dir {params.proof_dir:q}"
        " --out {output.parquet:q} --out {output.csv:q} {input.worst:q} > {log:q} 2>&1"
