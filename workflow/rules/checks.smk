# Checks: one rule per claim of the registry (privdtol.analysis.registry.CLAIMS) that this config
# can check, check_<ID>: `privdtol check --claim ID` reads the aggregated tables of the claim's
# experiments and writes results/checks/<ID>.json (deterministic JSON: statistic, interval,
# threshold from the config's `checks:` block, verdict).  Inputs are the tables, the config files
# (merged in Snakemake's order, validated by the one loader) and the sources of the analysis and
# core layers: editing the analysis layer reruns the checks (and what reads them), never a
# simulation.
#
#   snakemake check_C2               # one claim
#   snakemake checks_all             # every claim of this config

import os
import shlex

from privdtol.analysis.registry import CLAIMS, claims_for

#: experiments whose aggregated table this config produces ("privacy": the audit's table)
CHECK_EXPERIMENTS = EXPERIMENTS + (["privacy"] if config.get("privacy") else [])
#: the claims checked (report_claims() in common.smk reads this list)
CHECK_CLAIMS = claims_for(CHECK_EXPERIMENTS)
CHECKS_DIR = "results/checks"


for _claim in CHECK_CLAIMS:

    rule:
        name:
            f"check_{_claim}"
        input:
            agg=claim_tables(_claim),
            configs=report_configfiles(),
            code=layer_sources("analysis", "core"),
        output:
            report(
                f"{CHECKS_DIR}/{_claim}.json",
                caption="../report/checks.rst",
                category="Checks",
                labels={"claim": _claim},
            ),
        log:
            f"logs/checks/{_claim}.log",
        conda:
            "../envs/privdtol.yaml"
        params:
            claim=_claim,
            configs=lambda wc, input: " ".join(f"--config {shlex.quote(f)}" for f in input.configs),
            agg_dir=lambda wc, input: os.path.dirname(input.agg[0]),
        shell:
            "privdtol check --claim {params.claim:q} {params.configs}"
            " --agg-dir {params.agg_dir:q} --out {output:q} > {log:q} 2>&1"


rule checks_all:
    input:
        [f"{CHECKS_DIR}/{c}.json" for c in CHECK_CLAIMS],
    localrule: True
