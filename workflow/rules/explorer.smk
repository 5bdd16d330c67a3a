# The explorer (privdtol explorer, privdtol.report.html.explorer): results/explorer/index.html, one
# self-contained page (data and Plotly inline, no network) plotting regret against the horizon
# for every cell of the aggregated regret tables of this config, with Theorem 1's bound for RPS;
# the privacy audit, the proof's slack and the worst-case searches where this config produces
# their tables (CHECK_EXPERIMENTS of checks.smk); every claim (paper claim or diagnostic) with
# its negative controls and their verdicts, linking to every check record, the report and the
# notebook index.  Part of `all` and of the run archive.
#
#   snakemake explore                # or: results/explorer/index.html

import os
import shlex
from pathlib import Path

EXPLORER_HTML = "results/explorer/index.html"


rule build_explorer:
    input:
        agg=expand(
            f"{AGG_DIR}/{{experiment}}.parquet",
            experiment=EXPERIMENTS + (["worst_case"] if WORST_SEARCHES else []),
        ),
        checks=[f"{CHECKS_DIR}/{c}.json" for c in CHECK_CLAIMS],
        # the views' tables this config produces (none: the view says "not run")
        views=[agg_table(e) for e in ("privacy", "proof", "searches") if e in CHECK_EXPERIMENTS],
        code=code_stamp("report"),  # its templates (explorer.html.j2, the .js) included
        # the config files' names (the page names them), not their values: an edit of a value
        # does not rerun the page unless a table or a record it shows changes
        configfiles=config_piece("explorer-configfiles", report_configfiles()),
    output:
        report(EXPLORER_HTML, caption="../report/explorer.rst", category="Explorer"),
    log:
        "logs/explorer/build_explorer.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        checks=lambda wc, input: os.path.dirname(input.checks[0]),
        # each view's table as --<name> <path> (privacy.parquet: --privacy ...)
        views=lambda wc, input: " ".join(f"--{Path(p).stem} {shlex.quote(p)}" for p in input.views),
        configs=" ".join(shlex.quote(f) for f in report_configfiles()),
    shell:
        "privdtol explorer --agg {input.agg:q} --checks {params.checks:q} {params.views}"
        " --configfiles {params.configs} --out {output:q} > {log:q} 2>&1"


rule explore:
    input:
        rules.build_explorer.output,
    localrule: True
