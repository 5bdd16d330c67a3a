"""Selecting cells of aggregated tables (one row per cell and checkpoint horizon, see
:mod:`privdtol.pipeline.aggregate`): the rows a check or a figure uses, the regime of a cell,
the columns that make a series, and the label a check record gives a cell.

"Regret" of a cell is its mean at the largest horizon available (:func:`final_rows`), unless a
check says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privdtol.analysis.records import plain

#: the columns that identify a cell (beyond cell_id, which may differ between experiments)
CELL_COLUMNS = ("algorithm", "env", "instance", "K", "gap", "epsilon", "mu_best", "rho", "kappa")
#: columns that distinguish otherwise equal cells (loss-model parameters, instance); not
#: mu_best, which moves with gap
SERIES_EXTRA = ("instance", "rho", "kappa")
#: the columns of a cell's label in a check record
LABEL_COLUMNS = ("env", "K", "gap", "epsilon")


def stack(
    tables: Mapping[str, pd.DataFrame], experiments: Sequence[str] | None = None
) -> pd.DataFrame:
    """One table from ``{experiment: table}``: the tables of ``experiments`` (default: all) that
    are present, in that order, with a fresh index."""
    names = list(tables) if experiments is None else [e for e in experiments if e in tables]
    if not names:
        return pd.DataFrame()
    return pd.concat([tables[e] for e in names], ignore_index=True)


def cell_keys(df: pd.DataFrame) -> list[str]:
    """The columns that identify a cell of ``df``: (experiment, cell_id) when present, otherwise
    the parameters of :data:`CELL_COLUMNS` present."""
    keys = ["experiment", "cell_id"] if {"experiment", "cell_id"} <= set(df.columns) else []
    return keys or [c for c in CELL_COLUMNS if c in df.columns]


def final_rows(df: pd.DataFrame, horizon: int | None = None) -> pd.DataFrame:
    """One row per cell: the row at ``horizon`` if given (cells without it are dropped),
    otherwise at the cell's largest horizon."""
    if df.empty:
        return df.copy()
    if horizon is not None:
        return df[df["horizon"] == horizon].reset_index(drop=True)
    idx = df.groupby(cell_keys(df), dropna=False)["horizon"].idxmax()
    return df.loc[np.sort(idx.to_numpy())].reset_index(drop=True)


def plateau_ratio(df: pd.DataFrame, octaves: int) -> pd.DataFrame:
    """:func:`final_rows` with a column ``plateau_ratio``: the cell's mean at its largest
    horizon T_max over its mean at the largest checkpoint <= (T_max + 1)/2^octaves (NaN when
    there is none or it is 0).  Near 1 when the regret has stopped growing by T_max, so the
    regret at T_max is its supremum over T, which the rate of Corollary 1 is about."""
    final = final_rows(df)
    if final.empty:
        return final.assign(plateau_ratio=pd.Series(dtype=float))
    keys = cell_keys(df)
    tmax = df.groupby(keys, dropna=False)["horizon"].transform("max")
    early = df[df["horizon"] <= (tmax + 1) / 2.0**octaves]
    ref = early.loc[early.groupby(keys, dropna=False)["horizon"].idxmax()]
    ref = ref[[*keys, "mean"]].rename(columns={"mean": "_ref"})
    out = final.merge(ref, on=keys, how="left")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = out["mean"] / out["_ref"].where(out["_ref"] > 0)
    return out.drop(columns="_ref").assign(plateau_ratio=ratio)


def select(
    df: pd.DataFrame,
    algorithm: str | Sequence[str] | None = None,
    env: str | Sequence[str] | None = None,
    instance: str | None = None,
) -> pd.DataFrame:
    """Rows of the given algorithm(s), loss model(s) and instance (None: any)."""
    mask = np.ones(len(df), dtype=bool)
    for col, val in (("algorithm", algorithm), ("env", env), ("instance", instance)):
        if val is not None and col in df.columns:
            vals = [val] if isinstance(val, str) else list(val)
            mask &= df[col].isin(vals).to_numpy()
    return df[mask].reset_index(drop=True)


def dedupe_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Drop repeated cells (the same parameters in several experiments), keeping the first."""
    cols = [c for c in (*CELL_COLUMNS, "horizon") if c in df.columns]
    return df.drop_duplicates(subset=cols, keep="first").reset_index(drop=True)


def regime(gap, epsilon):
    """'statistical' where eps > gap (log K/gap dominates the rate), 'privacy' where eps < gap,
    'balanced' where they are equal."""
    gap, epsilon = np.asarray(gap, dtype=float), np.asarray(epsilon, dtype=float)
    return np.where(epsilon > gap, "statistical", np.where(epsilon < gap, "privacy", "balanced"))


#: the regimes of :func:`regime`, typeset (LaTeX): the figures' panels, their captions, the
#: tables and the findings name them so
REGIME_TEX = {
    "statistical": r"$\varepsilon > \Delta_{\min}$",
    "balanced": r"$\varepsilon = \Delta_{\min}$",
    "privacy": r"$\varepsilon < \Delta_{\min}$",
}
#: the regimes defined in one phrase (captions)
REGIMES_DEFINED = "; ".join(f"{k} {v}" for k, v in REGIME_TEX.items())


def series_keys(df: pd.DataFrame, base: Sequence[str]) -> list[str]:
    """``base`` plus the instance/loss-model columns present in ``df`` (so e.g. correlated
    cells with different rho are never pooled into one series)."""
    return list(base) + [c for c in SERIES_EXTRA if c in df.columns and c not in base]


def cell_label(row, cols: Sequence[str] = LABEL_COLUMNS) -> dict:
    """A cell's parameters as a check record lists them (JSON-safe)."""
    return {c: plain(row[c]) for c in cols if c in row}
