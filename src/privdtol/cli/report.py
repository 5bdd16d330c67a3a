"""``privdtol report-assets``, ``report-compile`` and ``report-arxiv``: the LaTeX replication
report and its submission export (:mod:`privdtol.report.build.arxiv`).

``report-assets`` writes the generated pieces (numbers, verdict table, sections, tables, grid,
provenance, ...) that ``paper/replication_report.tex`` inputs; ``report-compile`` runs latexmk
on it and fails on undefined references or missing files in the LaTeX log.  Both date the
report by :func:`privdtol.archive.layout.source_date_epoch` of ``--repo``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privdtol.cli.common import add_config_files_option
from privdtol.errors import InputError


def add_parser(sub):
    p = sub.add_parser(
        "report-assets",
        help="write the generated LaTeX pieces of the replication report",
        description="Read results/checks, agg, figures, tables, benchmarks and notebooks and "
        "write the files paper/replication_report.tex inputs.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_config_files_option(p)
    p.add_argument(
        "--sources",
        help="the config files and --config overrides the config was merged from "
        "(results/config.sources.json, privdtol run-config); default: the --config files",
    )
    p.add_argument("--results", default="results", help="results directory")
    p.add_argument("--out", default="results/report/generated", help="output directory")
    p.add_argument("--repo", default=".", help="git checkout recorded in the provenance")
    p.set_defaults(handler=run_assets)

    c = sub.add_parser(
        "report-compile",
        help="compile the replication report with latexmk (pdflatex)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    c.add_argument("--tex", default="paper/replication_report.tex", help="the report's main file")
    c.add_argument(
        "--generated",
        default="results/report/generated",
        help="the generated pieces (privdtol report-assets)",
    )
    c.add_argument("--results", default="results", help="results directory")
    c.add_argument("--out", default="results/report/replication_report.pdf", help="the PDF")
    c.add_argument(
        "--repo",
        default=".",
        help="git checkout whose commit time dates the PDF (as report-assets)",
    )
    c.add_argument("--verbose", action="store_true", help="show latexmk's output")
    c.set_defaults(handler=run_compile)

    a = sub.add_parser(
        "report-arxiv",
        help="write the report's sources as one tar.gz that compiles with pdflatex alone",
        description="Collect what pdflatex read when report-compile built the PDF (its .fls "
        "recorder file): the sources, the generated pieces, the figures and the .bbl.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    a.add_argument("--tex", default="paper/replication_report.tex", help="the report's main file")
    a.add_argument(
        "--generated",
        default="results/report/generated",
        help="the generated pieces (privdtol report-assets)",
    )
    a.add_argument("--results", default="results", help="results directory")
    a.add_argument(
        "--pdf", default="results/report/replication_report.pdf", help="the compiled report"
    )
    a.add_argument(
        "--out",
        default="results/arxiv/replication_report-arxiv.tar.gz",
        help="the tar.gz written",
    )
    a.add_argument("--repo", default=".", help="git checkout whose commit time dates the files")
    a.set_defaults(handler=run_arxiv)


def run_assets(args) -> int:
    from privdtol.pipeline.config import load_config_files
    from privdtol.pipeline.run_config import read_sources
    from privdtol.report.latex.assets import build_assets

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError("out", f"{out} is a file", "a directory (created if absent)")
    config = load_config_files(args.config)
    sources = read_sources(args.sources) if args.sources else None
    written = build_assets(
        config,
        Path(args.results),
        Path(args.out),
        config_files=args.config,
        repo=Path(args.repo),
        sources=sources,
    )
    print(f"report-assets: {len(written)} files -> {args.out}", file=sys.stderr)
    return 0


def run_compile(args) -> int:
    from privdtol.archive.layout import source_date_epoch
    from privdtol.report.build.compile import ReportBuildError, compile_pdf

    tex = Path(args.tex)
    if not tex.exists():
        raise InputError("tex", f"{tex} does not exist", "the report's main .tex file")
    generated = Path(args.generated)
    if not (generated / "numbers.tex").exists():
        raise InputError(
            "generated",
            f"{generated}/numbers.tex does not exist",
            "the output directory of privdtol report-assets",
        )
    epoch = source_date_epoch(Path(args.repo))
    try:
        pdf = compile_pdf(
            tex,
            generated,
            Path(args.results),
            Path(args.out),
            source_date_epoch=epoch,
            verbose=args.verbose,
        )
    except ReportBuildError as err:
        print(f"privdtol report-compile: error: {err}", file=sys.stderr)
        return 1
    print(f"report-compile: {pdf}", file=sys.stderr)
    return 0


def run_arxiv(args) -> int:
    from privdtol.report.build.arxiv import submission_members, write_submission
    from privdtol.report.latex.provenance import source_date_epoch

    fls = Path(args.pdf).with_suffix(".fls")
    if not fls.exists():
        raise InputError(
            "pdf", f"{fls} does not exist", "a report compiled by privdtol report-compile"
        )
    members = submission_members(fls, Path(args.tex), Path(args.generated), Path(args.results))
    out = write_submission(members, Path(args.out), mtime=source_date_epoch(Path(args.repo)))
    print(f"report-arxiv: {len(members)} files -> {out}", file=sys.stderr)
    return 0
