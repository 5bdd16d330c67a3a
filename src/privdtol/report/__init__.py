"""Report: the LaTeX replication report.  It renders what the earlier layers computed and
computes nothing itself.

- :mod:`~privdtol.report.assets` writes the generated pieces from the claims registry, the check
  records, the notebooks' table CSVs, the figures and the aggregated tables;
- :mod:`~privdtol.report.templating` the jinja2 environment of ``templates/*.tex.j2``;
- :mod:`~privdtol.report.tables` every table, through pandas ``Styler.to_latex`` (siunitx);
- :mod:`~privdtol.report.layout` section titles, captions and column headers, defined once;
- :mod:`~privdtol.report.latex` escaping and number formatting;
- :mod:`~privdtol.report.provenance` the appendix and the report's date;
- :mod:`~privdtol.report.compile` latexmk and the check of its log.
"""
