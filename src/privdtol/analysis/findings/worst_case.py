"""The finding ``worst_case``: what the worst-instance searches found (the table
``results/agg/searches.parquet``, :mod:`privdtol.pipeline.worst_case`), against the standard
instance each search starts from.  Not a verdict: a search finds the largest value it
evaluated, a lower bound on the supremum over instances (Theorem 1 and Lemma 5 hold for every
i.i.d. loss process, Section 4 of Cesari & Colomboni); claim C2 is checked on the instances it
found."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.claim_types import Finding
from privdtol.analysis.records import fmt, plain
from privdtol.core import bounds

#: the finding this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "worst_case",
        "The worst instances a search found, against the standard instance",
        ("searches",),
        f"{__name__}:worst_case",
    ),
)

#: the objectives' words in the sentence
WORDS = {
    "theorem1": "of Theorem 1's bound",
    "lemma5": "of Lemma 5's bound (sum_m F_m over it)",
    "rate": "times the rate log K/gap + log K/eps",
}


def _extreme(df: pd.DataFrame, objective: str, largest: bool = True) -> dict | None:
    rows = df[df["objective"] == objective]
    if rows.empty:
        return None
    i = rows["value"].idxmax() if largest else rows["value"].idxmin()
    r = rows.loc[i]
    std = rows["standard_value"].max() if largest else rows["standard_value"].min()
    return {
        "searches": len(rows),
        "value": r["value"],
        "standard_value": r["standard_value"],
        "standard_extreme": std,
        "K": r["K"],
        "gap": r["gap"],
        "epsilon": r["epsilon"],
        "means": r["means"],
        "evaluations": int(rows["evaluations"].max()),
        "gain_max": float(
            (rows["value"] / rows["standard_value"]).max()
            if largest
            else (rows["standard_value"] / rows["value"]).max()
        ),
    }


def rate_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The searches' largest Reg_T / (log K/gap + log K/eps): the ``rate`` searches and the
    ``theorem1`` ones (for fixed K, gap and eps both maximise Reg_T, so the instance is the
    same; their value is rescaled to the rate)."""
    rows = df[df["objective"].isin(["rate", "theorem1"])].copy()
    rate = bounds.rate(rows["K"], rows["gap"], rows["epsilon"])
    standard_regret = rows["standard_value"] * rows["bound"]
    rows["value"], rows["standard_value"] = rows["regret"] / rate, standard_regret / rate
    return rows.assign(objective="rate")


def worst_case(tables: Mapping[str, pd.DataFrame]) -> dict:
    """Per objective, the most extreme value the searches found and the standard instance's
    value in the same search (and the extreme over the standard instances), with a sentence."""
    df = tables.get("searches")
    if df is None or df.empty:
        return {"available": False, "text": "No worst-instance search in this run."}
    out = {"available": True, "searches": len(df)}
    for obj in ("theorem1", "lemma5"):
        out[obj] = _extreme(df, obj)
    out["rate"] = _extreme(rate_rows(df), "rate")
    out["rate_min"] = _extreme(df, "rate_min", largest=False)
    parts = []
    for obj in ("theorem1", "lemma5"):
        e = out[obj]
        if e is not None:
            parts.append(
                f"the worst instance found reaches {fmt(e['value'])} {WORDS[obj]} (the standard "
                f"instance of that search: {fmt(e['standard_value'])}; K={fmt(e['K'])}, "
                f"gap={fmt(e['gap'])}, eps={fmt(e['epsilon'])}, {e['searches']} searches of up "
                f"to {e['evaluations']} exact evaluations)"
            )
    hi, lo = out["rate"], out["rate_min"]
    if hi is not None and lo is not None:
        parts.append(
            f"Reg / (log K/gap + log K/eps) ranges from {fmt(lo['value'])} to "
            f"{fmt(hi['value'])} over the instances found (the standard instances: "
            f"{fmt(lo['standard_extreme'])} to {fmt(hi['standard_extreme'])})"
        )
    text = "; ".join(parts)
    out["text"] = (
        (
            text[0].upper() + text[1:] + ". A search finds the largest value it evaluated, "
            "not a supremum."
        )
        if text
        else "No search result to report."
    )
    return plain(out)
