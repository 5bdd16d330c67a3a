# Checks: one rule per claim of the registry (privdtol.analysis.registry.CLAIMS) that this config
# can check, check_<ID>: `privdtol check --claim ID` reads the aggregated tables of the claim's
# experiments and writes results/checks/<ID>.json (deterministic JSON: statistic, interval,
# threshold from the config's `checks:` block, verdict).  Inputs are the tables, the run's merged
# config (its content-addressed copy MERGED_PIECE, a param: the config files and --config
# overrides, validated once, common.smk; read, not a trigger), the stamp of the thresholds the
# claim's record declares (the only ones `privdtol check` passes to its check: editing one
# reruns the checks that read it, and what reads them) and the sources of the analysis and
# core layers: editing the analysis layer reruns the checks (and what reads them), never a
# simulation.
#
# Negative controls: check_<ID>__<ALG> runs the claim's check on a control algorithm the config
# simulates (`privdtol check --claim ID --control ALG`, results/checks/<ID>--<ALG>.json, which
# serves its purpose when its verdict is FAIL).  Findings (not claims): rule findings,
# results/findings.json.  Size and power of the checks (synthetic tables from the form fitted to
# the grid): rule power, results/checks/power.json.
#
#   snakemake check_C2               # one claim
#   snakemake checks_all             # every claim, control and the findings of this config

import os
import shlex

from privdtol.analysis.claim_types import BOUNDS_TABLE, LOWER_EXPERIMENTS
from privdtol.analysis.power import EXCLUDED as POWER_EXCLUDED
from privdtol.analysis.registry import (
    CLAIMS,
    ENV_CONTROLS,
    FINDINGS_EXPERIMENTS,
    claim_thresholds,
    claims_for,
    control_id,
    controls_for,
)

#: experiments whose aggregated table this config produces ("privacy": the audit's table;
#: "floor": the floor's, floor.smk; "proof": the proof terms, proof.smk; "worst_case", "searches": the searches, worst_case.smk)
CHECK_EXPERIMENTS = (
    EXPERIMENTS
    + (["privacy"] if config.get("privacy") else [])
    + (["floor"] if config.get("floor") else [])  # the floor's table (floor.smk)
    + (["proof"] if PROOF_HOMES else [])
    + (["worst_case", "searches"] if WORST_SEARCHES else [])
    # the lower bound's table (lower_bound.smk) when a regret experiment has standard cells
    + ([BOUNDS_TABLE] if set(LOWER_EXPERIMENTS) & set(EXPERIMENTS) else [])
)
#: the negative controls this config simulates: (claim, algorithm), rules check_<ID>__<ALG>
CHECK_CONTROLS = [(c, a) for c, a in controls_for(config) if c in claims_for(CHECK_EXPERIMENTS)]
#: the check records (report_claims() in common.smk reads this list): the claims, then the
#: controls (<ID>--<ALG>)
CHECK_CLAIMS = claims_for(CHECK_EXPERIMENTS) + [control_id(c, a) for c, a in CHECK_CONTROLS]
CHECKS_DIR = "results/checks"
FINDINGS_JSON = "results/findings.json"
#: size and power of the checks with a negative control (privdtol.analysis.power)
POWER_JSON = f"{CHECKS_DIR}/power.json"
#: every verdict over the pre-declared threshold ranges (privdtol.analysis.multiverse)
MULTIVERSE_JSON = f"{CHECKS_DIR}/multiverse.json"
#: every claim's rule on tables known by construction (privdtol.analysis.battery)
BATTERY_JSON = f"{CHECKS_DIR}/battery.json"
#: every rate claim on every private algorithm (privdtol.analysis.by_algorithm)
BY_ALGORITHM_JSON = f"{CHECKS_DIR}/by_algorithm.json"
#: the claims changed after results were seen, on cells they were not tuned on
#: (privdtol.analysis.held_out)
OUT_OF_SAMPLE_JSON = f"{CHECKS_DIR}/out_of_sample.json"


#: the claims each table rule runs: power, the claims with a control it measures (not those of
#: power.EXCLUDED, measured elsewhere, nor the loss-model controls); multiverse, the claims with
#: a threshold in its ranges; battery, every claim; by_algorithm, the rate claims
POWER_CLAIMS = sorted(
    {c for c, a in controls_for(CONFIG) if c not in POWER_EXCLUDED and a not in ENV_CONTROLS}
)
MULTIVERSE_CLAIMS = [
    c for c in CLAIMS if set(CLAIMS[c].thresholds) & set(CONFIG["checks"].get("multiverse") or {})
]
RATE_CLAIMS = [c for c in CLAIMS if CLAIMS[c].rate]


for _claim in claims_for(CHECK_EXPERIMENTS):

    rule:
        name:
            f"check_{_claim}"
        input:
            agg=claim_tables(_claim),
            piece=config_piece(f"check-{_claim}", claim_thresholds(_claim, CONFIG["checks"])),
            code=code_stamp("analysis", "algorithms", "core"),
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
            configs=MERGED_ARG,
            agg_dir=lambda wc, input: os.path.dirname(input.agg[0]),
        shell:
            "privdtol check --claim {params.claim:q} {params.configs}"
            " --agg-dir {params.agg_dir:q} --out {output:q} > {log:q} 2>&1"


