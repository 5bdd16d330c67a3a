"""The slack budget of the proof of Theorem 1 (a finding, not a verdict): per rps cell, the
factor by which each step's bound exceeds its exact value (Cesari & Colomboni, Lemmas 4 and 5,
Sections 5.3-5.5), from the proof table (:mod:`privdtol.pipeline.proof`).

Theorem 1's bound is Lemma 4 applied to Lemma 5, and Lemma 5 is eq. (5) plus eq. (6); each of
these three :data:`HEADLINE` steps is a product of sub-steps (:data:`STEPS`):

- eq. (5) = groups (each H_l's bound over its exact sum, summed) x levels (the sum over l
  bounded by (64 log(K+1) + 36)/Delta_min) x constant (that by 200 log K/Delta_min);
- eq. (6) = restriction (sum_(m>=0) E[V_m] over the large-gap part: P <= Q and m = 0) x drift
  (4 log Z_0/eta over sum E[V_m]) x entropy (log K over log Z_0).

eq. (4)'s ratio (its bound over the exact E[P_(m,j)], worst and median over m and j) is the
per-m inequality the groups' late parts use.  :func:`proof_slack` returns the factors' spread
over the cells, by regime, and the sentence naming the loosest step with its factor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from privdtol.analysis.cells import regime
from privdtol.analysis.claim_types import Finding, PageLine
from privdtol.analysis.records import fmt, plain

#: the finding this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "proof_slack",
        "Slack of each step of the proof: bound / exact value, per rps cell",
        ("proof",),
        f"{__name__}:proof_slack",
        order=40,
    ),
)


class SlackStep(NamedTuple):
    key: str
    #: plain-text and mathtext (matplotlib) labels
    label: str
    tex: str
    #: the headline step it belongs to (None: a headline step itself)
    part_of: str | None
    #: bound column, exact column (factor = bound / exact), or one column to invert
    bound: str
    exact: str | None


STEPS = (
    SlackStep("lemma4", "Lemma 4", r"Lemma 4", None, "bound_lemma4", "lemma4_lhs"),
    SlackStep("eq5", "eq. (5)", "eq. (5)", None, "bound_eq5", "small_gap"),
    SlackStep("groups", "the groups H_l", r"groups $H_\ell$", "eq5", "groups_bound", "groups_sum"),
    SlackStep(
        "levels", "sum over l", r"sum over $\ell$", "eq5", "bound_eq5_groups", "groups_bound"
    ),
    SlackStep("constant", "200 log K", r"$200\log K$", "eq5", "bound_eq5", "bound_eq5_groups"),
    SlackStep("eq4_worst", "eq. (4), worst m", r"eq. (4), worst $m$", "eq5", "max_ratio_eq4", None),
    SlackStep(
        "eq4_median", "eq. (4), median m", r"eq. (4), median $m$", "eq5", "median_ratio_eq4", None
    ),
    SlackStep("eq6", "eq. (6)", "eq. (6)", None, "bound_eq6", "large_gap"),
    SlackStep("restriction", "restriction P to Q", r"$P \leq Q$", "eq6", "sum_V", "large_gap"),
    SlackStep("drift", "potential drift", r"drift", "eq6", "bound_drift", "sum_V"),
    SlackStep(
        "entropy", "entropy Z_0 to K", r"$\log Z_0 \leq \log K$", "eq6", "bound_eq6", "bound_drift"
    ),
    SlackStep("lemma5", "Lemma 5", r"Lemma 5", None, "bound_lemma5", "sum_F"),
    SlackStep("theorem1", "Theorem 1", r"Theorem 1", None, "bound_theorem1", "lemma4_lhs"),
)
#: the three inequalities whose composition is Theorem 1's bound (the loosest is named)
HEADLINE = ("lemma4", "eq5", "eq6")
STEP = {s.key: s for s in STEPS}


def slack_table(proof: pd.DataFrame, algorithm: str = "rps") -> pd.DataFrame:
    """One row per unique cell of ``algorithm``: its parameters, regime and one column per
    step of :data:`STEPS` (NaN where the step does not apply: no small- or large-gap action)."""
    df = proof[proof["algorithm"] == algorithm].drop_duplicates("cell_id").copy()
    if df.empty:
        return df
    lim = df["regret_limit"].astype(float)
    df["lemma4_lhs"] = np.where(np.isfinite(lim), lim, df["regret"].astype(float))
    df["regime"] = regime(df["gap"], df["epsilon"])
    applies = {"eq5": df["n_small"] > 0, "eq6": df["n_large"] > 0}
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in STEPS:
            num = df[s.bound].astype(float)
            val = 1 / num if s.exact is None else num / df[s.exact].astype(float)
            ok = np.isfinite(val) & (val > 0) & applies.get(s.part_of or s.key, True)
            df[s.key] = np.where(ok, val, np.nan)
    return df.reset_index(drop=True)


def _spread(v) -> dict:
    v = np.asarray(v, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return {"n": 0, "min": None, "median": None, "max": None}
    return {"n": int(v.size), "min": v.min(), "median": float(np.median(v)), "max": v.max()}


def _factor(x) -> str:
    """A slack factor for a sentence: 4 significant digits below 10 (1.004, not 1), else 3."""
    return fmt(x, 4 if x is not None and abs(x) < 10 else 3)


def proof_slack(tables: Mapping[str, pd.DataFrame]) -> dict:
    """The slack budget over the rps cells of the proof table (see the module docstring)."""
    proof = tables.get("proof")
    tab = slack_table(proof) if proof is not None and len(proof) else pd.DataFrame()
    if tab.empty:
        return {"available": False, "text": "No proof terms in this run."}
    steps = []
    for s in STEPS:
        by = {g: _spread(t[s.key]) for g, t in tab.groupby("regime", sort=True)}
        steps.append(
            {
                "key": s.key,
                "label": s.label,
                "part_of": s.part_of,
                **_spread(tab[s.key]),
                "by_regime": by,
            }
        )
    spread = {s["key"]: s for s in steps}
    head = [k for k in HEADLINE if spread[k]["n"]]
    worst = max(head, key=lambda k: spread[k]["median"])
    subs = [s for s in STEPS if s.part_of == worst and s.exact is not None and spread[s.key]["n"]]
    sub = max(subs, key=lambda s: spread[s.key]["median"]) if subs else None
    w = spread[worst]
    text = (
        f"The loosest step of the proof is {STEP[worst].label}: over the {w['n']} rps cells "
        f"where it applies its bound exceeds the exact value by a median factor of "
        f"{_factor(w['median'])} (from {_factor(w['min'])} to {_factor(w['max'])})"
        + (
            f", the largest of its factors being {sub.label} (median "
            f"{_factor(spread[sub.key]['median'])})"
            if sub is not None
            else ""
        )
        + "; "
        + ", ".join(
            f"{STEP[k].label} loses a median {_factor(spread[k]['median'])}"
            for k in head
            if k != worst
        )
        + f", and Theorem 1's bound is a median {_factor(spread['theorem1']['median'])} times the "
        f"exact regret."
    )
    return plain(
        {
            "available": True,
            "cells": len(tab),
            "steps": steps,
            "loosest": worst,
            "loosest_factor": w["median"],
            "loosest_substep": sub.key if sub else None,
            "text": text,
        }
    )


# ----------------------------------------------------------------------------- the report's prose


def proof_line(found: dict, checks: dict, tex) -> str | None:
    """Page 1: the loosest step of the proof and Theorem 1's overall factor."""
    item = found.get("proof_slack") or {}
    steps = {s["key"]: s for s in item.get("steps") or []}
    loosest = steps.get(item.get("loosest"))
    if not item.get("available") or loosest is None:
        return None
    overall = (
        rf"; Theorem~1's bound is a median {tex.times(steps['theorem1']['median'])} the exact "
        "regret"
        if "theorem1" in steps
        else ""
    )
    return (
        rf"The proof's loosest step is {loosest['label']}, a median factor "
        rf"{tex.num(loosest['median'])} above its exact value over {loosest['n']} RPS cells"
        rf"{overall}."
    )


#: the page-1 sentence of this module's finding
PAGE_ONE = (PageLine(30, "sec:proof", proof_line),)
