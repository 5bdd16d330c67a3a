"""The one definition of a notebook's figure number: its place in the report.

The report shows one figure per figure declaration (:mod:`privdtol.analysis.figures`,
:data:`privdtol.analysis.registry.NOTEBOOKS`): the main text's first, then the appendix's
(:attr:`~privdtol.analysis.claim_types.Figure.appendix`), each part by
:attr:`~privdtol.analysis.claim_types.Figure.order`, and then the rule graph
(``paper/sections/provenance.tex``).  LaTeX's own figure counter numbers them in that order;
:func:`figure_number` is the same count, for everything that cites a figure outside LaTeX: the
notebooks' titles (``# Figure — ...`` in the source, numbered when the notebook is run,
:func:`privdtol.report.build.notebook_run.number_title`), the notes and links the notebooks print
(:mod:`privdtol.report.notebook.narrative`), the notebook index, the docs' notebook table and the
Snakemake report's captions (:func:`snakemake_caption`, ``workflow/report/figure.rst``).  No
figure number is written by hand.
"""

from __future__ import annotations

from privdtol.analysis.registry import NOTEBOOKS


def notebooks_in_order() -> list[str]:
    """The registry's notebooks in the order their figures appear in the report: the main
    text's sections, then the appendix's (each by its declared ``order``)."""
    return sorted(NOTEBOOKS, key=lambda n: (NOTEBOOKS[n].appendix, NOTEBOOKS[n].order))


def figure_number(name: str) -> int:
    """The number of notebook ``name``'s figure in the report (1 for the first)."""
    if name not in NOTEBOOKS:
        raise KeyError(f"{name!r} is not a notebook of the registry")
    return notebooks_in_order().index(name) + 1


def figure_anchor(name: str) -> str:
    """The PDF anchor of the figure (hyperref names it after LaTeX's counter)."""
    return f"figure.{figure_number(name)}"


def snakemake_caption(name: str) -> dict:
    """What the Snakemake report's caption of notebook ``name``'s figure shows
    (``workflow/report/figure.rst`` renders it from the notebook rule's params): its number and
    its declaration's plain-text title and caption."""
    fig = NOTEBOOKS[name]
    return {
        "number": figure_number(name),
        "title": fig.plain_title,
        "caption": fig.plain_caption,
    }
