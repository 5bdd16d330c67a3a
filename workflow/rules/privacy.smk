# Privacy experiment (claim C1): every audit of privdtol.privacy over the grid of config["privacy"]
# (exact per-selection search, exact whole-sequence enumeration, statistical Clopper-Pearson
# audit; private algorithms and the audit-only negative controls).  Serial and parameter-seeded:
# the table is byte-identical across reruns.  Its notebook is notebooks/privacy.py (C1).
#
#   snakemake audit_privacy

import json

from privdtol.privacy.audit_grid import merge_grid
from privdtol.privacy.cost import check_privacy_block

if config.get("privacy"):  # semantic checks of the privacy block at parse time, before any job
    checked(merge_grid, config["privacy"])
    checked(check_privacy_block, config)  # the audits' cost, naming the privacy. key


rule audit_privacy:
    input:
        # the privacy block (the audits' grid): editing it reruns the audit, nothing else does
        piece=config_piece("privacy", config.get("privacy", {})),
        code=code_stamp("privacy", *SIM_CODE),  # an edit of the audits or a plugin reruns it
    output:
        parquet=f"{AGG_DIR}/privacy.parquet",
        csv=f"{AGG_DIR}/privacy.csv",
    log:
        "logs/privacy/audit_privacy.log",
    # one of the longest jobs at paper scale (docs/performance.md): first, beside the simulations
    priority: 50
    conda:
        "../envs/privdtol.yaml"
    threads: 1
    params:
        grid=json.dumps(config.get("privacy", {}), sort_keys=True),
    shell:
        "privdtol audit-grid --grid-json {params.grid:q} --out {output.parquet:q}"
        " --csv {output.csv:q} > {log:q} 2>&1"
