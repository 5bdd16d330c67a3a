"""Report: the LaTeX replication report.  It renders what the earlier layers computed and
computes nothing itself.

- :mod:`~privdtol.report.assets` writes the generated pieces from the claims registry, the check
  records, the notebooks' table CSVs, the figures and the aggregated tables;
- :mod:`~privdtol.report.templating` the jinja2 environment of ``templates/*.tex.j2``;
- :mod:`~privdtol.report.claims` each claim's macros and statement, the size/power table, the
  failures, the cell counts;
- :mod:`~privdtol.report.findings_prose` the findings' and figures' prose (takeaways), written
  from the numbers;
- :mod:`~privdtol.report.narrative` what a notebook says after its outputs (claims' verdicts,
  findings) and its tables in the report's number style;
- :mod:`~privdtol.report.notebook_run` a notebook rule's job (execute, strip the timestamps,
  export the HTML page);
- :mod:`~privdtol.report.tables` the results and verdict tables, through pandas
  ``Styler.to_latex`` (siunitx; sorted, pivoted, constant columns to the caption);
- :mod:`~privdtol.report.config_tables` the grid, check settings, algorithms and loss models;
- :mod:`~privdtol.report.notebook_index` ``results/notebooks/index.html``;
- :mod:`~privdtol.report.layout` section titles, captions and column headers, defined once;
- :mod:`~privdtol.report.latex` escaping, the number style and the typesetting of the analysis
  layer's plain-text mathematics (:func:`~privdtol.report.latex.mathify`);
- :mod:`~privdtol.report.provenance` the appendix (the run's commit, date and archive name come
  from :mod:`privdtol.archive.layout`);
- :mod:`~privdtol.report.compile` latexmk and the check of its log.

The report sits above the plotting layer: it may use :mod:`privdtol.plotting.style`'s public
names (display names, palette); plotting imports nothing of the report.
"""