for _claim, _control in CHECK_CONTROLS:

    rule:
        name:
            f"check_{_claim}__{_control}"
        input:
            agg=claim_tables(_claim),
            piece=config_piece(f"check-{_claim}", claim_thresholds(_claim, CONFIG["checks"])),
            code=code_stamp("analysis", "algorithms", "core"),
        output:
            f"{CHECKS_DIR}/{control_id(_claim, _control)}.json",
        log:
            f"logs/checks/{control_id(_claim, _control)}.log",
        conda:
            "../envs/privdtol.yaml"
        params:
            claim=_claim,
            control=_control,
            configs=MERGED_ARG,
            agg_dir=lambda wc, input: os.path.dirname(input.agg[0]),
        shell:
            "privdtol check --claim {params.claim:q} --control {params.control:q}"
            " {params.configs} --agg-dir {params.agg_dir:q} --out {output:q} > {log:q} 2>&1"


rule findings:
    input:
        agg=[agg_table(e) for e in FINDINGS_EXPERIMENTS if e in CHECK_EXPERIMENTS],
        code=code_stamp("analysis", "algorithms", "core"),
    output:
        FINDINGS_JSON,
    log:
        "logs/checks/findings.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=MERGED_ARG,
        agg_dir=lambda wc, input: os.path.dirname(input.agg[0]),
    shell:
        "privdtol check --findings {params.configs}"
        " --agg-dir {params.agg_dir:q} --out {output:q} > {log:q} 2>&1"


rule power:
    input:
        agg=[agg_table(e) for e in ("grid",) if e in CHECK_EXPERIMENTS],
        # the checks it measures (their thresholds), on the cells of the config's experiments
        piece=checks_piece("power", POWER_CLAIMS, "power_replicates"),
        code=code_stamp("analysis", "algorithms", "core"),
    output:
        POWER_JSON,
    log:
        "logs/checks/power.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=MERGED_ARG,
        agg_dir=lambda wc, input: (
            os.path.dirname(input.agg[0]) if input.agg else config.get("agg_dir", "results/agg")
        ),
    shell:
        "privdtol check --power {params.configs}"
        " --agg-dir {params.agg_dir:q} --out {output:q} > {log:q} 2>&1"


# The verdicts' sensitivity, one job: to the thresholds (the multiverse) and to the sample (the
# claims changed after results were seen, on the cells no config they were tuned on simulates)
rule multiverse:
    input:
        agg=sorted(
            {
                t
                for c in claims_for(CHECK_EXPERIMENTS)
                if CLAIMS[c].thresholds or c in OUT_OF_SAMPLE.changed_claims()
                for t in claim_tables(c)
            }
        ),
        # the checks with a threshold in its ranges (their thresholds), and the ranges
        piece=checks_piece("multiverse", MULTIVERSE_CLAIMS, "multiverse"),
        # the changed claims' thresholds, and the configs they were tuned on (held out)
        held_out=config_piece(
            "out_of_sample",
            {c: claim_thresholds(c, CONFIG["checks"]) for c in OUT_OF_SAMPLE.changed_claims()},
        ),
        tuned=[f for f in OUT_OF_SAMPLE.tuned_config_files("config") if os.path.exists(f)],
        code=code_stamp("analysis", "algorithms", "core", "pipeline"),
    output:
        multiverse=MULTIVERSE_JSON,
        held_out=OUT_OF_SAMPLE_JSON,
    log:
        "logs/checks/multiverse.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=MERGED_ARG,
        agg_dir=lambda wc, input: (
            os.path.dirname(input.agg[0]) if input.agg else config.get("agg_dir", "results/agg")
        ),
    shell:
        "(privdtol check --multiverse {params.configs}"
        " --agg-dir {params.agg_dir:q} --out {output.multiverse:q}"
        " && privdtol check --out-of-sample {params.configs}"
        " --agg-dir {params.agg_dir:q} --out {output.held_out:q}) > {log:q} 2>&1"


rule battery:
    input:
        agg=[agg_table(e) for e in ("grid", BOUNDS_TABLE) if e in CHECK_EXPERIMENTS],
        # every claim's rule (their thresholds), on the cells of the config's experiments
        piece=checks_piece("battery", list(CLAIMS), "battery_replicates"),
        code=code_stamp("analysis", "algorithms", "core"),
    output:
        BATTERY_JSON,
    log:
        "logs/checks/battery.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=MERGED_ARG,
        agg_dir=lambda wc, input: (
            os.path.dirname(input.agg[0]) if input.agg else config.get("agg_dir", "results/agg")
        ),
    shell:
        "privdtol check --battery {params.configs}"
        " --agg-dir {params.agg_dir:q} --out {output:q} > {log:q} 2>&1"


rule by_algorithm:
    input:
        agg=sorted(
            {t for c in claims_for(CHECK_EXPERIMENTS) if CLAIMS[c].rate for t in claim_tables(c)}
        ),
        # the rate claims' thresholds, on the algorithms of the config's experiments
        piece=checks_piece("by_algorithm", RATE_CLAIMS),
        code=code_stamp("analysis", "algorithms", "core"),
    output:
        BY_ALGORITHM_JSON,
    log:
        "logs/checks/by_algorithm.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=MERGED_ARG,
        agg_dir=lambda wc, input: (
            os.path.dirname(input.agg[0]) if input.agg else config.get("agg_dir", "results/agg")
        ),
    shell:
        "privdtol check --by-algorithm {params.configs}"
        " --agg-dir {params.agg_dir:q} --out {output:q} > {log:q} 2>&1"


rule checks_all:
    input:
        [f"{CHECKS_DIR}/{c}.json" for c in CHECK_CLAIMS],
        FINDINGS_JSON,
        POWER_JSON,
        MULTIVERSE_JSON,
        BATTERY_JSON,
        BY_ALGORITHM_JSON,
        OUT_OF_SAMPLE_JSON,
    localrule: True
