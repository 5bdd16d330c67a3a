"""Aggregation of per-cell run tables into the per-experiment tables the notebooks read.

One row per (cell, checkpoint horizon): the number of runs, the mean pseudo-regret estimate,
its standard error and normal 95% confidence interval (mean ± 1.96 se), the quantiles
q05 q25 q50 q75 q95 of the per-run estimates, the mean and standard error of the realized
regret, the bound shapes of :mod:`privdtol.core.bounds` (NaN for the non-private algorithms,
whose epsilon is undefined), and the *paired tail*: ``tail_mean`` and ``tail_se``, the mean and
standard error (ddof=1, over runs) of the per-run increment ``regret(T_max) − regret(T)`` from
this row's horizon ``T`` to the cell's largest horizon ``T_max`` (0 and 0 at ``T_max``; se NaN
for a single run).  Because the increment is taken run by run, its standard error accounts for
the strong correlation of the same runs at two horizons (claim C3,
:mod:`privdtol.analysis.claims.c3_horizon_free`, uses it).  The two tail columns come last.
The table is sorted deterministically, so the same cells give the same bytes however they were
batched or scheduled.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from privdtol.core import bounds
from privdtol.pipeline.io import read_table

#: normal quantile of the two-sided 95% interval
Z95 = 1.96
QUANTILES = {"q05": 0.05, "q25": 0.25, "q50": 0.50, "q75": 0.75, "q95": 0.95}
#: the bound shapes of :mod:`privdtol.core.bounds`, one column each, as functions of (K, gap, eps)
BOUNDS = {
    "bound_thm1": bounds.theorem1,
    "bound_corollary": bounds.corollary,
    "rate": bounds.rate,
    "lower_shape": bounds.lower_shape,
    "wu_wang_shape": bounds.wu_wang_shape,
}
#: a cell's parameters as its run table carries them: text, then K, then the float ones
TEXT_PARAMETERS = ["algorithm", "env", "instance"]
FLOAT_PARAMETERS = ["gap", "epsilon", "eta", "mu_best", "rho", "kappa"]
PARAMETERS = [*TEXT_PARAMETERS, "K", *FLOAT_PARAMETERS]
#: columns that identify a cell (constant within a cell file)
CELL_COLUMNS = ["cell_id", *PARAMETERS, "estimator"]
#: the aggregated-table contract (column order)
COLUMNS = [
    "experiment",
    "cell_id",
    *PARAMETERS,
    "horizon",
    "runs",
    "estimator",
    "mean",
    "se",
    "ci_low",
    "ci_high",
    *QUANTILES,
    "mean_realized",
    "se_realized",
    *BOUNDS,
    "tail_mean",
    "tail_se",
]
#: the row order: the parameters (but eta, which algorithm and epsilon fix), runs, cell, horizon
SORT_PARAMETERS = [*TEXT_PARAMETERS, "K", "gap", "epsilon", "rho", "kappa", "mu_best"]
SORT_COLUMNS = [*SORT_PARAMETERS, "runs", "cell_id", "horizon"]


def _mean_se(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard errors of a (runs, checkpoints) matrix (se NaN for 1 run)."""
    n = x.shape[0]
    mean = x.mean(axis=0)
    se = x.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.full(x.shape[1], np.nan)
    return mean, se


