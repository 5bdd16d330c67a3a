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
from privdtol.errors import InputError
from privdtol.pipeline.failures import FAILURE_ATTR, FAILURES_ATTR, failure_of
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
    """The aggregated table of an experiment from its cells' run tables; a cell whose plugin
    failed (no rows, :mod:`privdtol.pipeline.failures`) is left out, its id and reason in the
    table's metadata (``FAILURES_ATTR``)."""
    parts, failed = [], {}
    for t in tables:
        if failure_of(t) is not None:
            failed[str(t.attrs.get("cell_id", len(failed)))] = failure_of(t)
        else:
            parts.append(summarize_cell(t))
    if not parts:
        empty = pd.DataFrame({c: [] for c in COLUMNS})
        if failed:
            empty.attrs[FAILURES_ATTR] = failed
        return empty
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
    if failed:
        df.attrs[FAILURES_ATTR] = failed
    return df


def aggregate_files(paths: Iterable[str | Path], experiment: str) -> pd.DataFrame:
    """Aggregate cell files, each validated by :func:`read_cell` (read one at a time: memory
    stays O(one cell)); a file given twice is refused."""
    paths = sorted(map(str, paths))
    twice = sorted({p for p in paths if paths.count(p) > 1})
    if twice:
        raise InputError("cells", f"{twice[0]}: given twice", "each cell file once")
    return aggregate_tables((read_cell(p) for p in paths), experiment)


# ----------------------------------------------------------------------------- the table reader
#: aggregated-table columns by kind
INT_COLUMNS = ("K", "horizon", "runs")
TEXT_COLUMNS = ("experiment", "cell_id", *TEXT_PARAMETERS, "estimator")
#: columns that must be finite on every row (the others may be NaN: se of one run, quantiles
#: and realized regret of an exact cell, epsilon of a non-private algorithm ...)
FINITE_COLUMNS = ("K", "gap", "horizon", "runs", "mean", "tail_mean")


def check_agg_table(df: pd.DataFrame, path, experiment: str, field: str = "agg-dir") -> None:
    """An experiment's aggregated table against the contract of :data:`COLUMNS`: every
    column with its type, the file's experiment on every row, one row per (cell, horizon),
    finite values where they must be (:data:`FINITE_COLUMNS`; no infinities anywhere), runs
    >= 0 and regrets >= 0.  One InputError line naming the file and what is wrong."""

    def refuse(problem, allowed=None):
        raise InputError(field, f"{path}: {problem}", allowed)

    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        refuse(f"lacks the columns {', '.join(missing[:5])}", "an aggregated table")
    for col in COLUMNS:
        dtype = df[col].dtype
        if col in TEXT_COLUMNS:
            ok = pd.api.types.is_string_dtype(dtype)
        elif col in INT_COLUMNS:
            ok = pd.api.types.is_integer_dtype(dtype)
        else:
            ok = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        if not ok:
            refuse(f"column {col!r} has type {dtype}")
    if len(df) and (df["experiment"] != experiment).any():
        refuse(f"rows of experiment {df['experiment'][df['experiment'] != experiment].iloc[0]!r}")
    for col in (c for c in COLUMNS if c not in TEXT_COLUMNS):
        x = df[col].to_numpy(dtype=float)
        if np.isinf(x).any() or (col in FINITE_COLUMNS and np.isnan(x).any()):
            bad = x[~np.isfinite(x)][0]
            refuse(f"column {col!r} holds {float(bad)!r}", "finite numbers")
    if (df["runs"] < 0).any() or (df["horizon"] < 1).any() or (df["mean"] < -1e-9).any():
        refuse("negative runs or regret, or a horizon below 1")
    if df.duplicated(["cell_id", "horizon"]).any():
        refuse("a (cell_id, horizon) pair on two rows", "one row per cell and horizon")


