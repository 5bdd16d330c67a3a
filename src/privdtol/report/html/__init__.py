"""The run's HTML pages, self-contained and offline (no CDN, no server):

- :mod:`~privdtol.report.html.notebook_html` an executed notebook's page
  (``results/notebooks/<name>.html``, nbconvert's ``templates/nbconvert/offline``);
- :mod:`~privdtol.report.html.notebook_index` their index (``results/notebooks/index.html``);
- :mod:`~privdtol.report.html.explorer` and :mod:`~privdtol.report.html.explorer_views` the
  explorer of every cell (``results/explorer/index.html``);
- :mod:`~privdtol.report.html.mathml` TeX mathematics as MathML, for all three.
"""
