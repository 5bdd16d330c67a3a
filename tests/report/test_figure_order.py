"""Tests of :mod:`privdtol.report.figure_order`: a notebook's figure number is its figure's place
in the report (main text, then appendix, each part by the declarations' ``order``), and every
place that cites it outside LaTeX (the notebooks' titles, the Snakemake report's caption, the
generated sections) takes it from there."""

from __future__ import annotations

import re

import jinja2
import pytest
from support.paths import ROOT
from support.sources import PROSE_DIRS, figure_numbers, text_files

from privdtol.analysis.claim_types import Figure
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.report import figure_order
from privdtol.report.build.notebook_run import TITLE_PREFIX, read_source
from privdtol.report.figure_order import figure_anchor, figure_number, notebooks_in_order
from privdtol.report.latex.templating import fill_template


def _figure(name, order, appendix=False):
    return Figure(name, order, ("e",), (name,), name, "c", f"{name} plain", "text", appendix)


def test_numbers_are_main_text_first_then_appendix_each_by_order(monkeypatch):
    # declared out of order, appendix ones among the main text's: numbered by hand below
    figures = {
        "b": _figure("b", 30),
        "x": _figure("x", 5, appendix=True),
        "a": _figure("a", 20),
        "y": _figure("y", 1, appendix=True),
        "c": _figure("c", 40),
    }
    monkeypatch.setattr(figure_order, "NOTEBOOKS", figures)
    assert figure_order.notebooks_in_order() == ["a", "b", "c", "y", "x"]
    assert {n: figure_order.figure_number(n) for n in figures} == {
        "a": 1,
        "b": 2,
        "c": 3,
        "y": 4,
        "x": 5,
    }
    assert figure_order.figure_anchor("x") == "figure.5"
    assert figure_order.snakemake_caption("y") == {
        "number": 4,
        "title": "y plain",
        "caption": "text",
    }


def test_the_registry_is_numbered_in_one_run():
    order = notebooks_in_order()
    assert sorted(order) == sorted(NOTEBOOKS)
    assert [figure_number(n) for n in order] == list(range(1, len(NOTEBOOKS) + 1))
    main = [n for n in order if not NOTEBOOKS[n].appendix]
    assert order[: len(main)] == main  # no appendix figure before a main-text one
    assert figure_anchor(order[0]) == "figure.1"
    with pytest.raises(KeyError):
        figure_number("no-such-notebook")


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_the_notebook_title_is_numbered_when_run(name):
    source = (ROOT / "notebooks" / f"{name}.py").read_text()
    # the source's title has no number: it is filled in when the notebook is converted
    assert re.search(rf"^# {re.escape(TITLE_PREFIX)}\S", source, re.M), name
    title = read_source(ROOT / "notebooks" / f"{name}.py")["cells"][0]["source"]
    assert title.startswith(f"# Figure {figure_number(name)} — "), title


def test_a_notebook_without_the_figure_title_is_left_as_it_is(tmp_path):
    path = tmp_path / "scratch.py"
    path.write_text("# %% [markdown]\n# # A scratch notebook\n\n# %%\nx = 1\n")
    assert read_source(path)["cells"][0]["source"] == "# A scratch notebook"


def test_the_snakemake_caption_renders_the_number_title_and_caption():
    """workflow/report/figure.rst, rendered as Snakemake renders a caption (Jinja2 with the
    job's ``snakemake`` object; the notebook rule's params ``figure``)."""

    params = type("Params", (), {"figure": figure_order.snakemake_caption("horizon")})
    job = type("Snakemake", (), {"params": params})
    template = (ROOT / "workflow" / "report" / "figure.rst").read_text()
    text = jinja2.Environment().from_string(template).render(snakemake=job)
    assert text.startswith(f"**Figure {figure_number('horizon')} — regret against the horizon T.**")
    assert NOTEBOOKS["horizon"].plain_caption in text


def test_sections_leave_the_numbering_to_latex():
    sections = [
        {"name": n, "title": n, "caption": "c", "pointer": "t", "has_figure": True}
        | {"claims": [], "tables": [], "figure": figure_number(n), "lead": True, "prose": True}
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


def test_no_figure_number_is_written_by_hand():
    """Outside the tests (which pin numbers by hand on purpose) and the changelog (history), no
    source, notebook, rule, caption, TeX or document writes a figure's number."""
    dirs = [d for d in PROSE_DIRS if d != "tests"] + ["docs"]
    files = [p for p in text_files(ROOT, dirs) if "_build" not in p.parts]
    files.append(ROOT / "README.md")
    found = [
        f"{p.relative_to(ROOT)}:{line}: {number}"
        for p in files
        for line, number in figure_numbers(p.read_text(encoding="utf-8"))
    ]
    assert not found, "figure numbers written by hand (figure_order numbers them):\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    "text", ["# # Figure 3 — the proof", r"see Fig.~12", "Figures 6–11 are now 7–12", "figure 1"]
)
def test_a_written_figure_number_is_found(text):
    assert figure_numbers(text)


@pytest.mark.parametrize(
    "text",
    ["# # Figure — the proof", r"Figure~\ref{fig:proof}", "figure.{n}", "the figure's 2 panels"],
)
def test_what_is_not_a_written_figure_number(text):
    assert not figure_numbers(text)


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_every_snakemake_caption_is_clean_restructuredtext(name):
    """Snakemake renders a caption with docutils: a warning (an ``|x|`` read as a substitution,
    an unclosed ``*``) shows as an error box in the report."""
    from docutils.core import publish_parts
    from docutils.utils import SystemMessage

    params = type("Params", (), {"figure": figure_order.snakemake_caption(name)})
    template = (ROOT / "workflow" / "report" / "figure.rst").read_text()
    text = (
        jinja2.Environment()
        .from_string(template)
        .render(snakemake=type("Snakemake", (), {"params": params}))
    )
    overrides = {"halt_level": 2, "report_level": 5}
    try:
        publish_parts(text, writer="html", settings_overrides=overrides)
    except SystemMessage as e:  # pragma: no cover (the failure's message)
        pytest.fail(f"{name}: {e}")


def test_a_substitution_in_a_caption_is_caught():
    from docutils.core import publish_parts
    from docutils.utils import SystemMessage

    with pytest.raises(SystemMessage):
        publish_parts(
            "probability |ρ| of",
            writer="html",
            settings_overrides={"halt_level": 2, "report_level": 5},
        )
