"""Findings: numbers the report shows beside the verdicts that are not claims of the paper, so
out of the verdict count (the registry's :data:`~privdtol.analysis.registry.FINDINGS`).  One
module per subject, each declaring its findings (``RECORDS``) beside their computations:

- :mod:`.rates`: ``constants`` (Theorem 1's constants fitted) and ``theta_band``;
- :mod:`.ablations`: ``prefix_cost`` and ``cap_cost``;
- :mod:`.dependent`: ``dependent_rate`` (the rate's exponents on dependent losses);
- :mod:`.slack`: ``proof_slack`` (the slack of each step of the proof);
- :mod:`.worst_case`: ``worst_case`` (what the worst-instance searches found);
- :mod:`.competitors`: ``competitors`` (rps against the best private competitor, per regime);
- :mod:`.common`: the helpers they share.

:func:`findings` evaluates them all into one JSON-safe dict (``results/findings.json``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.findings import (  # noqa: F401 (every findings module, loaded)
    ablations,
    common,
    competitors,
    dependent,
    rates,
    slack,
    worst_case,
)
from privdtol.analysis.records import plain


def findings(tables: Mapping[str, pd.DataFrame]) -> dict:
    """Every finding of the registry: ``{id: {"title", "available", "text", ...numbers}}``."""
    from privdtol.analysis.registry import FINDINGS

    out = {}
    for f in FINDINGS.values():
        sub = {e: tables[e] for e in f.experiments if e in tables}
        out[f.id] = {"title": f.title, **f.finding_function()(sub)}
    return plain(out)
