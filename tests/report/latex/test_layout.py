"""Tests of :mod:`privdtol.report.latex.layout`: every results table of a figure has its layout, and
every prose file under paper/sections/ (found by a figure's name) has its figure.  The figures'
numbering is tests/report/test_figure_order.py's."""

from __future__ import annotations

from support.paths import ROOT

from privdtol.analysis.registry import NOTEBOOKS
from privdtol.report.latex.layout import TABLES


def test_every_table_has_its_layout():
    assert set(TABLES) == {t for nb in NOTEBOOKS.values() for t in nb.tables}


def test_every_prose_file_is_a_figures():
    """A section's prose is found by its figure's name (a figure may have none): a file named
    otherwise, or a lead for an appendix figure (the appendix shows no lead), would never be
    read."""
    sections = ROOT / "paper" / "sections"
    leads = {p.stem for p in (sections / "lead").glob("*.tex")}
    prose = {p.stem for p in (sections / "experiments").glob("*.tex")}
    assert leads <= {n for n, fig in NOTEBOOKS.items() if not fig.appendix}
    assert prose <= set(NOTEBOOKS)