def summarize_cell(table: pd.DataFrame) -> pd.DataFrame:
    """Summary rows (one per checkpoint horizon) of one cell's run table."""
    table = table.sort_values(["run", "horizon"], kind="mergesort")
    if "error_bound" in table.columns:
        return summarize_exact_cell(table)
    horizons = np.unique(table["horizon"].to_numpy())
    runs = table["run"].nunique()
    if len(table) != runs * horizons.size:
        raise ValueError(
            f"cell {table['cell_id'].iloc[0]}: ragged run table "
            f"({len(table)} rows for {runs} runs x {horizons.size} horizons)"
        )
    reg = table["regret"].to_numpy(dtype=float).reshape(runs, horizons.size)
    real = table["regret_realized"].to_numpy(dtype=float).reshape(runs, horizons.size)
    mean, se = _mean_se(reg)
    mean_r, se_r = _mean_se(real)
    # paired tail: per run, regret at the cell's largest horizon minus regret at each horizon
    mean_t, se_t = _mean_se(reg[:, -1:] - reg)
    first = table.iloc[0]
    n = horizons.size
    qs = np.quantile(reg, list(QUANTILES.values()), axis=0)
    return pd.DataFrame(  # built in one go: column by column costs 5 ms a cell
        {
            **{c: [first[c]] * n for c in CELL_COLUMNS},
            "horizon": horizons.astype(np.int64),
            "runs": np.full(n, runs, dtype=np.int64),
            "mean": mean,
            "se": se,
            "ci_low": mean - Z95 * se,
            "ci_high": mean + Z95 * se,
            **dict(zip(QUANTILES, qs, strict=True)),
            "mean_realized": mean_r,
            "se_realized": se_r,
            "tail_mean": mean_t,
            "tail_se": se_t,
        }
    )


def summarize_exact_cell(table: pd.DataFrame) -> pd.DataFrame:
    """Summary rows of an exact cell (:func:`privdtol.engine.runner.exact_table`): ``runs`` 0,
    ``mean`` the exact expected regret, ``ci_low``/``ci_high`` = mean ∓ its numerical error
    bound and ``se`` = bound / 1.96 (so that every consumer of mean ± 1.96 se sees that
    interval); the paired tail is exact too (its bound the sum of the two bounds).  Quantiles
    and realized regret are undefined without runs (NaN)."""
    table = table.sort_values("horizon", kind="mergesort")
    reg = table["regret"].to_numpy(dtype=float)
    err = table["error_bound"].to_numpy(dtype=float)
    first = table.iloc[0]
    n = len(table)
    nan = np.full(n, np.nan)
    return pd.DataFrame(  # built in one go: column by column costs 5 ms a cell
        {
            **{c: [first[c]] * n for c in CELL_COLUMNS},
            "horizon": table["horizon"].to_numpy(dtype=np.int64),
            "runs": np.zeros(n, dtype=np.int64),
            "mean": reg,
            "se": err / Z95,
            "ci_low": reg - err,
            "ci_high": reg + err,
            **dict.fromkeys(QUANTILES, nan),
            "mean_realized": nan,
            "se_realized": nan,
            "tail_mean": reg[-1] - reg,
            "tail_se": (err[-1] + err) / Z95,
        }
    )


def add_bounds(df: pd.DataFrame) -> pd.DataFrame:
    """The :data:`BOUNDS` columns, from each row's K, gap and epsilon."""
    K = df["K"].to_numpy(dtype=float)
    gap = df["gap"].to_numpy(dtype=float)
    eps = df["epsilon"].to_numpy(dtype=float)
    for col, shape in BOUNDS.items():
        df[col] = shape(K, gap, eps)
    return df


def aggregate_tables(tables: Iterable[pd.DataFrame], experiment: str) -> pd.DataFrame:
    """The aggregated table of an experiment from its cells' run tables."""
    parts = [summarize_cell(t) for t in tables]
    if not parts:
        return pd.DataFrame({c: [] for c in COLUMNS})
    df = pd.concat(parts, ignore_index=True)
    df.insert(0, "experiment", experiment)
    df = add_bounds(df)
    df = df.sort_values(SORT_COLUMNS, kind="mergesort", na_position="first")
    df = df.drop_duplicates(["cell_id", "horizon"])
    df = df[COLUMNS].reset_index(drop=True)
    for col in ("K", "horizon", "runs"):
        df[col] = df[col].astype(np.int64)
    for col in FLOAT_PARAMETERS:
        df[col] = df[col].astype(float)
    for col in ("experiment", "cell_id", *TEXT_PARAMETERS, "estimator"):
        df[col] = df[col].astype(str)
    return df


def aggregate_files(paths: Iterable[str | Path], experiment: str) -> pd.DataFrame:
    """Aggregate cell files (read one at a time: memory stays O(one cell))."""
    return aggregate_tables((read_table(p) for p in sorted(map(str, paths))), experiment)
