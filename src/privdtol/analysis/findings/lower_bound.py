"""The finding ``lower_bound``: what each algorithm pays above the explicit lower bound LB_T that
every ε-DP algorithm must meet (:mod:`privdtol.analysis.price`), over the standard-instance
cells of the regret experiments at their largest horizon: RPS's range, the best private
competitor's, and the non-private algorithms' (held against the bound at their experiment's ε)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.algorithms import ALGORITHMS, COMPETITORS
from privdtol.analysis.cells import stack
from privdtol.analysis.claim_types import BOUNDS_TABLE, LOWER_EXPERIMENTS, Finding
from privdtol.analysis.findings.common import spread
from privdtol.analysis.price import final_prices, price_table
from privdtol.analysis.records import fmt

#: the findings this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "lower_bound",
        "regret over the explicit lower bound LB_T, per algorithm",
        (*LOWER_EXPERIMENTS, BOUNDS_TABLE),
        f"{__name__}:lower_bound_prices",
    ),
)
#: the ratios are point values (regret/LB_T); the confidence only sets limits not used here
_CONFIDENCE = 0.95


def lower_bound_prices(tables: Mapping[str, pd.DataFrame]) -> dict:
    """Per algorithm (controls left out) the spread of Reg/LB_T at the largest horizon; the
    sentence names RPS's range, the best private competitor's (smallest median) and the
    non-private algorithms' smallest ratio."""
    df = stack(tables, LOWER_EXPERIMENTS)
    final = final_prices(price_table(df, _CONFIDENCE, tables.get(BOUNDS_TABLE)))
    if final.empty:
        return {"available": False, "text": "No standard-instance cells."}
    final = final[[ALGORITHMS[a].role != "control" for a in final["algorithm"]]]
    per = {
        str(a): {**spread(g["ratio"]), "private": bool(g["private"].iloc[0])}
        for a, g in final.groupby("algorithm", sort=True)
    }
    if "rps" not in per:
        return {"available": False, "text": "No rps cells.", "algorithms": per}
    rps = per["rps"]
    text = (
        f"RPS pays between {fmt(rps['min'])} and {fmt(rps['max'])} times the explicit lower "
        f"bound LB_T (median {fmt(rps['median'])}, {rps['n']} standard-instance cells at their "
        "largest horizon)"
    )
    rivals = [a for a in COMPETITORS if a in per and per[a]["n"]]
    best = min(rivals, key=lambda a: per[a]["median"], default=None)
    if best is not None:
        b = per[best]
        text += (
            f"; the best private competitor, {best}, between {fmt(b['min'])} and "
            f"{fmt(b['max'])} (median {fmt(b['median'])})"
        )
    public = {a: v for a, v in per.items() if not v["private"] and v["n"]}
    if public:
        low = min(public, key=lambda a: public[a]["min"])
        text += (
            f"; without privacy, {low} goes down to {fmt(public[low]['min'])} times the bound "
            "an eps-DP algorithm must meet"
        )
    return {"available": True, "text": text + ".", "algorithms": per, "best_competitor": best}
