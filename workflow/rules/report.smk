# Report: the generated LaTeX pieces (privdtol report-assets: jinja2 templates and pandas
# tables of privdtol.report), the rule graph, and the PDF (privdtol report-compile =
# latexmk/pdflatex + a check of the LaTeX log).  paper/ holds the hand-written sources; every
# number, table and figure comes from results/: the check records of CHECK_CLAIMS, the figures
# and table CSVs of the notebooks this config runs, the aggregated tables.  The report layer's
# code stamp (code_stamp, templates included) is an input, so editing it reruns the report and
# nothing upstream.  Both commands date the PDF by the commit time of the checkout (--repo .).
# `snakemake arxiv` (privdtol report-arxiv) packs what pdflatex read for the PDF (sources,
# generated pieces, figures, .bbl) into one tar.gz that compiles with pdflatex alone; not part
# of `all`.

import os
import shlex
from pathlib import Path

REPORT_DIR = "results/report"
REPORT_GEN = f"{REPORT_DIR}/generated"
REPORT_TEX = "paper/replication_report.tex"
REPORT_BIB = "paper/references.bib"
ARXIV_TAR = "results/arxiv/replication_report-arxiv.tar.gz"


rule build_report_assets:
    input:
        # the whole config (its description and provenance included)
        configs=[RUN_CONFIG],
        piece=MERGED_PIECE,
        sources=RUN_SOURCES,
        checks=[f"results/checks/{c}.json" for c in report_claims()],
        findings=FINDINGS_JSON,
        power=POWER_JSON,
        multiverse=MULTIVERSE_JSON,
        battery=BATTERY_JSON,
        by_algorithm=BY_ALGORITHM_JSON,
        out_of_sample=OUT_OF_SAMPLE_JSON,
        results=report_results(),
        agg=expand(
            f"{AGG_DIR}/{{experiment}}.parquet",
            experiment=EXPERIMENTS + (["worst_case"] if WORST_SEARCHES else []),
        ),
        code=code_stamp("report"),
    output:
        [f"{REPORT_GEN}/{name}" for name in REPORT.generated_files()],
    log:
        "logs/report/build_report_assets.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        configs=lambda wc, input: " ".join(f"--config {shlex.quote(f)}" for f in input.configs),
        out=lambda wc, output: os.path.dirname(output[0]),
        # the sections' prose present, found by the figures' names (privdtol.report.latex.assets.
        # sections_context): adding or removing a file reruns the assets (its \input comes or
        # goes); editing one reruns only the PDF
        prose=sorted(
            p.as_posix()
            for d in ("lead", "experiments")
            for p in Path("paper/sections", d).glob("*.tex")
        ),
    shell:
        "privdtol report-assets {params.configs} --sources {input.sources:q} --results results"
        " --out {params.out:q} --repo . > {log:q} 2>&1"


rule draw_rulegraph:
    input:
        # what the graph draws: the rules of this config (known once every rule is parsed)
        piece=lambda wildcards: config_piece("rulegraph", sorted(r.name for r in workflow.rules)),
    output:
        f"{REPORT_GEN}/rulegraph.pdf",
    log:
        "logs/report/draw_rulegraph.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        snakefile=workflow.main_snakefile,
        config=MERGED_PIECE,
    shell:
        # one node per family of generated rules (privdtol.report.build.rulegraph): legible on
        # a page
        "snakemake --snakefile {params.snakefile:q} --nolock --rulegraph"
        " --configfile {params.config:q}"
        " 2> {log:q} | python -m privdtol.report.build.rulegraph"
        " | dot -Grankdir=TB -Nfontsize=20 -Tpdf -o {output:q} 2>> {log:q}"


rule compile_report:
    input:
        tex=REPORT_TEX,
        sections=sorted(str(p) for p in Path("paper").rglob("*.tex")),
        bib=REPORT_BIB,
        generated=rules.build_report_assets.output,
        rulegraph=rules.draw_rulegraph.output,
    output:
        pdf=f"{REPORT_DIR}/replication_report.pdf",
        # what pdflatex read (latexmk's recorder file) and the bibliography: the arxiv export
        fls=f"{REPORT_DIR}/replication_report.fls",
        bbl=f"{REPORT_DIR}/replication_report.bbl",
    log:
        "logs/report/compile_report.log",
    conda:
        "../envs/privdtol.yaml"
    params:
        generated=lambda wc, input: os.path.dirname(input.rulegraph[0]),
    shell:
        "privdtol report-compile --tex {input.tex:q} --generated {params.generated:q} --results results"
        " --out {output.pdf:q} --repo . --verbose > {log:q} 2>&1"


rule report:
    input:
        rules.compile_report.output.pdf,


rule arxiv:
    input:
        pdf=rules.compile_report.output.pdf,
        fls=rules.compile_report.output.fls,
        bbl=rules.compile_report.output.bbl,
        tex=REPORT_TEX,
        rulegraph=rules.draw_rulegraph.output,
    output:
        ARXIV_TAR,
    log:
        "logs/report/arxiv.log",
    localrule: True
    conda:
        "../envs/privdtol.yaml"
    params:
        generated=lambda wc, input: os.path.dirname(input.rulegraph[0]),
    shell:
        "privdtol report-arxiv --tex {input.tex:q} --generated {params.generated:q}"
        " --results results --pdf {input.pdf:q} --out {output:q} --repo . > {log:q} 2>&1"
