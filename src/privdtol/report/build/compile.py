"""Compiling the replication report: latexmk (pdflatex) with pinned dates, then a check of the
LaTeX log for what pdflatex lets through (undefined references, missing files or glyphs)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path


def _has_in_order(line: str, first: str, then: str) -> bool:
    i = line.find(first)
    return i >= 0 and then in line[i + len(first) :]


#: log lines that make the build fail even when pdflatex itself succeeded: (what, test)
BAD_LOG_LINES = (
    ("undefined references", lambda ln: "There were undefined references" in ln),
    ("undefined reference", lambda ln: _has_in_order(ln, "Reference ", " undefined")),
    ("undefined citation", lambda ln: _has_in_order(ln, "Citation ", " undefined")),
    ("TeX error", lambda ln: ln.startswith("! ")),
    ("missing glyph", lambda ln: "Missing character" in ln),
    ("missing file", lambda ln: "not found" in ln.lower()),
    ("missing token", lambda ln: _has_in_order(ln, "Missing ", " inserted")),
)


class ReportBuildError(RuntimeError):
    """latexmk failed or the LaTeX log has warnings the report must not have."""


def log_problems(log_text: str) -> list[str]:
    """Lines of a pdflatex log that :data:`BAD_LOG_LINES` rejects."""
    return [
        line.strip()
        for line in log_text.splitlines()
        if any(test(line) for _, test in BAD_LOG_LINES)
    ]


def _is_file_line_error(line: str) -> bool:
    """``file.tex:12: message`` (pdflatex's -file-line-error format)."""
    parts = line.split(":", 2)
    return (
        len(parts) == 3
        and bool(parts[0])
        and " " not in parts[0]
        and parts[1].isdigit()
        and parts[2].startswith(" ")
    )


def compile_pdf(
    tex: Path,
    generated: Path,
    results: Path,
    pdf: Path,
    source_date_epoch: int = 0,
    verbose: bool = False,
) -> Path:
    """Compile ``tex`` with latexmk (pdflatex) into ``pdf``'s directory.

    The build runs in a fresh directory beside the PDF (:func:`build_dir`, emptied first): a
    build killed half-way (``kill -9`` during pdflatex) leaves its partial PDF and truncated
    ``.aux`` there, never at the final paths, and the next run starts clean, so one rerun
    heals it.  Only a build that succeeded moves its files into place (:data:`KEPT`: the
    bibliography and the recorder file first, its paths rewritten to the final directory, the
    PDF last), each by an atomic rename.

    ``generated`` and ``results`` are put on TEXINPUTS (absolute paths), so the sources say
    ``\\input{numbers}`` and ``\\includegraphics{figures/horizon.pdf}`` whatever the checkout
    or the results directory; ``tex``'s directory and ``generated`` are on BIBINPUTS (bibtex,
    run by latexmk, reads ``references.bib`` and ``plugins.bib`` there).  Dates are pinned to
    ``source_date_epoch`` (:func:`privdtol.archive.layout.source_date_epoch`;
    SOURCE_DATE_EPOCH, FORCE_SOURCE_DATE=1) and the log is checked with :func:`log_problems`.
    """
    latexmk = shutil.which("latexmk")
    if latexmk is None:
        raise ReportBuildError(
            "latexmk not found: apt-get install latexmk texlive-latex-base "
            "texlive-latex-recommended texlive-science"
        )
    tex, generated, results, pdf = (Path(p).resolve() for p in (tex, generated, results, pdf))
    final = pdf.parent
    final.mkdir(parents=True, exist_ok=True)
    outdir = build_dir(pdf)
    shutil.rmtree(outdir, ignore_errors=True)  # what a killed or failed build left
    outdir.mkdir()
    env = dict(os.environ)
    sep = os.pathsep
    env["TEXINPUTS"] = f"{tex.parent}{sep}{generated}{sep}{results}{sep}" + env.get("TEXINPUTS", "")
    # references.bib beside the sources, plugins.bib among the generated files
    env["BIBINPUTS"] = f"{tex.parent}{sep}{generated}{sep}" + env.get("BIBINPUTS", "")
    env["SOURCE_DATE_EPOCH"] = str(int(source_date_epoch))
    env["FORCE_SOURCE_DATE"] = "1"
    jobname = pdf.stem
    cmd = [
        latexmk,
        "-pdf",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        f"-outdir={outdir}",
        f"-jobname={jobname}",
        "-cd",
        str(tex),
    ]
    if not verbose:
        cmd.insert(1, "-silent")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log = outdir / f"{jobname}.log"
    log_text = log.read_text(encoding="latin-1") if log.exists() else ""
    if proc.returncode != 0:
        errors = [
            ln
            for ln in log_text.splitlines()
            if ln.startswith("!") or ":error:" in ln or _is_file_line_error(ln)
        ]
        detail = " | ".join(errors[:3]) or "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        # a failed run's auxiliary files (a truncated .aux, a broken label) stay in the build
        # directory for debugging; the next run starts from an empty one
        raise ReportBuildError(f"latexmk failed (exit {proc.returncode}): {detail} (see {log})")
    problems = log_problems(log_text)
    if problems:
        raise ReportBuildError(
            f"{log}: {len(problems)} LaTeX problem(s): " + " | ".join(problems[:5])
        )
    if verbose:
        print(proc.stdout, end="")
    _move_into_place(outdir, final, jobname)
    shutil.rmtree(outdir, ignore_errors=True)
    return pdf


#: the build's files moved next to the PDF (the PDF last): the LaTeX log, the bibliography and
#: the recorder file (privdtol report-arxiv reads both)
KEPT = (".log", ".bbl", ".fls", ".pdf")


def build_dir(pdf: Path) -> Path:
    """The directory a build of ``pdf`` runs in: ``.<job>.build`` beside it."""
    pdf = Path(pdf)
    return pdf.parent / f".{pdf.stem}.build"


def _move_into_place(build: Path, final: Path, jobname: str) -> None:
    """Rename the build's :data:`KEPT` files into ``final``; the recorder file's paths of the
    build directory become those of ``final`` (where the files now are)."""
    fls = build / f"{jobname}.fls"
    if fls.exists():
        text = fls.read_text(encoding="utf-8", errors="surrogateescape")
        fls.write_text(
            text.replace(f"{build}{os.sep}", f"{final}{os.sep}"),
            encoding="utf-8",
            errors="surrogateescape",
        )
    for suffix in KEPT:
        src = build / f"{jobname}{suffix}"
        if src.exists():
            os.replace(src, final / src.name)
