"""One module per claim of the paper.  Each declares its records (``RECORDS``: the
:class:`~privdtol.analysis.claim_types.Claim` of each claim it checks, with the paper's
statement, experiments, thresholds, negative controls, notebook and typeset form), which
:mod:`privdtol.analysis.registry` collects into :data:`~privdtol.analysis.registry.CLAIMS`, and
exposes the check each record names, ``check(tables, thresholds, inputs) -> dict`` (a
check record of :mod:`privdtol.analysis.records`), the parametrised check it wraps (for tests and
negative controls) and the display helpers the claim's notebook needs.  The decision rule is
:mod:`privdtol.analysis.verdict`'s."""
