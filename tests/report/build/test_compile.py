"""Tests of :mod:`privdtol.report.build.compile`: the problems of a LaTeX log (undefined references,
missing files and characters, math errors) are caught, a clean log gives none; a build killed
or failed half-way leaves nothing at the final paths and the next one succeeds."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from privdtol.report.build.compile import ReportBuildError, build_dir, compile_pdf, log_problems


def test_log_problems_are_caught():
    log = (
        "LaTeX Warning: Reference `fig:x' on page 2 undefined on input line 4.\n"
        "LaTeX Warning: There were undefined references.\n"
        "! LaTeX Error: File `missing.tex' not found.\n"
        "Missing character: There is no ^^Y in font cmr10!\n"
        "./x.tex:3: Missing $ inserted.\n"
    )
    assert len(log_problems(log)) == 5
    assert (
        log_problems(
            "Output written on report.pdf (3 pages).\n"
            "Package hyperref Info: Link coloring OFF on input line 5."
        )
        == []
    )


# ----------------------------------------------------------------------------- interrupted
# (a past bug: kill -9 during pdflatex left a partial PDF at its final path and a truncated .aux;
# the first rerun failed in bibtex, only the second succeeded)

needs_latexmk = pytest.mark.skipif(
    shutil.which("latexmk") is None or shutil.which("bibtex") is None,
    reason="latexmk/bibtex not installed",
)

DOC = r"""\documentclass{article}
\begin{document}
A claim \cite{paper}.
%s
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""
#: a page shipped out (the PDF open), then a few seconds of pdflatex: the window of the kill
SLOW = (
    r"\newpage x \newpage \count255=0 \loop\advance\count255 by 1 \ifnum\count255<400000000 \repeat"
)
BIB = "@article{paper, author={A. Author}, title={A title}, journal={J}, year={2026}}\n"


def _sources(tmp_path, slow: bool) -> Path:
    src = tmp_path / "paper"
    src.mkdir(exist_ok=True)
    (src / "refs.bib").write_text(BIB)
    (src / "report.tex").write_text(DOC % (SLOW if slow else ""))
    return src / "report.tex"


def _compile_command(tex: Path, pdf: Path) -> list[str]:
    code = (
        "import sys; from pathlib import Path;"
        " from privdtol.report.build.compile import compile_pdf;"
        "compile_pdf(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[2]), Path(sys.argv[3]))"
    )
    return [sys.executable, "-c", code, str(tex), str(tex.parent), str(pdf)]


@needs_latexmk
@pytest.mark.slow
def test_a_build_killed_during_pdflatex_heals_with_one_rerun(tmp_path):
    pdf = tmp_path / "out" / "report.pdf"
    tex = _sources(tmp_path, slow=False)
    compile_pdf(tex, tex.parent, tex.parent, pdf)  # a complete build
    good = pdf.read_bytes()
    tex = _sources(tmp_path, slow=True)  # the next one is killed
    started = {p: p.stat().st_mtime_ns for p in (tmp_path / "out").rglob("report.aux")}
    proc = subprocess.Popen(_compile_command(tex, pdf), start_new_session=True)
    deadline = time.monotonic() + 60
    # pdflatex has begun the document: a new .aux
    while all(
        started.get(a) == a.stat().st_mtime_ns for a in (tmp_path / "out").rglob("report.aux")
    ):
        assert proc.poll() is None and time.monotonic() < deadline, "pdflatex never started"
        time.sleep(0.05)
    time.sleep(1.0)
    assert proc.poll() is None, "pdflatex ended before the kill"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert pdf.read_bytes() == good  # nothing partial at the final path
    tex = _sources(tmp_path, slow=False)
    compile_pdf(tex, tex.parent, tex.parent, pdf)  # one rerun
    assert pdf.read_bytes().startswith(b"%PDF") and (pdf.parent / "report.bbl").exists()
    assert (pdf.parent / "report.fls").exists()
    assert str(build_dir(pdf)) not in (pdf.parent / "report.fls").read_text()


@needs_latexmk
def test_a_failed_build_leaves_the_previous_pdf_and_the_next_one_starts_clean(tmp_path):
    pdf = tmp_path / "out" / "report.pdf"
    tex = _sources(tmp_path, slow=False)
    compile_pdf(tex, tex.parent, tex.parent, pdf)
    good = pdf.read_bytes()
    tex.write_text(DOC % r"\undefinedcommandxyz")
    with pytest.raises(ReportBuildError):
        compile_pdf(tex, tex.parent, tex.parent, pdf)
    assert pdf.read_bytes() == good
    tex.write_text(DOC % "")
    compile_pdf(tex, tex.parent, tex.parent, pdf)
    assert pdf.read_bytes().startswith(b"%PDF") and not build_dir(pdf).exists()
