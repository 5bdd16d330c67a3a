"""Tests of :mod:`privdtol.report.layout`: every results table of a figure has its layout, and
every figure its section's prose under paper/sections/ (found by its name).  The figures'
numbering is tests/report/test_figure_order.py's."""

from __future__ import annotations

from support.paths import ROOT

from privdtol.analysis.registry import NOTEBOOKS
from privdtol.report.layout import TABLES


def test_every_figure_and_table_has_its_text():
    assert set(TABLES) == {t for nb in NOTEBOOKS.values() for t in nb.tables}
    sections = ROOT / "paper" / "sections"
    for name, fig in NOTEBOOKS.items():
        assert (sections / "experiments" / f"{name}.tex").exists(), name
        # a main-text section opens with its lead; an appendix section has none
        assert (sections / "lead" / f"{name}.tex").exists() != fig.appendix, name
