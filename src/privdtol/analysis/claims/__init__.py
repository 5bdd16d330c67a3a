"""One module per claim of the paper.  Each exposes the check named in
:data:`privdtol.analysis.registry.CLAIMS`, ``check(tables, thresholds, inputs) -> dict`` (a
check record of :mod:`privdtol.analysis.records`), the parametrised check it wraps (for tests and
negative controls) and the display helpers the claim's notebook needs.  The decision rule is
:mod:`privdtol.analysis.verdict`'s."""
