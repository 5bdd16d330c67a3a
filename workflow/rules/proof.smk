# The proof of Theorem 1, step by step (Lemmas 4 and 5): the exact proof terms of every exact
# rps cell of the regret experiments, and of the proof claims' negative controls
# (privdtol.pipeline.proof).  One job per batch of cells writes results/proof/<cell_id>.json
# (`privdtol proof-batch`, reading Reg_T at the cell's horizon from its exact table: the number
# claim C2 reads); `privdtol proof-table` collects them into results/agg/proof.parquet, the
# table of the proof claims L4, L5, L5a, L5b (checks.smk) and of the proof notebook.
#
#   snakemake results/agg/proof.parquet

import shlex

from privdtol.analysis.registry import proof_algorithms
from privdtol.pipeline.proof import proof_batches, proof_path

PROOF_DIR = "results/proof"
#: the proof jobs of this config (none when it has no exact rps cell in the regret experiments)
PROOF_BATCHES = proof_batches(
    PLAN,
    proof_algorithms(),
    CONFIG["batching"]["target_seconds"],
    CONFIG["batching"]["max_cells"],
)


for _batch in PROOF_BATCHES:

    rule:
        name:
            _batch.name
        input:
            sim=[
                grid.cell_path(SIM_DIR, _batch.experiment.removeprefix("proof_"), c)
                for c in _batch.cells
            ],
            code=code_stamp("engine"),
        output:
            [proof_path(PROOF_DIR, c) for c in _batch.cells],
        log:
            f"logs/proof/{_batch.name}.log",
        benchmark:
            f"results/benchmarks/proof/{_batch.name}.tsv"
        priority: 10  # as soon as its cells are simulated, beside the checks and notebooks
        conda:
            "../envs/privdtol.yaml"
        params:
            cells=_batch.cells_json(),
            sim_dir=lambda wildcards, input: Path(input.sim[0]).parent,
            out_dir=lambda wildcards, output: Path(output[0]).parent,
        shell:
            "privdtol proof-batch --cells {params.cells:q} --sim-dir {params.sim_dir:q}"
            " --out-dir {params.out_dir:q} > {log:q} 2>&1"


rule aggregate_proof:
    input:
        terms=[proof_path(PROOF_DIR, c) for b in PROOF_BATCHES for c in b.cells],
        worst=[f"{WORST_DIR}/{s.search_id}.proof.json" for s in WORST_SEARCHES],
        configs=report_configfiles(),
        code=code_stamp("pipeline"),
    output:
        parquet=f"{AGG_DIR}/proof.parquet",
        csv=f"{AGG_DIR}/proof.csv",
    log:
        "logs/aggregate/proof.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=lambda wc, input: " ".join(f"--config {shlex.quote(f)}" for f in input.configs),
        proof_dir=lambda wildcards, input: (
            Path(input.terms[0]).parent if input.terms else PROOF_DIR
        ),
    shell:
        "privdtol proof-table {params.configs} --proof-dir {params.proof_dir:q}"
        " --out {output.parquet:q} --out {output.csv:q} {input.worst:q} > {log:q} 2>&1"