# ----------------------------------------------------------------------------- the cell reader
#: the columns of a cell file (:func:`privdtol.cli.batch.cell_table`) and their kinds
CELL_FILE_COLUMNS = {
    "cell_id": "text",
    **dict.fromkeys(TEXT_PARAMETERS, "text"),
    "K": "int",
    **dict.fromkeys(FLOAT_PARAMETERS, "float"),
    "horizon": "int",
    "run": "int",
    "regret": "float",
    "regret_realized": "float",
    "estimator": "text",
}
#: the cell's parameters its file's columns repeat on every row
_PROMISED = {"algorithm": "algorithm", "env": "env", "instance": "instance", "K": "K"}


def _cell_problem(path, problem: str, allowed: str | None = None) -> InputError:
    return InputError("cells", f"{path}: {problem}", allowed)


def read_cell(path: str | Path, cell=None, code: str | None = None) -> pd.DataFrame:
    """A cell file (``results/sim/<experiment>/<cell_id>.parquet``), validated -- the one
    reader of cell files (``privdtol aggregate``; ``simulate-batch`` trusts a file only if this
    accepts it): the cell's parameters in its metadata (:data:`~privdtol.pipeline.plan.CELL_ATTR`,
    and equal to ``cell``'s if given), whose id is the file's name and every row's ``cell_id``
    (another cell's bytes are refused); the columns of :data:`CELL_FILE_COLUMNS` with their
    types; the parameters the cell promises on every row; exactly one row per run (``runs``, or
    one exact row set) and checkpoint horizon of the cell's T; regret finite, in [0, T] (beyond
    the exact error bound), realized regret finite in [-T, T] (or NaN, exact).  A defect is one
    InputError line naming the file and what is wrong.  With ``code``, the file must also
    record that digest of the code that computed it (:data:`~privdtol.pipeline.plan.CODE_ATTR`):
    ``simulate-batch`` recomputes a cell whose code changed."""
    from privdtol.pipeline.plan import CELL_ATTR, CODE_ATTR, Cell
    from privdtol.pipeline.worst_case import SEARCH_ATTR

    path = Path(path)
    df = read_table(path, "cells")
    meta, df.attrs = df.attrs, {}  # (pandas deep-copies attrs on every operation)
    if cell is None and SEARCH_ATTR in meta:
        return _read_search_table(path, df, meta[SEARCH_ATTR])
    params = meta.get(CELL_ATTR)
    try:
        promised = Cell.from_params(params)
    except (TypeError, ValueError):
        raise _cell_problem(
            path,
            "carries no cell parameters (written before they were recorded, or not by "
            "simulate-batch)",
            "cell files of simulate-batch: delete it and rerun snakemake to recompute it",
        ) from None
    if not all(isinstance(getattr(promised, k), int) for k in ("K", "horizon", "runs")):
        raise _cell_problem(path, f"cell parameters {params!r} are not a cell's")
    if cell is not None and promised != cell:
        raise _cell_problem(path, f"holds cell {promised.cell_id}, not {cell.cell_id}")
    if code is not None and meta.get(CODE_ATTR) != code:
        raise _cell_problem(path, "was computed by other code (or a plugin since edited)")
    if path.stem != promised.cell_id:
        raise _cell_problem(
            path, f"holds the data of cell {promised.cell_id} (another cell's bytes?)"
        )
    _check_cell_columns(path, df)
    if FAILURE_ATTR in meta and len(df) == 0:  # its plugin failed: no rows, the reason
        df.attrs.update({FAILURE_ATTR: str(meta[FAILURE_ATTR]), "cell_id": promised.cell_id})
        return df
    ids = set(df["cell_id"].unique())
    if ids != {promised.cell_id}:
        raise _cell_problem(path, f"cell_id column holds {sorted(ids)[:3]}", promised.cell_id)
    for col, attr in _PROMISED.items():
        if (df[col] != getattr(promised, attr)).any():
            raise _cell_problem(path, f"column {col!r} differs from the cell's {attr}")
    for col in ("gap", "epsilon", "rho", "kappa"):
        want = getattr(promised, col)
        want = np.nan if want is None else float(want)
        if not np.allclose(df[col].to_numpy(float), want, rtol=1e-9, atol=0, equal_nan=True):
            raise _cell_problem(path, f"column {col!r} differs from the cell's {col} {want}")
    _check_cell_rows(path, df, promised)
    return df


