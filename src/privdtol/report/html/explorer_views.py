"""The explorer's views beside regret against the horizon (:mod:`privdtol.report.html.explorer`):
the data (JSON-ready dicts) of

- the claims and their negative controls: every claim of the registry, marked a claim of the
  paper, a diagnostic of the pipeline (:attr:`Claim.diagnostic`, the registry's flag) or a
  claim of a cited work (:attr:`Claim.cited`), each
  followed by its controls (:attr:`Claim.controls`, records ``<ID>--<control>.json``) with their
  verdicts (a control is expected to FAIL); "not run" where this run wrote no record;
- the privacy audit (``results/agg/privacy.parquet``, :func:`privdtol.analysis.claims.
  c1_privacy.c1_cells`): the largest privacy loss found per algorithm, ε and audit against ε
  (Proposition 1) and the per-selection bound (2η; ε for Laplace noise);
- the proof's slack (``results/agg/proof.parquet``, :func:`privdtol.analysis.findings.slack.
  slack_table`): per rps cell, the factor bound / exact value of each step of Lemmas 4 and 5;
- the worst-case searches (``results/agg/searches.parquet``, :mod:`privdtol.pipeline.
  worst_case`): per search and objective, the ratio at every evaluation (the trace), the value
  found against the standard instance's, and the means of the instance found.

Each table is read by :func:`read_view` (the package's :func:`~privdtol.analysis.records.
load_agg`): a missing or unreadable file, or one lacking a column, is one
:class:`~privdtol.errors.InputError` line naming the file.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from privdtol.analysis.findings.slack import STEPS, slack_table
from privdtol.analysis.records import load_agg, load_check
from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, control_id
from privdtol.errors import InputError
from privdtol.report.html.mathml import text_to_html

#: the columns each view's table must have (what the view reads)
VIEW_COLUMNS = {
    "privacy": ("audit", "algorithm", "role", "epsilon", "K", "block", "loss", "loss_lower",
                "loss_upper", "bound_selection", "violation", "witness"),
    "proof": ("cell_id", "algorithm", "K", "gap", "epsilon", "regret", "regret_limit",
              "n_small", "n_large",
              # the steps' columns, but for the one slack_table computes (Lemma 4's left side)
              *dict.fromkeys(c for s in STEPS for c in (s.bound, s.exact) if c not in
                             (None, "lemma4_lhs"))),
    "searches": ("search_id", "algorithm", "K", "gap", "epsilon", "objective", "value",
                 "standard_value", "description", "evaluations", "unseen_value",
                 "unseen_margin", "means", "standard_means", "trace_ratio"),
}  # fmt: skip
#: what each view's table is, for the error line
VIEW_SOURCES = {
    "privacy": "the privacy audit's table (privdtol audit-grid)",
    "proof": "the proof table (privdtol proof-table)",
    "searches": "the searches' table (privdtol searches-table)",
}
#: the exact audits (their largest loss per algorithm and ε is a point of the privacy view)
EXACT_AUDITS = ("exact_selection", "whole_sequence")


def value(v):
    """A JSON value: NaN and None as null, numpy scalars as Python ones."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, np.generic):
        return value(v.item())
    return v


def floats(a) -> list:
    return [None if math.isnan(x) else x for x in np.asarray(a, dtype=float).tolist()]


def read_view(path: Path, name: str) -> pd.DataFrame:
    """The table of view ``name`` at ``path`` (``<dir>/<name>.parquet``, as
    :func:`~privdtol.analysis.records.load_agg` reads it), its columns checked."""
    path = Path(path)
    if path.name != f"{name}.parquet":
        raise InputError(name, f"{path} is not a {name}.parquet table", VIEW_SOURCES[name])
    tables = load_agg(path.parent, [name], field=name)  # unreadable: one line naming the file
    if name not in tables:
        raise InputError(name, f"{path} does not exist", VIEW_SOURCES[name])
    df = tables[name]
    missing = [c for c in VIEW_COLUMNS[name] if c not in df.columns]
    if missing:
        raise InputError(name, f"{path} lacks the columns {', '.join(missing)}", VIEW_SOURCES[name])
    return df


# ----------------------------------------------------------------------------- claims
def claims(checks: Path, links: dict) -> list[dict]:
    """Every claim of the registry, each followed by its negative controls: id, claim, control
    (None for a claim), whether it is a diagnostic (the registry's reason, "" for a claim of the
    paper), title (MathML), verdict (None: no record in ``checks``, not run), the verdict a
    control must have ("FAIL"), the experiments it reads and its record's link."""
    out = []
    for c in CLAIMS.values():
        title = CLAIMS_TEX[c.id].title if c.id in CLAIMS_TEX else c.title
        for cid, control in [(c.id, None)] + [(control_id(c.id, a), a) for a in c.controls]:
            path = Path(checks) / f"{cid}.json"
            # validated (a record without a verdict, or with one outside PASS/FAIL/INCONCLUSIVE,
            # is refused in one line naming the file), never read into the page as it is
            record = load_check(path, field="checks") if path.exists() else None
            out.append(
                {
                    "id": cid,
                    "claim": c.id,
                    "control": control,
                    "diagnostic": c.diagnostic,
                    # the cited work's bibliography key ("" for the paper's own)
                    "cited": c.cited,
                    "title": str(text_to_html(title)),
                    "verdict": None if record is None else record["verdict"],
                    "expected": "FAIL" if control else None,
                    "experiments": list(c.experiments),
                    "href": None if record is None else links["checks"] + f"{cid}.json",
                }
            )
    return out


