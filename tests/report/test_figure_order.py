"""Tests of :mod:`privdtol.report.figure_order`: a notebook's figure number is its figure's place
in the report (main text, then appendix), and every place that cites it outside LaTeX (the
notebooks' titles, the Snakemake report's captions, the generated sections) agrees."""

from __future__ import annotations

import re

import pytest
from support.paths import ROOT

from privdtol.analysis.registry import NOTEBOOKS
from privdtol.report.figure_order import figure_anchor, figure_number, notebooks_in_order
from privdtol.report.layout import APPENDIX_SECTIONS
from privdtol.report.templating import fill_template


def test_numbers_follow_the_report_main_text_first():
    order = notebooks_in_order()
    assert sorted(order) == sorted(NOTEBOOKS)
    assert [figure_number(n) for n in order] == list(range(1, len(NOTEBOOKS) + 1))
    main = [n for n in order if n not in APPENDIX_SECTIONS]
    assert order[: len(main)] == main  # no appendix figure before a main-text one
    assert figure_anchor(order[0]) == "figure.1"
    with pytest.raises(KeyError):
        figure_number("no-such-notebook")


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_title_and_snakemake_caption_carry_the_number(name):
    n = figure_number(name)
    title = re.search(r"^# # Figure (\d+) —", (ROOT / "notebooks" / f"{name}.py").read_text(), re.M)
    assert title and int(title.group(1)) == n, name
    caption = (ROOT / "workflow" / "report" / f"{name}.rst").read_text()
    assert caption.startswith(f"**Figure {n} —"), name


def test_sections_leave_the_numbering_to_latex():
    sections = [
        {"name": n, "title": n, "caption": "c", "pointer": "t", "has_figure": True}
        | {"claims": [], "tables": [], "figure": figure_number(n)}
        for n in notebooks_in_order()
    ]
    for mode in ("main", "full"):
        tex = fill_template("experiment-sections.tex.j2", sections=sections, mode=mode)
        assert r"\setcounter{figure}" not in tex
        labels = re.findall(r"\\label\{fig:(\w+)\}", tex)
        assert labels == notebooks_in_order()
    # the appendix's details of a main-text section hold no figure: it is numbered once
    details = fill_template("experiment-sections.tex.j2", sections=sections, mode="details")
    assert "fig:" not in details and r"\label{sec:horizon-details}" in details