def _read_search_table(path: Path, df: pd.DataFrame, params) -> pd.DataFrame:
    """A worst-instance search's table (``privdtol worst-case --table``): the search's
    parameters in its metadata, whose id is the file's name; one exact cell per objective
    (``<search id>-<objective>``), each with the rows and finite regrets of a cell of the
    search's horizon (:func:`_check_cell_rows`)."""
    from privdtol.pipeline.plan import Cell
    from privdtol.pipeline.worst_case import Search

    try:
        search = Search(**params)
        sid = search.search_id
    except (TypeError, ValueError):
        raise _cell_problem(path, f"search parameters {params!r} are not a search's") from None
    if path.stem != sid:
        raise _cell_problem(path, f"holds the data of search {sid} (another search's bytes?)")
    _check_cell_columns(path, df)
    if not df["cell_id"].str.startswith(f"{sid}-").all():
        raise _cell_problem(path, "cell ids not of its search", f"{sid}-<objective>")
    promise = Cell(search.algorithm, "bernoulli", "", search.K, search.gap, None,
                   search.epsilon, search.horizon, 0, None, None, 0)  # fmt: skip
    for _, part in df.groupby("cell_id", sort=True):
        _check_cell_rows(path, part, promise)
    return df


def _check_cell_columns(path, df: pd.DataFrame) -> None:
    missing = [c for c in CELL_FILE_COLUMNS if c not in df.columns]
    if missing:
        raise _cell_problem(path, f"lacks the columns {', '.join(missing)}")
    for col, kind in CELL_FILE_COLUMNS.items():
        dtype = df[col].dtype
        ok = {
            "text": pd.api.types.is_string_dtype(dtype),
            "int": pd.api.types.is_integer_dtype(dtype),
            "float": pd.api.types.is_float_dtype(dtype) or pd.api.types.is_integer_dtype(dtype),
        }[kind]
        if not ok:
            raise _cell_problem(path, f"column {col!r} has type {dtype}", f"{kind} values")


def _check_cell_rows(path, df: pd.DataFrame, cell) -> None:
    from privdtol.core import clock

    horizons, _ = clock.checkpoints(cell.horizon)
    runs = max(cell.runs, 1)
    if len(df) != runs * horizons.size:
        raise _cell_problem(
            path,
            f"{len(df)} rows where the cell promises {runs * horizons.size} "
            f"({runs} runs x {horizons.size} checkpoint horizons)",
        )
    order = df.sort_values(["run", "horizon"], kind="mergesort")
    want_run = np.repeat(np.arange(runs), horizons.size)
    want_h = np.tile(horizons, runs)
    if not (
        np.array_equal(order["run"].to_numpy(), want_run)
        and np.array_equal(order["horizon"].to_numpy(), want_h)
    ):
        raise _cell_problem(path, "rows are not one per run and checkpoint horizon")
    reg = df["regret"].to_numpy(float)
    slack = df["error_bound"].to_numpy(float) if "error_bound" in df.columns else 0.0
    if "error_bound" in df.columns and not (np.isfinite(slack).all() and (slack >= 0).all()):
        raise _cell_problem(path, "column 'error_bound' holds values that are not finite >= 0")
    horizon = df["horizon"].to_numpy(float)
    bad = ~np.isfinite(reg) | (reg < -slack - 1e-9) | (reg > horizon * (1 + 1e-9) + slack)
    if bad.any():
        value = reg[np.argmax(bad)]
        raise _cell_problem(
            path, f"column 'regret' holds {float(value)!r}", "finite pseudo-regrets in [0, T]"
        )
    real = df["regret_realized"].to_numpy(float)
    exact = cell.exact
    bad = np.isinf(real) | (np.isnan(real) & (not exact)) | (np.abs(real) > horizon * (1 + 1e-9))
    if bad.any():
        raise _cell_problem(
            path,
            f"column 'regret_realized' holds {float(real[np.argmax(bad)])!r}",
            "finite realized regrets in [-T, T]",
        )
