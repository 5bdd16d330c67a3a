"""The finding ``dependent_rate``: the rate's exponents p and q of rps on the dependent loss
models (Section 1's remark claims Theorem 1's upper bound only:
:mod:`~privdtol.analysis.claims.c5_dependent`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis.cells import dedupe_cells, final_rows, select, stack
from privdtol.analysis.claim_types import Finding
from privdtol.analysis.records import fmt

#: the findings this module computes (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (
    Finding(
        "dependent_rate",
        "The rate's exponents on dependent losses (not a claim of the paper)",
        ("dependent",),
        f"{__name__}:dependent_rate",
        order=30,
    ),
)


def dependent_rate(tables: Mapping[str, pd.DataFrame]) -> dict:
    """The exponents p (statistical regime: each model's largest eps) and q (privacy regime:
    cells with eta = eps/2 at each model's largest gap) of rps on the dependent loss models,
    one series per rho or kappa (Section 1's remark claims the upper bound only)."""
    from privdtol.analysis.claims.c4a_exponents import EXPONENTS, exponent_series

    df = stack(tables, ("dependent",))
    if df.empty:
        return {"available": False, "text": "No dependent experiment."}
    rows = dedupe_cells(final_rows(select(df, "rps")))
    rows = rows[~rows["env"].isin(["bernoulli", "blocked"])]  # blocked: C5's control
    parts, series = [], []
    for which in ("p", "q"):
        sub = (
            rows[rows["epsilon"] == rows.groupby("env")["epsilon"].transform("max")]
            if which == "p"
            else rows[
                (rows["epsilon"] / 2 <= 1 / 8)
                & (rows["gap"] == rows.groupby("env")["gap"].transform("max"))
            ]
        )
        keys = [*EXPONENTS[which][2], "env"]
        for sr in exponent_series(sub, which, 0.95, keys) if len(sub) else []:
            if sr["n"] >= 3 and np.isfinite(sr["estimate"]):
                par = f"rho={fmt(sr['rho'])}" if sr.get("rho") is not None else ""
                par = par or (f"kappa={fmt(sr['kappa'])}" if sr.get("kappa") is not None else "")
                series.append(
                    {k: sr[k] for k in ("exponent", "n", "estimate", "ci_low", "ci_high")}
                )
                series[-1].update(env=sr.get("env"), parameter=par)
                parts.append(
                    f"{which} = {fmt(sr['estimate'])} [{fmt(sr['ci_low'])}, {fmt(sr['ci_high'])}] "
                    f"({sr.get('env')}, {par}, {sr['n']} cells)"
                )
    if not parts:
        return {"available": False, "text": "No series of three dependent cells."}
    return {
        "available": True,
        "series": series,
        "text": "Exponents of rps on dependent losses (95% intervals): " + "; ".join(parts) + ".",
    }
