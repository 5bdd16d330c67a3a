"""Report: what the run shows, by product.  It renders what the earlier layers computed and
computes nothing itself.

- :mod:`privdtol.report.latex` the pieces of the LaTeX replication report (numbers, claims,
  tables, findings, provenance), through jinja2 templates and pandas ``Styler.to_latex``;
- :mod:`privdtol.report.notebook` what the notebooks (``notebooks/*.py``) import: their
  notes on the checks and findings, and their tables in the report's number style;
- :mod:`privdtol.report.html` the run's self-contained HTML pages: the executed notebooks'
  pages, their index, the explorer, and the TeX-to-MathML conversion they share;
- :mod:`privdtol.report.build` the workflow's jobs that turn the pieces into deliverables:
  the PDF (latexmk), its submission export, the rule graph, the executed notebooks;
- :mod:`privdtol.report.figure_order` the one definition of a figure's number, which all four
  show.

Within the layer, each product imports only those before it in this order: ``figure_order``,
``latex``, ``notebook``, ``html``, ``build`` (``tests/workflow/test_layers.py``).  The report
sits above the plotting layer: it may use :mod:`privdtol.plotting.style`'s public names
(display names, palette); plotting imports nothing of the report.
"""
