# Simulation: one job per batch of cells (privdtol.pipeline.plan.make_batches), one Parquet file per
# cell.  Cell files are named by the cell alone (results/sim/<experiment>/<cell_id>.parquet),
# and batches are only a scheduling device.  Outputs are flagged update(): Snakemake does not
# delete a batch's existing cell files before re-running it, and `privdtol simulate-batch`
# skips the cells that already exist.  So when a grid list grows (batch boundaries shift) or a
# batch was killed halfway, only the missing cells are computed.  Every file is written
# atomically (temp file + rename): a killed job never leaves a truncated Parquet behind.

for _experiment, (_cells, _batches) in PLAN.items():
    for _batch in _batches:
        _proof = PROOF_HOMES.get(_experiment, frozenset())

        rule:
            name:
                f"simulate_{_batch.name}"
            input:
                # the code that computes the cells (plugins included): an edit reruns the
                # batch, and simulate-batch recomputes the cells whose code digest changed
                code=code_stamp(*SIM_CODE),
            output:
                cells=[update(grid.cell_path(SIM_DIR, _experiment, c)) for c in _batch.cells],
                proof=[
                    update(proof_path(PROOF_DIR, c)) for c in _batch.cells if c.cell_id in _proof
                ],
            log:
                f"logs/simulate/{_batch.name}.log",
            benchmark:
                f"results/benchmarks/simulate/{_batch.name}.tsv"
            priority: 10  # before the searches and findings, which wait for nothing
            group:
                "simulate"  # on a cluster, several batches share one job (profile: group-components)
            conda:
                "../envs/privdtol.yaml"
            params:
                cells=_batch.cells_json(),
                out_dir=lambda wildcards, output: Path(output.cells[0]).parent,
                proof_dir=lambda wildcards: PROOF_DIR,
                proof_cells=batch_proof_ids,
            shell:
                "privdtol simulate-batch --out-dir {params.out_dir:q} --cells {params.cells:q}"
                " --proof-dir {params.proof_dir:q} --proof-cells={params.proof_cells:q}"
                " > {log:q} 2>&1"


rule simulate_all:
    input:
        [f for e in EXPERIMENTS for f in cell_files(e)],
