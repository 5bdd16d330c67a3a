"""The pieces of the LaTeX replication report (``results/report/generated/``), which
``paper/replication_report.tex`` inputs.

- :mod:`~privdtol.report.latex.assets` writes them from the claims registry, the check
  records, the notebooks' table CSVs, the figures and the aggregated tables;
- :mod:`~privdtol.report.latex.templating` the jinja2 environment of ``templates/*.tex.j2``;
- :mod:`~privdtol.report.latex.text` escaping, the number style and the typesetting of the
  analysis layer's plain-text mathematics (:func:`~privdtol.report.latex.text.mathify`);
- :mod:`~privdtol.report.latex.layout` section titles, captions and column headers, defined
  once;
- :mod:`~privdtol.report.latex.tables` the one function every table goes through
  (:func:`~privdtol.report.latex.tables.latex_table`), the results tables of the notebooks and
  the verdict table;
- :mod:`~privdtol.report.latex.claims`, :mod:`~privdtol.report.latex.numbers` and
  :mod:`~privdtol.report.latex.verdict_flags` each claim's macros, statement and verdict row;
- :mod:`~privdtol.report.latex.findings_prose` the findings' prose (their sections and page
  1), as their modules declare it, written from the numbers;
- :mod:`~privdtol.report.latex.robustness` and :mod:`~privdtol.report.latex.known_truths` how
  far the verdicts can be trusted;
- :mod:`~privdtol.report.latex.config_tables` the grid, check settings, algorithms and loss
  models;
- :mod:`~privdtol.report.latex.provenance` the appendix (the run's commit, date and archive
  name come from :mod:`privdtol.archive.layout`).

Compiling them is :mod:`privdtol.report.build.compile`.
"""
