"""What a notebook (``notebooks/*.py``) imports from the package to speak of its outputs:
:mod:`~privdtol.report.notebook.narrative` (``checks_note``, ``figure_note``, ``display_table``,
``table_note``).  Its words come from the check records and the findings, its tables in the
report's number style (:mod:`privdtol.report.latex`), so a notebook hard-codes no verdict and
no number.  Running a notebook is :mod:`privdtol.report.build.notebook_run`.
"""
