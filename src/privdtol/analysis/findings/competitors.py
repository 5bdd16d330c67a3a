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
from privdtol.analysis.claim_types import RATE_EXPERIMENTS, Finding, PageLine
from privdtol.analysis.findings.common import final_cells, spread
from privdtol.analysis.records import fmt

#: the findings this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "competitors",
        "rps against the best private competitor, per regime",
        (*RATE_EXPERIMENTS, "privacy"),
        f"{__name__}:competitors",
        order=60,
        label="RPS against its competitors",
        sentence=f"{__name__}:competitors_sentence",
        table=f"{__name__}:competitors_table",
    ),
)


#: the regimes of the competitor table, defined from the rate's two terms
REGIMES = {
    "statistical": "eps > gap: log K/gap dominates the rate",
    "balanced": "eps = gap: the two terms are equal",
    "privacy": "eps < gap: log K/eps dominates the rate",
}


def same_on_binary_losses() -> list[tuple[str, str]]:
    """The pairs of competitors that are one algorithm on {0,1} losses, from their
    declarations: block algorithms with the same exact selection law (family, parameter at
    eps = 1 and K = 4, uniform mix) over the same rounds (``prefix_rule``), one reading
    Bernoulli-resampled losses (the identity on {0,1}) and the other not: RNM-FTNL and Wu &
    Wang (Laplace)."""
    from privdtol.algorithms import BlockAlgorithm, make_algorithm

    def law(name):
        cls = ALGORITHMS[name]
        if not (issubclass(cls, BlockAlgorithm) and cls.exact_law is not None):
            return None
        alg = make_algorithm(name, 1.0)
        return (cls.exact_law.rule(alg, 4), cls.exact_law.uniform_mix, cls.prefix_rule)

    laws = {n: law(n) for n in COMPETITORS}
    return [
        (a, b)
        for i, a in enumerate(COMPETITORS)
        for b in COMPETITORS[i + 1 :]
        if laws[a] is not None
        and laws[a] == laws[b]
        and ALGORITHMS[a].resampled != ALGORITHMS[b].resampled
    ]


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
    # the competitors that are the same law on {0,1} losses (Bernoulli resampling is the
    # identity there: rnm_ftnl and wu_wang): measured, not assumed
    same = {}
    for a, b in same_on_binary_losses():
        if {a, b} <= set(wide.columns):
            pair = wide[[a, b]].dropna()
            rel = (pair[a] - pair[b]).abs() / pair[a]
            same = {"n": len(pair), "max_rel_diff": float(rel.max()) if len(pair) else None}
            break
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


# ----------------------------------------------------------------------------- the report's prose


def identical_sentence(item: dict, tex) -> str:
    """The disclosure of the competitors that are one algorithm on {0,1} losses."""
    same = item.get("identical") or {}
    measured = (
        rf" (largest relative difference measured: {tex.num(same['max_rel_diff'])} over "
        rf"{same['n']} cells)"
        if same.get("n")
        else ""
    )
    return (
        r"On these Bernoulli losses RNM-FTNL and Wu \& Wang (Laplace) are the same algorithm: "
        r"Wu \& Wang's Bernoulli resampling is the identity on $\{0,1\}$ losses"
        + measured
        + r"; and Wu \& Wang (Gumbel), by the Gumbel-max form of the exponential mechanism, is "
        r"the softmax over the whole previous block with $\eta = \varepsilon/2$, that is "
        r"\texttt{rps\_full\_prefix} without the cap $\eta \le 1/8$."
    )


def competitor_counts(regimes: dict) -> tuple[int, int]:
    """(cells compared, cells where RPS has more regret than its best private competitor)
    over the competitor finding's regimes: page 1 and the findings section state these."""
    total = sum(int(v.get("n", 0)) for v in regimes.values())
    return total, total - sum(int(v.get("rps_best", 0)) for v in regimes.values())


def competitors_sentence(item: dict, tex) -> str | None:
    """The findings section: RPS over its best private competitor, per regime."""
    regimes = item.get("regimes") or {}
    if not regimes:
        return None
    total, worse = competitor_counts(regimes)
    best = total - worse
    worst = max(float(v["max"]) for v in regimes.values() if v.get("max") is not None)
    where = (
        f"in every one of the {total} cells compared"
        if best == 0
        else f"in {total - best} of the {total} cells compared"
    )
    per = ", ".join(
        rf"{tex.times3(v['median'])} in the {tex.escape(k)} regime "
        rf"({tex.regimes.get(k, '')}, {v['n']} cell{'' if v['n'] == 1 else 's'})"
        for k, v in sorted(regimes.items(), key=lambda kv: -int(kv[1].get("n", 0)))
        if v.get("median") is not None
    )
    return (
        f"RPS has more regret than the best private competitor {where} (distinct "
        r"standard-instance cells of the rate experiments at their largest horizon): median "
        f"ratio {per}; at worst {tex.times3(worst)}"
        + (r" (Table~\ref{tab:competitors}). " if item.get("table") else ". ")
        + identical_sentence(item, tex)
    )


def competitors_table(item: dict, tex) -> str | None:
    """The competitor table of the findings section: per regime and competitor (and the best
    of them per cell), the cells and the ratio rps / competitor."""
    rows = item.get("table") or []
    if not rows:
        return None
    body = [
        {
            "Regime": rf"{tex.escape(r['regime'])} ({tex.regimes.get(r['regime'], '')})",
            "Competitor": "best of them, per cell"
            if r["competitor"] == "best"
            else tex.unicode(tex.escape(tex.algorithm(r["competitor"]))),
            "Cells": str(r["n"]),
            "Median": tex.num(r["median"]),
            "Min": tex.num(r["min"]),
            "Max": tex.num(r["max"]),
            "RPS better": str(r["rps_better"]),
        }
        for r in rows
    ]
    tab = tex.table(pd.DataFrame(body), "@{}llrrrrr@{}")
    return (
        "\\begin{table}[H]\\centering\\small\n"
        r"\caption{RPS regret over each private competitor's (and over the best of them in "
        r"each cell), per regime, at the largest horizon of each distinct standard-instance cell "
        r"of the rate experiments; RPS better: cells with a ratio below 1.}"
        "\\label{tab:competitors}\n" + tab + "\\end{table}\n"
    )


def competitors_line(found: dict, checks: dict, tex) -> str | None:
    """Page 1: RPS over its best private competitor, per regime (every regime of the
    competitor table, in the order of the report's regimes)."""
    regimes = (found.get("competitors") or {}).get("regimes") or {}
    if not regimes:
        return None
    n, worse = competitor_counts(regimes)
    medians = ", ".join(
        rf"{tex.times(regimes[k]['median'])} in the {k} regime"
        for k in tex.regimes
        if k in regimes and regimes[k].get("median") is not None
    )
    return (
        rf"RPS has more regret than its best private competitor in {worse} of {n} cells "
        rf"compared (median ratio {medians})."
    )


#: the page-1 sentence of this module's finding
PAGE_ONE = (PageLine(50, "sec:findings", competitors_line),)
