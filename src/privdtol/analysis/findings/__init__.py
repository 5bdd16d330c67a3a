"""Findings: numbers the report shows beside the verdicts that are not claims of the paper, so
out of the verdict count (the registry's :data:`~privdtol.analysis.registry.FINDINGS`).  One
module per subject, found by the registry as the claims are (every module of this package
that declares ``RECORDS`` or ``PAGE_ONE``; nothing lists them): each declares its findings
(``RECORDS``, :class:`~privdtol.analysis.claim_types.Finding`, with its place in the report,
its name, its sentence and its table) beside their computations, and its sentences of page 1
(``PAGE_ONE``, :class:`~privdtol.analysis.claim_types.PageLine`).  :mod:`.common` holds the
helpers they share; :mod:`.privacy` declares only page 1's sentence on the privacy audit.

:func:`findings` evaluates them all into one JSON-safe dict (``results/findings.json``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.records import plain


def findings(tables: Mapping[str, pd.DataFrame]) -> dict:
    """Every finding of the registry: ``{id: {"title", "available", "text", ...numbers}}``."""
    from privdtol.analysis.registry import FINDINGS

    out = {}
    for f in FINDINGS.values():
        sub = {e: tables[e] for e in f.experiments if e in tables}
        out[f.id] = {"title": f.title, **f.finding_function()(sub)}
    return plain(out)
