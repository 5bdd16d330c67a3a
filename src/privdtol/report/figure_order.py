"""The one definition of a notebook's figure number: its place in the report.

The report shows one figure per notebook of :data:`privdtol.analysis.registry.NOTEBOOKS`, the
main text's sections first (registry order), then those of the appendix
(:data:`privdtol.report.layout.APPENDIX_SECTIONS`, registry order), and then the rule graph
(``paper/sections/provenance.tex``).  LaTeX's own figure counter numbers them in that order;
:func:`figure_number` is the same count, for everything that cites a figure outside LaTeX: the
notebooks' titles (``# Figure N — ...``, held by tests/workflow/test_notebooks.py), the notes
and links the notebooks print (:mod:`privdtol.report.narrative`), the notebook index, the docs'
notebook table and the Snakemake report's captions (``workflow/report/<notebook>.rst``).
"""

from __future__ import annotations

from privdtol.analysis.registry import NOTEBOOKS
from privdtol.report.layout import APPENDIX_SECTIONS


def notebooks_in_order() -> list[str]:
    """The registry's notebooks in the order their figures appear in the report: the main
    text's sections, then the appendix's (each in registry order)."""
    main = [n for n in NOTEBOOKS if n not in APPENDIX_SECTIONS]
    return main + [n for n in NOTEBOOKS if n in APPENDIX_SECTIONS]


def figure_number(name: str) -> int:
    """The number of notebook ``name``'s figure in the report (1 for the first)."""
    if name not in NOTEBOOKS:
        raise KeyError(f"{name!r} is not a notebook of the registry")
    return notebooks_in_order().index(name) + 1


def figure_anchor(name: str) -> str:
    """The PDF anchor of the figure (hyperref names it after LaTeX's counter)."""
    return f"figure.{figure_number(name)}"
