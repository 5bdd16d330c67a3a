# Notebooks: one rule per figure declaration (privdtol.analysis.figures, collected in
# privdtol.analysis.registry.NOTEBOOKS) whose experiments this config produces.  Each
# notebooks/<name>.py (jupytext percent format; its title numbered) is converted to .ipynb, executed
# with papermill (parameters agg_dir, checks_dir, out_dir, and thresholds: the config's values of
# the checks: keys its claims use; privdtol.report.build.notebook_run.notebook_parameters; a
# parameter its parameters cell does not declare is an error, not papermill's warning), stripped
# of timing metadata so reruns diff clean, and exported to an offline HTML page
# (privdtol.report.html.notebook_html: no CDN script, the mathematics as MathML), all in one
# process (`privdtol notebook`).  A notebook only plots and tabulates: it reads the aggregated
# tables and the check records of its claims (checks.smk) and writes its figure
# (results/figures/<name>.pdf|png) and its tables as data (results/tables/<table>.csv).  The
# executed notebook is written under logs/notebooks/ first and copied to results/notebooks/ only on
# success: a notebook that raises fails its rule and leaves the partially executed copy in
# logs/notebooks/<name>.ipynb for debugging.  The Snakemake report's caption of a figure is one
# template, workflow/report/figure.rst, filled from the rule's params (the declaration's plain-text
# title and caption, the figure's number).
#
#   snakemake fig_horizon            # one figure, its table(s) (and the checks it shows)
#   snakemake notebooks_all          # every notebook
#   snakemake --report results/report.html

import os

from privdtol.analysis.registry import NOTEBOOKS, control_id, notebook_claims, notebooks_for
from privdtol.report.figure_order import snakemake_caption
from privdtol.report.build.notebook_run import notebook_parameters, papermill_parameters

NB_OUT = "results"
#: the notebooks of this config: those reading an experiment it produces (so the privacy
#: notebook only when the config has a `privacy:` block)
NB_NAMES = notebooks_for(CHECK_EXPERIMENTS)
#: each notebook's papermill parameters (all it reads of the config)
NB_PARAMETERS = {
    n: notebook_parameters(
        n, CONFIG["checks"], agg_dir=AGG_DIR, checks_dir=CHECKS_DIR, out_dir=NB_OUT
    )
    for n in NB_NAMES
}


for _nb in NB_NAMES:

    rule:
        name:
            f"notebook_{_nb}"
        input:
            notebook=f"notebooks/{_nb}.py",
            agg=[agg_table(e) for e in NOTEBOOKS[_nb].experiments if e in CHECK_EXPERIMENTS],
            checks=[f"{CHECKS_DIR}/{c}.json" for c in notebook_claims(_nb) if c in CHECK_CLAIMS],
            # and those of their negative controls, which it shows too (without them as inputs
            # it showed the ones whose check happened to have run before it)
            controls=[
                f"{CHECKS_DIR}/{control_id(c, a)}.json"
                for c, a in CHECK_CONTROLS
                if c in notebook_claims(_nb)
            ],
            # a notebook that shows no claim says what its figure shows from the findings
            # (privdtol.report.notebook.narrative.figure_note reads results/findings.json)
            findings=[] if notebook_claims(_nb) else [FINDINGS_JSON],
            # the figure style, the analysis helpers a notebook displays with and the report's
            # table shapes and number style (a notebook without a check, e.g. ablations, must
            # rerun too when they change)
            code=code_stamp("plotting", "analysis", "report"),
            # its parameters (the thresholds its claims declare, the directories)
            piece=config_piece(f"notebook-{_nb}", NB_PARAMETERS[_nb]),
        output:
            ipynb=f"{NB_OUT}/notebooks/{_nb}.ipynb",
            html=report(
                f"{NB_OUT}/notebooks/{_nb}.html",
                caption="../report/notebook.rst",
                category="Notebooks",
                labels={"notebook": _nb},
            ),
            pdf=f"{NB_OUT}/figures/{_nb}.pdf",
            png=report(
                f"{NB_OUT}/figures/{_nb}.png",
                caption="../report/figure.rst",
                category="Figures",
                labels={"figure": _nb},
            ),
            tables=[f"{NB_OUT}/tables/{t}.csv" for t in NOTEBOOKS[_nb].tables],
        log:
            txt=f"logs/notebooks/{_nb}.log",
            source=f"logs/notebooks/{_nb}.input.ipynb",
            executed=f"logs/notebooks/{_nb}.ipynb",
        conda:
            "../envs/privdtol.yaml"
        params:
            parameters=papermill_parameters(NB_PARAMETERS[_nb]),
            # the Snakemake report's caption of the figure (workflow/report/figure.rst)
            figure=snakemake_caption(_nb),
        shell:
            "privdtol notebook {input.notebook:q} --parameters={params.parameters:q}"
            " --converted {log.source:q} --executed {log.executed:q}"
            " --ipynb {output.ipynb:q} --html {output.html:q} > {log.txt:q} 2>&1"

    rule:
        name:
            f"fig_{_nb}"
        input:
            getattr(rules, f"notebook_{_nb}").output,
        localrule: True


# The index of the executed notebooks: each with its figure number, claims and verdicts.
rule index_notebooks:
    input:
        html=[f"{NB_OUT}/notebooks/{nb}.html" for nb in NB_NAMES],
        checks=[
            f"{CHECKS_DIR}/{c}.json"
            for nb in NB_NAMES
            for c in notebook_claims(nb)
            if c in CHECK_CLAIMS
        ],
        code=code_stamp("report"),
    output:
        f"{NB_OUT}/notebooks/index.html",
    log:
        "logs/notebooks/index.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        results=lambda wc, output: os.path.dirname(os.path.dirname(output[0])),
    shell:
        "python -m privdtol.report.html.notebook_index --results {params.results:q}"
        " --out {output:q} > {log:q} 2>&1"


# Every output of every notebook rule, not only what the index reads: Snakemake does not
# rebuild a missing file that a job with up-to-date outputs reads (a deleted
# results/notebooks/horizon.html would stay missing and the index's link broken), only a
# missing target.
rule notebooks_all:
    input:
        [getattr(rules, f"notebook_{nb}").output for nb in NB_NAMES],
        rules.index_notebooks.output,
    localrule: True
