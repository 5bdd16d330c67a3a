# The worst instances a search finds (the config's `worst_case:` block;
# privdtol.engine.worst_case): one job per (algorithm, K, gap, epsilon), `privdtol worst-case`,
# writing results/worst_case/<id>.json, its trace (.trace.csv), each objective's instance's
# exact regret at every checkpoint (.parquet) and, for softmax rules, the theorem1 instance's
# proof terms (.proof.json, joined to the proof table by proof.smk, so the lemmas are checked
# on it); aggregate_worst_case collects them into results/agg/worst_case.parquet (claim C2
# reads it: the bound is checked where it is closest) and results/agg/searches.parquet (one row
# per search and objective: the finding and the notebook worst).
#
#   snakemake results/agg/searches.parquet

import shlex

from privdtol.pipeline.worst_case import searches as worst_searches

WORST_DIR = "results/worst_case"
#: the searches of this config (none without a `worst_case:` block)
WORST_SEARCHES = worst_searches(CONFIG)
#: the searches whose theorem1 instance has proof terms
PROOF_SEARCHES = [s for s in WORST_SEARCHES if s.has_proof]


for _search in WORST_SEARCHES:
    _outputs = {
        "json": f"{WORST_DIR}/{_search.search_id}.json",
        "trace": f"{WORST_DIR}/{_search.search_id}.trace.csv",
        "table": f"{WORST_DIR}/{_search.search_id}.parquet",
    }
    if _search.has_proof:
        _outputs["proof"] = f"{WORST_DIR}/{_search.search_id}.proof.json"

    rule:
        name:
            f"search_{_search.search_id}"
        input:
            code=code_stamp(*SIM_CODE),  # the engine, the algorithms, the plugins' modules
        output:
            **_outputs,
        log:
            f"logs/worst_case/{_search.search_id}.log",
        conda:
            "../envs/privdtol.yaml"
        params:
            args=shlex.join(
                f"{v!r}" if isinstance(v, float) else str(v)
                for k in (
                    *("algorithm", "K", "gap", "epsilon", "budget", "seed"),
                    *("unseen", "tolerance", "horizon"),
                )
                for v in (f"--{k}", getattr(_search, k))
            )
            + " --objectives "
            + ",".join(_search.objectives),
            proof=lambda wildcards, output: (
                f"--proof {shlex.quote(output.proof)}" if "proof" in output.keys() else ""
            ),
        shell:
            "privdtol worst-case {params.args} --out {output.json:q} --trace {output.trace:q}"
            " --table {output.table:q} {params.proof} > {log:q} 2>&1"


rule aggregate_worst_case:
    input:
        tables=[f"{WORST_DIR}/{s.search_id}.parquet" for s in WORST_SEARCHES],
        results=[f"{WORST_DIR}/{s.search_id}.json" for s in WORST_SEARCHES],
        traces=[f"{WORST_DIR}/{s.search_id}.trace.csv" for s in WORST_SEARCHES],
        code=code_stamp("pipeline"),
    output:
        agg=f"{AGG_DIR}/worst_case.parquet",
        csv=f"{AGG_DIR}/worst_case.csv",
        searches=f"{AGG_DIR}/searches.parquet",
        searches_csv=f"{AGG_DIR}/searches.csv",
    log:
        "logs/aggregate/worst_case.log",
    conda:
        "../envs/privdtol.yaml"
    shell:
        "privdtol aggregate --experiment worst_case --out {output.agg:q} --out {output.csv:q}"
        " {input.tables:q} > {log:q} 2>&1"
        " && privdtol searches-table --out {output.searches:q} --out {output.searches_csv:q}"
        " {input.results:q} >> {log:q} 2>&1"
