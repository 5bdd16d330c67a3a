"""The findings on the rate's constants: ``constants`` (the fitted a, b of
``a log K/gap + b log K/eta + c`` over the rps cells of the grid, C4's fit, against Theorem 1's
800 and 16; the paper says its constant "is not optimized") and ``theta_band`` (min and max of
``Reg / (log K/min(gap, eps))`` over the grid: bounded on any finite grid, so not a verdict)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.claim_types import Finding
from privdtol.analysis.claims.c4_rate import form_columns
from privdtol.analysis.findings.common import final_cells, spread
from privdtol.analysis.records import fmt

#: Theorem 1's constants of the log K/gap and log K/eta terms
PAPER = (800.0, 16.0)

#: the findings this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "constants",
        "Fitted constants a, b of a log K/gap + b log K/eta + c against 800 and 16",
        ("grid",),
        f"{__name__}:constants",
    ),
    Finding(
        "theta_band",
        "Range of Reg / (log K/min(gap, eps)) over the grid (the Theta band)",
        ("grid",),
        f"{__name__}:theta_band",
    ),
)


def constants(tables: Mapping[str, pd.DataFrame]) -> dict:
    rows = final_cells(tables, ("grid",), "rps")
    if len(rows) < 4:
        return {"available": False, "text": "Fewer than four rps cells in the grid."}
    tab = form_columns(rows)
    fit = stats.form_fit(tab["x_gap"], tab["x_eta"], tab["mean"])
    return {
        "available": True,
        "a": fit["a"],
        "b": fit["b"],
        "c": fit["c"],
        "paper_a": PAPER[0],
        "paper_b": PAPER[1],
        "n": fit["n"],
        "text": f"Over {fit['n']} rps grid cells regret ~ {fmt(fit['a'])} log K/gap + "
        f"{fmt(fit['b'])} log K/eta + {fmt(fit['c'])}: the constants are "
        f"{fmt(PAPER[0] / fit['a'])} and {fmt(PAPER[1] / fit['b'])} times below Theorem 1's "
        "800 and 16 (which the paper does not optimize).",
    }


def theta_band(tables: Mapping[str, pd.DataFrame]) -> dict:
    rows = final_cells(tables, ("grid",), "rps")
    if rows.empty:
        return {"available": False, "text": "No rps cells in the grid."}
    lower = np.log(rows["K"].astype(float)) / np.minimum(rows["gap"], rows["epsilon"])
    band = spread(rows["mean"] / lower)
    return {
        "available": True,
        **band,
        "text": f"Reg / (log K/min(gap, eps)) ranges over [{fmt(band['min'])}, "
        f"{fmt(band['max'])}] over {band['n']} rps grid cells (bounded on any finite grid: "
        "a finding, not a verdict).",
    }
