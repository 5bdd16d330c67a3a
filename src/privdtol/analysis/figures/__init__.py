"""One module per figure of the report, named like the notebook that draws it
(``notebooks/<name>.py``).  Each declares ``FIGURE``, a
:class:`~privdtol.analysis.claim_types.Figure`: the experiments its notebook reads, the tables
it writes, its section's title and LaTeX caption, its Snakemake report caption (plain text),
main text or appendix, and its place (``order``).  :mod:`privdtol.analysis.registry` collects
them (:data:`~privdtol.analysis.registry.NOTEBOOKS`, by ``order``); the notebook rules, the
report's sections and their order, the figure numbers
(:func:`privdtol.report.figure_order.figure_number`) and the Snakemake report's captions are
derived from the declarations.  The claims a figure shows are those whose
:attr:`~privdtol.analysis.claim_types.Claim.notebook` names it; the prose of its section is
``paper/sections/lead/<name>.tex`` (main text) and ``paper/sections/experiments/<name>.tex``
(docs/extending.md, "Adding a figure")."""
