"""Verdicts, cell selection and the check-JSON format shared by every claim check.

Split from :mod:`privdtol.analysis.checks` (which re-exports these names): the decision rule is described
there.  A *check dict* has the keys of :data:`CHECK_KEYS` and is written by :func:`write_check`
as deterministic JSON (sorted keys, fixed precision, no timestamps), atomically.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from privdtol.pipeline.io import atomic_path

PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
CHECK_KEYS = ("claim", "title", "statistic_label", "statistic", "ci_low", "ci_high",
              "threshold", "verdict", "summary", "cells", "inputs")
#: the columns that identify a cell (beyond cell_id, which may differ between experiments)
CELL_COLUMNS = ("algorithm", "env", "instance", "K", "gap", "epsilon", "mu_best", "rho", "kappa")
SIG = 6  # significant digits written to JSON

# ----------------------------------------------------------------------------- verdicts

def interval_verdict(low: float, high: float, lo: float, hi: float) -> str:
    """Verdict for "the statistic lies in [lo, hi]" given its interval [low, high]."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return INCONCLUSIVE
    if lo <= low and high <= hi:
        return PASS
    if high < lo or low > hi:
        return FAIL
    return INCONCLUSIVE


def upper_verdict(low: float, high: float, threshold: float) -> str:
    """Verdict for "the statistic is at most ``threshold``"."""
    return interval_verdict(low, high, -math.inf, threshold)


def combine_verdicts(verdicts: Iterable[str]) -> str:
    """All PASS → PASS; any FAIL → FAIL; otherwise (or no verdicts) INCONCLUSIVE."""
    verdicts = list(verdicts)
    if not verdicts:
        return INCONCLUSIVE
    if FAIL in verdicts:
        return FAIL
    return PASS if all(v == PASS for v in verdicts) else INCONCLUSIVE


def bonferroni_confidence(confidence: float, n: int) -> float:
    """Per-test confidence so that ``n`` intervals hold jointly with ``confidence``."""
    return 1 - (1 - confidence) / max(int(n), 1)


# ----------------------------------------------------------------------------- tables

def final_rows(df: pd.DataFrame, horizon: int | None = None) -> pd.DataFrame:
    """One row per cell: the row at ``horizon`` if given (cells without it are dropped),
    otherwise at the cell's largest horizon."""
    if df.empty:
        return df.copy()
    if horizon is not None:
        return df[df["horizon"] == horizon].reset_index(drop=True)
    idx = df.groupby(_cell_keys(df), dropna=False)["horizon"].idxmax()
    return df.loc[np.sort(idx.to_numpy())].reset_index(drop=True)


def _cell_keys(df: pd.DataFrame) -> list[str]:
    keys = ["experiment", "cell_id"] if {"experiment", "cell_id"} <= set(df.columns) else []
    return keys or [c for c in CELL_COLUMNS if c in df.columns]


def select(df: pd.DataFrame, algorithm: str | Sequence[str] | None = None,
           env: str | Sequence[str] | None = None, instance: str | None = None) -> pd.DataFrame:
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


#: columns that distinguish otherwise equal cells (loss-model parameters, instance)
SERIES_EXTRA = ("instance", "rho", "kappa")  # not mu_best: it moves with gap


def series_keys(df: pd.DataFrame, base: Sequence[str]) -> list[str]:
    """``base`` plus the instance/loss-model columns present in ``df`` (so e.g. correlated
    cells with different rho are never pooled into one series)."""
    return list(base) + [c for c in SERIES_EXTRA if c in df.columns and c not in base]


def _inputs(inputs) -> list[str]:
    return sorted({str(p) for p in (inputs or [])})


def _cell_label(row, cols=("env", "K", "gap", "epsilon")) -> dict:
    return {c: _plain(row[c]) for c in cols if c in row}


# ----------------------------------------------------------------------------- output

def _plain(value):
    """JSON-safe, stably formatted value: floats to SIG significant digits, NaN → None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        if not math.isfinite(value):
            return None
        return float(f"{value:.{SIG}g}")
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    return value


def make_check(claim, title, statistic_label, statistic, ci_low, ci_high, threshold, verdict,
               summary, cells=(), inputs=()) -> dict:
    """Assemble a check dict with the contract keys, JSON-safe values."""
    if verdict not in (PASS, FAIL, INCONCLUSIVE):
        raise ValueError(f"bad verdict {verdict!r}")
    return _plain({"claim": claim, "title": title, "statistic_label": statistic_label,
                   "statistic": statistic, "ci_low": ci_low, "ci_high": ci_high,
                   "threshold": threshold, "verdict": verdict, "summary": summary,
                   "cells": list(cells), "inputs": _inputs(inputs)})


def check_json(check: dict) -> str:
    return json.dumps(_plain(check), sort_keys=True, indent=2, allow_nan=False) + "\n"


def write_check(check: dict, path: str | Path) -> Path:
    """Write a check dict as deterministic JSON (sorted keys, fixed precision), atomically."""
    missing = [k for k in CHECK_KEYS if k not in check]
    if missing:
        raise ValueError(f"check dict lacks {missing}")
    path = Path(path)
    text = check_json(check)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def read_check(path: str | Path) -> dict | None:
    """A written check, or None if it does not exist (e.g. C1 before the privacy audit)."""
    path = Path(path)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _fmt(x, digits=3) -> str:
    return "nan" if x is None or not np.isfinite(x) else f"{x:.{digits}g}"


def not_run(claim: str, title: str, reason: str) -> dict:
    """Placeholder for a claim whose check has not run (e.g. C1 before the privacy audit)."""
    return make_check(claim, title, "", None, None, None, "", INCONCLUSIVE, reason, [], [])


def load_agg(agg_dir: str | Path, experiments: Sequence[str]) -> tuple[pd.DataFrame, list[str]]:
    """Concatenate ``<agg_dir>/<experiment>.parquet`` for the given experiments; return the
    table and the list of files used (missing files are skipped)."""
    frames, used = [], []
    for exp in experiments:
        path = Path(agg_dir) / f"{exp}.parquet"
        if path.exists():
            frames.append(pd.read_parquet(path))
            used.append(str(path))
    if not frames:
        raise FileNotFoundError(f"none of {list(experiments)} found in {agg_dir}")
    return pd.concat(frames, ignore_index=True), used
