"""docs/extending.md's worked example of adding a figure, run: its declaration (a module of
:mod:`privdtol.analysis.figures`) gets a number, a section of the report with its caption, a
Snakemake report caption and a notebook rule, and its notebook draws the figure.  The example
is registered for the test only (``monkeypatch`` on the registry's one dict)."""

from __future__ import annotations

import re
import sys
import types
from collections import defaultdict

import jinja2
import pytest
from support.paths import ROOT

from privdtol.analysis import registry
from privdtol.report.build.notebook_run import number_title
from privdtol.report.figure_order import figure_number, notebooks_in_order, snakemake_caption
from privdtol.report.latex.assets import sections_context
from privdtol.report.latex.templating import fill_template

PAGE = ROOT / "docs" / "extending.md"
NAME = "final"


def code_block(caption: str) -> str:
    """The code of the page's ``code-block`` whose caption is ``caption``."""
    found = re.search(
        r"```\{code-block\} python\n:caption: " + re.escape(caption) + r"\n\n(.*?)```",
        PAGE.read_text(encoding="utf-8"),
        re.S,
    )
    assert found, caption
    return found.group(1)


@pytest.fixture
def example(monkeypatch):
    """The page's declaration as the module ``privdtol.analysis.figures.final``,
    collected as the registry collects every figure, and registered for the test."""
    module = types.ModuleType(f"privdtol.analysis.figures.{NAME}")
    exec(code_block(f"src/privdtol/analysis/figures/{NAME}.py"), module.__dict__)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    figure = registry.collect_figures([module])[NAME]
    monkeypatch.setitem(registry.NOTEBOOKS, NAME, figure)
    return figure


def test_the_example_gets_a_number_after_the_figures_before_it(example):
    # appendix, order 125: after the engine agreement's (100), before the true floor's (130),
    # which renumbers itself
    before = {n: figure_number(n) for n in registry.NOTEBOOKS if n != NAME}
    assert figure_number(NAME) == before["agreement"] + 1
    assert notebooks_in_order()[-3:] == [NAME, "floor", "separation"]
    registry.NOTEBOOKS.pop(NAME)
    assert figure_number("floor") == before["floor"] - 1  # without it, one place earlier


def test_the_example_gets_its_section_and_caption(example, tmp_path):
    # (the other figures' claims: no check records here)
    sections = sections_context(tmp_path, defaultdict(dict), None, paper=tmp_path / "paper")
    appendix = [s["name"] for s in sections if s["appendix"]]
    assert appendix[:5] == ["rates", "actions", "ablations", "agreement", NAME]
    ours = [s for s in sections if s["name"] == NAME]
    part = fill_template("experiment-sections.tex.j2", sections=ours, mode="full")
    assert r"\subsection{Regret at the largest horizon}" in part
    assert r"\label{sec:final}" in part
    assert r"\caption{Each algorithm's mean regret at the largest horizon $T_{\max}$" in part
    assert r"\label{fig:final}" in part
    # no prose written for it: none is read, and its figure not yet drawn is a "not run" box
    assert r"\input{sections/experiments/final}" not in part
    assert r"\NotRun{figure \texttt{final}" in part


def test_the_example_gets_its_snakemake_caption_and_notebook_rule(example):
    template = (ROOT / "workflow" / "report" / "figure.rst").read_text()
    params = type("Params", (), {"figure": snakemake_caption(NAME)})
    text = (
        jinja2.Environment()
        .from_string(template)
        .render(snakemake=type("S", (), {"params": params}))
    )
    assert text.startswith(f"**Figure {figure_number(NAME)} — regret at the largest horizon.** ")
    # the notebook rules are those of notebooks_for (workflow/rules/notebooks.smk)
    assert NAME in registry.notebooks_for(["horizon"])
    assert NAME not in registry.notebooks_for(["grid", "privacy"])


@pytest.mark.slow
def test_the_example_notebook_draws_its_figure(example, tmp_path):
    """The page's notebook run by hand (its cells in order, the parameters cell's defaults
    replaced) on a small simulated ``horizon`` table: its title is numbered and it writes its
    figure."""
    import jupytext
    from support.tiny_agg import build_tiny_agg

    agg = build_tiny_agg(tmp_path / "agg", runs=5, experiments=("horizon",))
    nb = number_title(jupytext.reads(code_block(f"notebooks/{NAME}.py"), fmt="py:percent"), NAME)
    assert nb.cells[0].source.startswith(f"# Figure {figure_number(NAME)} — regret at the")
    namespace: dict = {}
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        exec(cell.source, namespace)
        if "parameters" in cell.metadata.get("tags", []):
            namespace.update(agg_dir=str(agg), out_dir=str(tmp_path / "out"))
    for ext in ("pdf", "png"):
        assert (tmp_path / "out" / "figures" / f"{NAME}.{ext}").stat().st_size > 0
