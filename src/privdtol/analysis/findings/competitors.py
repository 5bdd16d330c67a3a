"""The finding ``competitors``: rps against each private competitor and the best of them, per
regime (ratio of regrets per cell), over the standard-instance cells of the rate experiments.

Only a private competitor is ranked: one that declares no privacy, or that fails its own
privacy audit (a cell of the privacy experiment that C1 marks FAIL, where this config runs the
audit: :func:`privdtol.analysis.claims.c1_privacy.c1_cells`), is left out of the ranking and
named with the reason (``excluded``) -- a non-private algorithm is never "rps's best private
competitor"."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.algorithms import ALGORITHMS, COMPETITORS
from privdtol.analysis.cells import regime, select
from privdtol.analysis.claim_types import RATE_EXPERIMENTS, Finding
from privdtol.analysis.findings.common import final_cells, spread
from privdtol.analysis.records import fmt

#: the findings this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "competitors",
        "rps against the best private competitor, per regime",
        (*RATE_EXPERIMENTS, "privacy"),
        f"{__name__}:competitors",
    ),
)


#: the regimes of the competitor table, defined from the rate's two terms
REGIMES = {
    "statistical": "eps > gap: log K/gap dominates the rate",
    "balanced": "eps = gap: the two terms are equal",
    "privacy": "eps < gap: log K/eps dominates the rate",
}


def excluded_competitors(tables: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """The competitors left out of the ranking, with the reason: no privacy declared, or a
    FAIL cell of their own privacy audit (where the privacy table is among ``tables``)."""
    out = {n: "declares no privacy" for n in COMPETITORS if ALGORITHMS[n].privacy is None}
    audit = tables.get("privacy")
    if audit is not None and not audit.empty and "role" in audit.columns:
        from privdtol.analysis.claims.c1_privacy import c1_cells

        cells = c1_cells(audit)
        failed = cells[(cells.role == "private") & (cells.verdict != "PASS")]
        for name, sub in failed.groupby("algorithm", sort=True):
            if name in COMPETITORS and name not in out:
                out[str(name)] = f"fails its own privacy audit ({len(sub)} cells, C1)"
    return out


def competitors(tables: Mapping[str, pd.DataFrame]) -> dict:
    """rps against each private competitor and against the best of them, per regime
    (:data:`REGIMES`), over the distinct standard-instance cells of the rate experiments; with
    the disclosure of the competitors that are the same algorithm on these losses."""
    df = final_cells(tables, RATE_EXPERIMENTS)
    if df.empty:
        return {"available": False, "text": "No rate experiments."}
    df = select(df, None, "bernoulli", "standard")
    keys = ["K", "gap", "epsilon"]
    rps = select(df, "rps").drop_duplicates(keys).set_index(keys)["mean"]
    excluded = excluded_competitors(tables)
    ranked = [n for n in COMPETITORS if n not in excluded]
    comp = select(df, ranked).drop_duplicates(["algorithm", *keys]) if ranked else df.iloc[:0]
    if comp.empty or rps.empty:
        return {"available": False, "text": "No rps and competitor cells in common."}
    best = comp.groupby(keys)["mean"].min()
    ratio = (rps / best).dropna().reset_index(name="ratio")
    if ratio.empty:
        return {"available": False, "text": "No rps and competitor cells in common."}
    ratio["regime"] = regime(ratio["gap"], ratio["epsilon"])
    per = {}
    for name, g in ratio.groupby("regime"):
        per[str(name)] = {**spread(g["ratio"]), "rps_best": int((g["ratio"] <= 1).sum())}
    rows = []
    wide = comp.pivot_table(index=keys, columns="algorithm", values="mean")
    for alg in [*ranked, "best"]:
        other = best if alg == "best" else wide.get(alg)
        if other is None:
            continue
        r = (rps / other).dropna().reset_index(name="ratio")
        r["regime"] = regime(r["gap"], r["epsilon"])
        for name, g in r.groupby("regime"):
            rows.append(
                {
                    "regime": str(name),
                    "competitor": alg,
                    **spread(g["ratio"]),
                    "rps_better": int((g["ratio"] < 1).sum()),
                }
            )
    # rnm_ftnl and wu_wang (Laplace) are the same law on {0,1} losses (Bernoulli resampling is
    # the identity there): measured, not assumed
    same = {}
    if {"rnm_ftnl", "wu_wang"} <= set(wide.columns):
        pair = wide[["rnm_ftnl", "wu_wang"]].dropna()
        rel = (pair["rnm_ftnl"] - pair["wu_wang"]).abs() / pair["rnm_ftnl"]
        same = {"n": len(pair), "max_rel_diff": float(rel.max()) if len(pair) else None}
    text = "; ".join(
        f"{k}: rps / best competitor median {fmt(v['median'])} over {v['n']} cells "
        f"(rps best in {v['rps_best']})"
        for k, v in per.items()
    )
    if excluded:
        text += "; not ranked: " + ", ".join(f"{n} ({why})" for n, why in excluded.items())
    return {
        "available": True,
        "excluded": excluded,
        "regimes": per,
        "regime_definitions": {k: v for k, v in REGIMES.items() if k in per},
        "table": rows,
        "identical": same,
        "text": text + ".",
    }
