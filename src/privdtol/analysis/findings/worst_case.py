"""The finding ``worst_case``: what the worst-instance searches found (the table
``results/agg/searches.parquet``, one row per search and objective: :mod:`privdtol.pipeline.
worst_case`; the search: :mod:`privdtol.engine.worst_case`).  Theorem 1 and Lemma 5 hold for
every i.i.d. loss process with a unique best action (Section 4 of Cesari & Colomboni) and
Corollary 1's Theta is a statement about every instance of a class; each search reports the most
extreme instance it evaluated for Reg_T over Theorem 1's bound (eq. (1)) and for the smallest
and largest Reg_T over the lower bound LB_T, against the standard instance it evaluates first.
Not a verdict: a value found bounds the extreme over instances, it is not the extreme.

:func:`table` is the notebook's table ``worst`` (the same records, so the figure, the table and
the sentence count the same searches)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.algorithms import ALGORITHMS
from privdtol.analysis.claim_types import Finding, PageLine
from privdtol.analysis.records import fmt, plain
from privdtol.engine.worst_case.evaluate import OBJECTIVES, gain

#: the finding this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "worst_case",
        "The worst instances a search found, against the standard instance",
        ("searches",),
        f"{__name__}:worst_case",
        order=50,
    ),
)
#: the columns that name one search
SEARCH = ["algorithm", "K", "gap", "epsilon"]
#: what the text says where (a row of the searches table)
WHERE = "{algorithm}, K={K}, gap={gap}, eps={epsilon}"


def searches_of(df: pd.DataFrame) -> pd.DataFrame:
    """One row per search (its first objective's row: the columns of the search)."""
    return df.drop_duplicates("search_id")


def table(df: pd.DataFrame) -> pd.DataFrame:
    """The table ``worst``: per search and objective the value found, the standard instance's,
    their ratio, the instance found, the search's exact evaluations and the unseen margin."""
    return pd.DataFrame(
        {
            **{c: df[c] for c in [*SEARCH, "objective"]},
            "found": df["value"],
            "standard": df["standard_value"],
            "found_over_standard": df["value"] / df["standard_value"],
            "instance": df["description"],
            "evaluations": df["evaluations"],
            "unseen_margin": df["unseen_margin"],
        }
    ).reset_index(drop=True)


def _where(r) -> str:
    return WHERE.format(
        algorithm=r["algorithm"], K=int(r["K"]), gap=fmt(r["gap"]), epsilon=fmt(r["epsilon"])
    )


def _tolerance(rows: pd.DataFrame) -> dict:
    return {"min": rows["tolerance"].min(), "max": rows["tolerance"].max()}


def _range(r: dict, digits: int = 3) -> str:
    lo, hi = fmt(r["min"], digits), fmt(r["max"], digits)
    return lo if lo == hi else f"{lo} to {hi}"


def _every_gap_minimal(means: str, gap: float) -> bool:
    mu = np.array(means.split(), dtype=float)
    return bool(np.allclose(mu[1:] - mu[0], gap, rtol=1e-9, atol=0))


def beaten_per_objective(df: pd.DataFrame) -> dict:
    """Per objective (in :data:`OBJECTIVES` order) the searches and how many of them found an
    instance more extreme than their standard instance by more than their tolerance (the
    ``found_over_standard`` column of :func:`table`, read in the objective's direction), and
    whether every instance found for it has every gap at Delta_min."""
    out = {}
    for objective in [o for o in OBJECTIVES if o in set(df["objective"])]:
        rows = df[df["objective"] == objective]
        gains = gain(rows["value"], rows["standard_value"], objective)
        out[objective] = {
            "searches": len(rows),
            "beaten": int((gains > rows["tolerance"]).sum()),
            "every_gap_minimal": all(map(_every_gap_minimal, rows["means"], rows["gap"])),
        }
    return out


def theorem1(df: pd.DataFrame) -> dict | None:
    """The largest Reg_T / Theorem 1's bound found, where, and the searches whose instance beats
    their standard instance by more than their tolerance (the largest gain and where)."""
    rows = df[df["objective"] == "theorem1"]
    if rows.empty:
        return None
    top = rows.loc[rows["value"].idxmax()]
    gains = gain(rows["value"], rows["standard_value"], "theorem1")
    most = rows.loc[gains.idxmax()]
    return {
        "value": top["value"],
        "where": _where(top),
        "description": top["description"],
        "standard_value": top["standard_value"],
        "beaten": int((gains > rows["tolerance"]).sum()),
        "gain_max": float(gains.max()),
        "gain_where": _where(most),
        "gain_description": most["description"],
        "every_gap_minimal": all(map(_every_gap_minimal, rows["means"], rows["gap"])),
        "tolerance": _tolerance(rows),
    }


def _rank(algorithm: str) -> tuple:
    names = list(ALGORITHMS)
    return (names.index(algorithm) if algorithm in names else len(names), algorithm)


def band(df: pd.DataFrame) -> dict:
    """Per algorithm the smallest ``lower_min`` and largest ``lower_max`` found, and the range
    of its standard instances' Reg_T / LB_T."""
    out = {}
    rows = df[df["objective"].isin(["lower_min", "lower_max"])]
    for algorithm in sorted(rows["algorithm"].unique(), key=_rank):
        g = rows[rows["algorithm"] == algorithm]
        lo, hi = g[g["objective"] == "lower_min"], g[g["objective"] == "lower_max"]
        out[str(algorithm)] = {
            "min": lo["value"].min() if len(lo) else None,
            "max": hi["value"].max() if len(hi) else None,
            "standard_min": g["standard_value"].min(),
            "standard_max": g["standard_value"].max(),
        }
    return out


def unseen(df: pd.DataFrame) -> dict:
    """How many unseen instances each search drew and the (search, objective) pairs whose best
    unseen instance beat the search's best by more than its tolerance."""
    per = searches_of(df)["unseen"]
    beaten = df[df["unseen_beaten"].astype(bool)]
    return {
        "min": int(per.min()),
        "max": int(per.max()),
        "beaten": [
            {"search": _where(r), "objective": r["objective"], "margin": r["unseen_margin"]}
            for _, r in beaten.iterrows()
        ],
        "tolerance": _tolerance(df),
    }


def families_searched(df: pd.DataFrame) -> list[str]:
    """The families the searches evaluated (the ``families`` column: ``name:count`` pairs)."""
    if "families" not in df:
        return []
    names = {pair.split(":")[0] for cell in df["families"] for pair in str(cell).split()}
    return sorted(names)


def _theorem1_sentences(t1: dict, total: int, families: list[str]) -> list[str]:
    out = [
        f"found Reg_T at most {fmt(t1['value'])} of Theorem 1's bound "
        f"({t1['where']}: {t1['description']})."
    ]
    tol, most = _range(t1["tolerance"]), fmt(t1["gain_max"])
    if t1["beaten"]:
        out.append(
            f"{t1['beaten']} of them beat their standard instance on it by more than the "
            f"tolerance {tol} (relative), at most by {most} "
            f"({t1['gain_where']}: {t1['gain_description']})."
        )
        return out
    every = (
        ", and every instance found on this objective has every gap at Delta_min"
        * t1["every_gap_minimal"]
    )
    out.append(
        f"None beat its standard instance on it by more than the tolerance {tol} (relative; "
        f"at most by {most}): on this ratio the standard instance was, to that tolerance, the "
        f"worst of the "
        f"{total} instances evaluated across the families "
        f"{', '.join(families) if families else 'searched'}{every}."
    )
    return out


#: each objective as the sentences name it (the table ``worst`` names it by its key)
OBJECTIVE_WORDS = {
    "theorem1": "Reg_T over Theorem 1's bound",
    "lower_max": "the largest Reg_T / LB_T",
    "lower_min": "the smallest Reg_T / LB_T",
}


def _lower_sentence(beaten: dict) -> str | None:
    """How many searches beat their standard instance on each lower-bound objective."""
    parts = [
        f"{b['beaten']} of {b['searches']} on {OBJECTIVE_WORDS.get(o, o)} ({o})"
        for o, b in beaten.items()
        if o != "theorem1"
    ]
    if not parts:
        return None
    return (
        f"Searches that beat their standard instance by more than the tolerance: "
        f"{'; '.join(parts)}."
    )


def _band_sentence(band: dict) -> str:
    per = "; ".join(
        f"{a} {fmt(b['min'])} to {fmt(b['max'])} (standard instance"
        f"{'s' if b['standard_min'] != b['standard_max'] else ''} "
        f"{_range({'min': b['standard_min'], 'max': b['standard_max']})})"
        for a, b in band.items()
    )
    return f"Reg_T / LB_T over the instances found: {per}."


def _unseen_sentence(un: dict) -> str:
    tol = _range(un["tolerance"])
    if un["max"] == 0:
        return "No unseen instance was drawn."
    if not un["beaten"]:
        return (
            f"None of the {_range(un)} unseen random instances per search beat the search's "
            f"best by more than the tolerance {tol}."
        )
    cases = "; ".join(
        f"{b['objective']} of {b['search']}, by {fmt(b['margin'])}" for b in un["beaten"]
    )
    return (
        f"Unseen random instances ({_range(un)} per search) beat the search's best by more "
        f"than the tolerance {tol} for {len(un['beaten'])} objective(s) of a search: {cases}."
    )


def _sentences(out: dict) -> list[str]:
    n, t1 = out["searches"], out["theorem1"]
    head = f"{n} worst-instance search{'es' * (n != 1)} ({_range(out['evaluations'])} exact "
    head += "evaluations each)"
    if t1 is None:
        parts = [f"{head} for {', '.join(out['objectives'])}."]
    else:
        total = out["evaluations"]["total"]
        first, *rest = _theorem1_sentences(t1, total, out["families_searched"])
        parts = [f"{head} {first}", *rest]
    lower = _lower_sentence(out["beaten"])
    if lower:
        parts.append(lower)
    if out["band"]:
        parts.append(_band_sentence(out["band"]))
    parts.append(_unseen_sentence(out["unseen"]))
    parts.append("These are the most extreme values found, not the extremes over instances.")
    return parts


def worst_case(tables: Mapping[str, pd.DataFrame]) -> dict:
    """The searches and objectives counted, their evaluations, the families of the instances
    found, the Theorem 1 ratio found against the standard instances, the Reg_T / LB_T band per
    algorithm and the unseen check, with a few sentences (``text``) and the first alone
    (``summary``, for the report's summary)."""
    df = tables.get("searches")
    if df is None or df.empty:
        return {"available": False, "text": "No worst-instance search in this run."}
    runs = searches_of(df)
    out = {
        "available": True,
        "searches": len(runs),
        "objectives": sorted(df["objective"].unique()),
        "evaluations": {
            "min": int(runs["evaluations"].min()),
            "max": int(runs["evaluations"].max()),
            "total": int(runs["evaluations"].sum()),
        },
        "families_found": sorted({f.split("(")[0] for f in df["family"]}),
        "families_searched": families_searched(df),
        "theorem1": theorem1(df),
        "beaten": beaten_per_objective(df),
        "band": band(df),
        "unseen": unseen(df),
    }
    parts = _sentences(out)
    out["summary"], out["text"] = parts[0], " ".join(parts)
    return plain(out)


# ----------------------------------------------------------------------------- the report's prose

#: each objective of the worst-instance searches as page 1 names it (Table ``worst``: its key)
OBJECTIVE_TEX = {
    "theorem1": r"$\mathrm{Reg}_T$ over Theorem~1's bound",
    "lower_max": r"the largest $\mathrm{Reg}_T/\mathrm{LB}_T$",
    "lower_min": r"the smallest $\mathrm{Reg}_T/\mathrm{LB}_T$",
}


def _objective_rank(objective: str) -> tuple:
    names = list(OBJECTIVE_TEX)
    return (names.index(objective) if objective in names else len(names), objective)


def worst_case_line(found: dict, checks: dict, tex) -> str | None:
    """Page 1: per objective, how many searches beat the standard instance (the finding's
    ``beaten``, counted on the rows of Table ``worst``), and the largest Reg_T over Theorem 1's
    bound."""
    item = found.get("worst_case") or {}
    t1 = item.get("theorem1") or {}
    if not item.get("available") or not t1:
        return None
    evals = item.get("evaluations") or {}
    beaten = item.get("beaten") or {"theorem1": {"beaten": t1["beaten"]}}
    counts = [
        rf"{b['beaten']} on {OBJECTIVE_TEX.get(o, tex.texttt(o))}"
        + (rf" (largest found: {tex.num(t1['value'])} of the bound)" if o == "theorem1" else "")
        for o, b in sorted(beaten.items(), key=lambda ob: _objective_rank(ob[0]))
    ]
    listed = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " and " + counts[-1]
    return (
        rf"Of {item['searches']} worst-instance searches ({evals.get('total', '?')} exact "
        rf"evaluations), the number that found an instance beyond the standard one (by more "
        rf"than the tolerance): {listed}."
    )


#: the page-1 sentence of this module's finding
PAGE_ONE = (PageLine(40, "sec:worst", worst_case_line),)
