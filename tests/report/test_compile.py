"""Tests of :mod:`privdtol.report.compile`: the problems of a LaTeX log (undefined references,
missing files and characters, math errors) are caught, a clean log gives none."""

from __future__ import annotations

from privdtol.report.compile import log_problems


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