# ----------------------------------------------------------------------------- privacy audit
def privacy_view(df: pd.DataFrame) -> dict:
    """Per algorithm (the audit's display order): its role, and per ε the largest loss of each
    exact audit, the statistical audit's Clopper-Pearson interval (where run), the
    per-selection bound and the cell's verdict (:func:`~privdtol.analysis.claims.c1_privacy.
    c1_cells`: PASS/FAIL for a private algorithm, caught/NOT caught for a control)."""
    from privdtol.analysis.claims.c1_privacy import c1_cells
    from privdtol.privacy.audit_grid import DISPLAY_ORDER

    summary = c1_cells(df)
    present = set(summary["algorithm"])
    order = [a for a in DISPLAY_ORDER if a in present] + sorted(present - set(DISPLAY_ORDER))
    out = []
    for alg in order:
        s = summary[summary["algorithm"] == alg].sort_values("epsilon")
        sub = df[df["algorithm"] == alg]
        eps = s["epsilon"].tolist()
        audits = {}
        for audit in EXACT_AUDITS:
            best = sub[sub["audit"] == audit].groupby("epsilon")["loss"].max()
            audits[audit] = floats(best.reindex(eps))
        out.append(
            {
                "algorithm": alg,
                "role": str(s["role"].iloc[0]),
                "epsilon": eps,
                **audits,
                "loss": floats(s["loss_exact"]),
                "bound_selection": floats(s["bound_selection"]),
                "stat_lower": floats(s["stat_lower"]),
                "stat_upper": floats(s["stat_upper"]),
                "verdict": [str(v) for v in s["verdict"]],
                "witness": [value(w) for w in s["witness"]],
            }
        )
    return {"algorithms": out}


# ----------------------------------------------------------------------------- proof slack
def proof_view(df: pd.DataFrame) -> dict | None:
    """The steps of the proof (key, label, the headline step it is part of) and, per rps cell,
    its parameters, regime and each step's factor bound / exact value (None where the step
    does not apply); None when the table has no rps cell."""
    tab = slack_table(df)
    if tab.empty:
        return None
    tab = tab.sort_values(["K", "gap", "epsilon", "cell_id"], kind="mergesort")
    return {
        "steps": [{"key": s.key, "label": s.label, "part_of": s.part_of} for s in STEPS],
        "cells": [
            {
                "id": str(r["cell_id"]),
                "K": int(r["K"]),
                "gap": float(r["gap"]),
                "epsilon": float(r["epsilon"]),
                "regime": str(r["regime"]),
                "factors": {s.key: value(float(r[s.key])) for s in STEPS},
            }
            for _, r in tab.iterrows()
        ],
    }


# ----------------------------------------------------------------------------- searches
def _numbers(text) -> list:
    return floats(np.array(str(text).split(), dtype=float)) if value(text) else []


def searches_view(df: pd.DataFrame) -> dict:
    """One record per search (algorithm, K, Δ_min, ε) with, per objective, its direction (+1:
    the largest is the most extreme, -1: the smallest), the ratio at every counted evaluation
    (the trace), the value found and the standard instance's, the best unseen random
    instance's, the description and means of the instance found, and the standard means."""
    from privdtol.engine.worst_case import OBJECTIVES

    out = []
    for sid, g in df.groupby("search_id", sort=False):
        first = g.iloc[0]
        objectives = {}
        for _, r in g.iterrows():
            objectives[str(r["objective"])] = {
                "sign": OBJECTIVES.get(r["objective"], (None, 1))[1],
                "trace": _numbers(r["trace_ratio"]),
                "value": value(float(r["value"])),
                "standard": value(float(r["standard_value"])),
                "unseen": value(float(r["unseen_value"])),
                "unseen_margin": value(float(r["unseen_margin"])),
                "description": str(r["description"]),
                "means": _numbers(r["means"]),
            }
        out.append(
            {
                "id": str(sid),
                "algorithm": str(first["algorithm"]),
                "K": int(first["K"]),
                "gap": float(first["gap"]),
                "epsilon": float(first["epsilon"]),
                "evaluations": int(first["evaluations"]),
                "standard_means": _numbers(first["standard_means"]),
                "objectives": objectives,
            }
        )
    out.sort(key=lambda s: (s["algorithm"], s["K"], s["gap"], s["epsilon"], s["id"]))
    return {"searches": out, "order": list(OBJECTIVES)}


#: each view's builder
VIEWS = {"privacy": privacy_view, "proof": proof_view, "searches": searches_view}


def views(paths: dict) -> dict:
    """``{name: data}`` of every view in :data:`VIEWS`: None where ``paths`` gives no table
    (the config does not produce it); every given table is read before any view is built."""
    unknown = sorted(set(paths) - set(VIEWS))
    if unknown:
        raise InputError("views", f"unknown views {', '.join(unknown)}", ", ".join(VIEWS))
    tables = {n: read_view(p, n) for n, p in paths.items() if p is not None}
    return {n: (VIEWS[n](tables[n]) if n in tables else None) for n in VIEWS}
