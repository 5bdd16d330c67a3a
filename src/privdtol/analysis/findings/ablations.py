"""The findings of the ablations experiment: ``prefix_cost`` and ``cap_cost``, rps against
``rps_full_prefix`` and ``rps_uncapped`` (ratio of regrets per cell: min, median, max)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis.cells import select
from privdtol.analysis.claim_types import Finding, PageLine
from privdtol.analysis.findings.common import final_cells, spread
from privdtol.analysis.records import fmt

#: the findings this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "prefix_cost",
        "Cost of the random prefix: rps / rps_full_prefix",
        ("ablations",),
        f"{__name__}:prefix_cost",
        order=20,
        label="Cost of the random prefix",
        sentence=f"{__name__}:prefix_sentence",
    ),
    Finding(
        "cap_cost",
        "Cost of the eta cap: rps / rps_uncapped",
        ("ablations",),
        f"{__name__}:cap_cost",
        order=21,
        label=r"Cost of the cap on $\eta$",
        sentence=f"{__name__}:cap_sentence",
    ),
)


def _ablation(tables, other: str, what: str, where=None, where_text: str = "") -> dict:
    """rps / ``other`` per common cell of the ablations experiment; with ``where`` (a mask
    function of the cells' (K, gap, epsilon) index) only over the cells where the ablated
    ingredient matters, the others counted apart."""
    df = final_cells(tables, ("ablations",))
    if df.empty:
        return {"available": False, "text": "No ablations experiment."}
    keys = ["K", "gap", "epsilon"]
    a = select(df, "rps").set_index(keys)["mean"]
    b = select(df, other).set_index(keys)["mean"]
    ratio = (a / b).dropna()
    if ratio.empty:
        return {"available": False, "text": f"No common rps and {other} cells."}
    left_out = 0
    if where is not None:
        mask = np.asarray(where(ratio.index), dtype=bool)
        left_out = int((~mask).sum())
        ratio = ratio[mask]
        if ratio.empty:
            return {"available": False, "text": f"No common cell {where_text}."}
    s = spread(ratio)
    rest = (
        f"; the {left_out} other cells, where it does not matter, are left out" if left_out else ""
    )
    return {
        "available": True,
        **s,
        "where": where_text,
        "left_out": left_out,
        "text": f"{what}: rps / {other} over {s['n']} cells{' ' + where_text if where_text else ''}"
        f": median {fmt(s['median'])} (range [{fmt(s['min'])}, {fmt(s['max'])}]){rest}.",
    }


def prefix_cost(tables: Mapping[str, pd.DataFrame]) -> dict:
    return _ablation(tables, "rps_full_prefix", "Cost of the random prefix")


def cap_cost(tables: Mapping[str, pd.DataFrame]) -> dict:
    """rps / rps_uncapped over the cells where the cap binds (eps/2 > 1/8, i.e. eps > 1/4):
    elsewhere the two algorithms are the same (eta = eps/2 for both) and their ratio is 1."""
    return _ablation(
        tables,
        "rps_uncapped",
        "Cost of the eta cap",
        where=lambda idx: idx.get_level_values("epsilon") / 2 > 1 / 8,
        where_text="where the cap binds (eps > 1/4)",
    )


# ----------------------------------------------------------------------------- the report's prose


def cost_sentence(item: dict, tex, what: str, ablation: str) -> str | None:
    """What an ingredient of RPS costs in regret: RPS over the ablation without it."""
    if not item.get("available") or item.get("median") is None:
        return None
    spread = (
        f", range {tex.times3(item['min'])} to {tex.times3(item['max'])}"
        if item.get("min") is not None and item.get("max") is not None
        else ""
    )
    where = f" {tex.mathify(item['where'])}" if item.get("where") else ""
    return (
        rf"{what} costs {tex.times3(item['median'])} regret (median over {item.get('n', '?')} "
        rf"cells{where}{spread}): RPS over \texttt{{{tex.escape(ablation)}}}."
    )


def prefix_sentence(item: dict, tex) -> str | None:
    """The findings section's sentence of ``prefix_cost``."""
    return cost_sentence(item, tex, "The random prefix", "rps_full_prefix")


def cap_sentence(item: dict, tex) -> str | None:
    """The findings section's sentence of ``cap_cost``."""
    return cost_sentence(item, tex, r"The cap $\eta \le 1/8$", "rps_uncapped")


def ablations_line(found: dict, checks: dict, tex) -> str | None:
    """Page 1: what the two ingredients of the analysis cost in regret (the ablations)."""
    prefix, cap = found.get("prefix_cost") or {}, found.get("cap_cost") or {}
    if not (prefix.get("available") and cap.get("available")):
        return None
    return (
        rf"The random prefix costs a median {tex.times(prefix['median'])} regret and the cap "
        rf"$\eta \le 1/8$ a median {tex.times(cap['median'])} where it binds "
        r"($\varepsilon > 1/4$)."
    )


#: the page-1 sentence of this module's findings
PAGE_ONE = (PageLine(70, "sec:ablations", ablations_line),)
