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
        order=10,
        label=r"Constants of Theorem 1",
        sentence=f"{__name__}:constants_sentence",
    ),
    Finding(
        "theta_band",
        "Range of Reg / (log K/min(gap, eps)) over the grid (the Theta band)",
        ("grid",),
        f"{__name__}:theta_band",
        order=11,
        label=r"The $\Theta$ band",
        sentence=f"{__name__}:theta_sentence",
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


# ----------------------------------------------------------------------------- the report's prose


def constants_sentence(item: dict, tex) -> str | None:
    """The fitted constants against Theorem 1's (the findings section)."""
    keys = ("a", "b", "c", "paper_a", "paper_b", "n")
    if not item.get("available") or any(item.get(k) is None for k in keys):
        return None
    a, b, c = (tex.num(item[k]) for k in "abc")
    return (
        rf"Over {item['n']} RPS grid cells the regret is fitted by $a \log K/\Delta_{{\min}} + "
        rf"b \log K/\eta + c$ with $a = {a}$, $b = {b}$, $c = {c}$: Theorem 1's constants "
        rf"{tex.num(item['paper_a'])} and {tex.num(item['paper_b'])} are "
        rf"{tex.times3(item['paper_a'] / item['a'])} and "
        rf"{tex.times3(item['paper_b'] / item['b'])} larger (the paper does not optimize them)."
    )


def theta_sentence(item: dict, tex) -> str | None:
    """The Theta band over the grid (the findings section)."""
    if not item.get("available") or item.get("min") is None or item.get("max") is None:
        return None
    return (
        rf"Over {item['n']} RPS grid cells the regret is between {tex.times3(item['min'])} and "
        rf"{tex.times3(item['max'])} the lower-bound rate $\log K/\min(\Delta_{{\min}}, "
        r"\varepsilon)$ (median " + tex.times3(item["median"]) + r"): a $\Theta$ band on this grid."
    )
