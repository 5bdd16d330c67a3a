"""The finding ``lower_bound``: what each algorithm pays above the explicit lower bound LB_T that
every ε-DP algorithm must meet (:mod:`privdtol.analysis.price`), over the standard-instance
cells of the regret experiments at their largest horizon: RPS's range, the best private
competitor's, and the non-private algorithms' (held against the bound at their experiment's ε)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.algorithms import ALGORITHMS, COMPETITORS
from privdtol.analysis.cells import stack
from privdtol.analysis.claim_types import BOUNDS_TABLE, LOWER_EXPERIMENTS, Finding, PageLine
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
        order=70,
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


# ----------------------------------------------------------------------------- the report's prose


def lower_bound_line(found: dict, checks: dict, tex) -> str | None:
    """Page 1: RPS's and its best private competitor's range over the lower bound; the lowest
    non-private algorithm."""
    item = found.get("lower_bound") or {}
    algs = item.get("algorithms") or {}
    rps = algs.get("rps")
    if not item.get("available") or not rps or not rps.get("n"):
        return None
    best = item.get("best_competitor")
    rival = (
        rf", its best private competitor {tex.texttt(best)} {tex.times(algs[best]['min'])} to "
        rf"{tex.times(algs[best]['max'])}"
        if best in algs
        else ""
    )
    public = [(v["min"], a) for a, v in algs.items() if not v.get("private") and v.get("n")]
    below = (
        rf"; non-private {tex.texttt(min(public)[1])} falls to {tex.times(min(public)[0])}"
        if public
        else ""
    )
    return (
        rf"RPS pays {tex.times(rps['min'])} to {tex.times(rps['max'])} the lower bound "
        rf"$\mathrm{{LB}}_T$ (median {tex.times(rps['median'])}){rival}{below}."
    )


def floor_line(found: dict, checks: dict, tex) -> str | None:
    """Page 1: how far LB_T is from the true floor OPT_T where it is computed (C8a's cells at
    each cell's largest horizon), and how far RPS is from it (C8b's)."""
    cells = (checks.get("C8a") or {}).get("cells") or []
    if not cells:
        return None
    last: dict = {}
    for c in cells:
        key = (c["K"], c["gap"], c["epsilon"])
        if c.get("ratio") is not None and c["horizon"] >= last.get(key, {}).get("horizon", 0):
            last[key] = c
    if not last:
        return None
    ratios = [c["ratio"] for c in last.values()]
    Ks = sorted({k for k, _, _ in last})
    tops = sorted({c["horizon"] for c in last.values()})
    rps = [
        c["ratio"]
        for c in (checks.get("C8b") or {}).get("cells") or []
        if c.get("algorithm") == "rps"
        and (c["K"], c["gap"], c["epsilon"]) in last
        and c["horizon"] == last[(c["K"], c["gap"], c["epsilon"])]["horizon"]
    ]
    span = (
        tex.times(min(rps))
        if rps and min(rps) == max(rps)
        else f"{tex.times(min(rps or [0]))} to {tex.times(max(rps or [0]))}"
    )
    rps_part = rf"; RPS pays {span} $\mathrm{{OPT}}_T$ there" if rps else ""
    return (
        rf"Where the true floor $\mathrm{{OPT}}_T$ (the best regret of any $\varepsilon$-DP "
        rf"algorithm, an exact linear program) is known ($K = {', '.join(map(str, Ks))}$, "
        rf"$T \le {max(tops)}$), the explicit bound $\mathrm{{LB}}_T$ is {tex.times(min(ratios))} "
        rf"to {tex.times(max(ratios))} below it at the largest horizon{rps_part}."
    )


#: the page-1 sentences of the lower bound (this module's finding) and of the true floor (the
#: checks of the exact floor, C8a and C8b)
PAGE_ONE = (
    PageLine(10, "sec:lower", lower_bound_line),
    PageLine(20, "sec:floor", floor_line),
)
