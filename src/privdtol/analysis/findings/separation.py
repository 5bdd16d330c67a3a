"""The finding ``separation``: whether any algorithm's regret shows the extra factor of its
bound (Hu et al. 2021's log T for ``rnm_ftnl``, Wu & Wang 2026's log K for ``wu_wang`` and
``wu_wang_gumbel``) or RPS's either (Cesari & Colomboni's rate has neither), on the experiment
``separation`` (:mod:`privdtol.analysis.separation`).  Not a verdict: a measurement of the
regrets against the shapes of the bounds, which separates statements about algorithms from
statements about proofs."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.claim_types import Finding, PageLine
from privdtol.analysis.records import fmt
from privdtol.analysis.separation import (
    EXPERIMENT,
    GROWTH_ERROR,
    growth_in_K,
    growth_in_T,
    separation_table,
)

#: the finding this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "separation",
        "whether any algorithm's regret shows the extra log T or log K factor of its bound",
        (EXPERIMENT,),
        f"{__name__}:separation",
        order=80,
    ),
)


def _largest(df: pd.DataFrame) -> dict | None:
    if df.empty:
        return None
    row = df.loc[(df["growth"] / df["predicted"]).idxmax()]
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}


def separation(tables: Mapping[str, pd.DataFrame]) -> dict:
    """Per algorithm: the largest growth of its regret in T (against the log T a binding
    log T factor predicts) and of Reg/(log K/eps) in K (against a log K factor's), with the
    cell where it is largest and whether it shows; one sentence."""
    table = separation_table(tables)
    if table.empty:
        return {"available": False, "text": "No separation experiment."}
    in_t, in_k = growth_in_T(table), growth_in_K(table)
    per = {}
    for alg in sorted(table["algorithm"].unique()):
        t = in_t[in_t["algorithm"] == alg] if not in_t.empty else in_t
        k = in_k[in_k["algorithm"] == alg] if not in_k.empty else in_k
        per[str(alg)] = {
            "log_T": _largest(t),
            "log_K": _largest(k),
            "shows_log_T": bool(not t.empty and t["shows"].any()),
            "shows_log_K": bool(not k.empty and k["shows"].any()),
        }
    grid = {
        "K_max": int(table["K"].max()),
        "T_max": int(table["horizon"].max()),
        "epsilon_min": float(table["epsilon"].min()),
        "gap_min": float(table["gap"].min()),
    }
    shown = [
        (a, f)
        for a, v in per.items()
        for f, key in (("log T", "shows_log_T"), ("log K", "shows_log_K"))
        if v[key]
    ]
    if shown:
        parts = []
        for a, f in shown:
            row = per[a]["log_T" if f == "log T" else "log_K"]
            where = (
                f"K = {row['K']}, T = {row['T_max']}"
                if f == "log T"
                else f"K = {row['K_min']} to {row['K_max']}, T = {row['T']}"
            )
            parts.append(
                f"{a}'s regret shows a {f} factor (growth {fmt(row['growth'])} against "
                f"{fmt(row['predicted'])} predicted, at {where})"
            )
        text = "; ".join(parts)
    else:
        text = (
            f"No algorithm's regret shows the extra log T or log K factor of its bound up to "
            f"K = {grid['K_max']}, T = {grid['T_max']}, eps = {fmt(grid['epsilon_min'])}"
        )
    growths = []
    for a, v in per.items():
        parts = [
            f"{fmt(v[x]['growth'])} in {x[4:]} ({fmt(v[x]['predicted'])} predicted)"
            for x in ("log_T", "log_K")
            if v[x] is not None
        ]
        if parts:
            growths.append(f"{a} {' and '.join(parts)}")
    if growths:
        text += (
            " (largest growth: "
            + "; ".join(growths)
            + f"; relative error below {GROWTH_ERROR:.0e})"
        )
    return {
        "available": True,
        "text": text + ".",
        "algorithms": per,
        "grid": grid,
        "shown": [{"algorithm": a, "factor": f} for a, f in shown],
    }


# ----------------------------------------------------------------------------- the report's prose


def separation_line(found: dict, checks: dict, tex) -> str | None:
    """Page 1: whether any algorithm's regret shows the extra factor of its bound."""
    item = found.get("separation") or {}
    if not item.get("available"):
        return None
    grid = item.get("grid") or {}
    shown = item.get("shown") or []
    if not shown:
        return (
            r"No algorithm's regret shows the extra $\log T$ or $\log K$ factor of its bound "
            rf"(Hu et al., Wu \& Wang) up to $K = {tex.num(grid.get('K_max'))}$, "
            rf"$T = 2^{{{int(grid.get('T_max', 1)).bit_length()}}} - 1$, "
            rf"$\varepsilon = {tex.num(grid.get('epsilon_min'))}$: the separation from the "
            "prior bounds is one of proofs."
        )
    algs = item.get("algorithms") or {}

    def where(s: dict) -> str:
        if s["factor"] == "log T":
            row = algs.get(s["algorithm"], {}).get("log_T") or {}
            return rf"$\log T$, growth {tex.num(row.get('growth'))} at $K = {row.get('K')}$"
        row = algs.get(s["algorithm"], {}).get("log_K") or {}
        span = rf"$K = {row.get('K_min')}$ to {row.get('K_max')}"
        return rf"$\log K$, growth {tex.num(row.get('growth'))} from {span}"

    names = "; ".join(rf"{tex.texttt(s['algorithm'])} ({where(s)})" for s in shown)
    return rf"The regret shows its bound's extra factor for {names}."


#: the page-1 sentence of this module's finding
PAGE_ONE = (PageLine(60, "sec:separation", separation_line),)
