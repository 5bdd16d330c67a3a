"""Tests of :mod:`privdtol.report.layout`: every notebook of the registry has its report section
(with its LaTeX text under paper/sections/experiments/) and every results table its layout.
The figures' numbering is tests/report/test_figure_order.py's."""

from __future__ import annotations

from support.paths import ROOT

from privdtol.analysis.registry import NOTEBOOKS
from privdtol.report.layout import SECTIONS, TABLES


def test_every_notebook_and_table_has_its_text():
    assert set(SECTIONS) == set(NOTEBOOKS)
    assert set(TABLES) == {t for nb in NOTEBOOKS.values() for t in nb.tables}
    for name in NOTEBOOKS:
        assert (ROOT / "paper" / "sections" / "experiments" / f"{name}.tex").exists(), name
