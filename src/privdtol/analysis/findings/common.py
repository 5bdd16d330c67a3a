"""What the findings share: a table's final rows, one per distinct cell, and the spread (n, min,
median, max) of a set of ratios."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.analysis.cells import dedupe_cells, final_rows, select, stack


def final_cells(tables, experiments, algorithm=None) -> pd.DataFrame:
    """The final row of each distinct cell of ``experiments`` (with ``algorithm``: its standard
    Bernoulli cells only)."""
    df = stack(tables, experiments)
    if df.empty:
        return df
    df = select(df, algorithm, "bernoulli", "standard") if algorithm else df
    return dedupe_cells(final_rows(df))


def spread(values) -> dict:
    """n, min, median and max of the finite ``values``."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return {"n": 0, "min": None, "median": None, "max": None}
    return {"n": int(v.size), "min": v.min(), "median": float(np.median(v)), "max": v.max()}
