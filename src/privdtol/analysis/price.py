"""The price each algorithm pays above what any ε-DP algorithm must pay: its regret over the
explicit lower bound LB_T of Corollary 1's lower side (:mod:`privdtol.core.lower_bound`), on
every standard-instance cell (one best action at mean μ − Δ, the other K − 1 at μ, Bernoulli
losses) and checkpoint horizon of the regret experiments.

LB_T holds for every ε-DP algorithm that treats the actions symmetrically (every registered
private algorithm does: tested by relabelling in ``tests/engine/test_exact.py``), so Reg_T/LB_T
is the factor an algorithm pays above the unavoidable, and a private algorithm below 1 is not
ε-DP (or a computation is wrong).  A non-private algorithm (FTL, Hedge) has no ε: its cell is
held against LB_T at every ε the same experiment runs at its (K, Δ), which is what it would
have to pay to be ε-DP.  One table, read by the claims C6 and C7 and by the finding
``lower_bound``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from privdtol.algorithms import ALGORITHMS
from privdtol.analysis import stats
from privdtol.analysis.cells import dedupe_cells, select
from privdtol.analysis.claim_types import BOUNDS_TABLE
from privdtol.analysis.verdict import bonferroni_confidence
from privdtol.core.lower_bound import lower_bound
from privdtol.errors import InputError

#: its columns: the instance, the horizon and the bound's parts (:mod:`privdtol.core.lower_bound`)
BOUND_KEYS = ("K", "mu", "gap", "epsilon")
BOUND_COLUMNS = (
    *BOUND_KEYS,
    "horizon",
    "best",
    "best_error",
    "statistical",
    "privacy",
    "two_point",
)
#: relative numerical slack of a comparison of exact values (the engine's values and LB_T are
#: accurate to ~1e-12; at T = 1 every algorithm with a uniform first action meets LB_T with
#: equality)
TOL = 1e-9


def is_private(algorithm: str) -> bool:
    """Whether ``algorithm`` is held to the lower bound as an ε-DP algorithm: registered as
    private, symmetric in the actions (the bound's scope: :mod:`privdtol.analysis.claims.
    c6_lower_bound`) and not a negative control of the lower-bound claim (a "private in name"
    control declares an ε it does not meet)."""
    cls = ALGORITHMS.get(algorithm)
    return bool(cls is not None and cls.private and cls.symmetric and "C6" not in cls.control_of)


@lru_cache(maxsize=4096)
def _bounds(K: int, mu: float, gap: float, epsilon: float, horizons: tuple) -> pd.DataFrame:
    return lower_bound(K, mu, gap, epsilon, list(horizons)).set_index("horizon")


def _with_epsilons(df: pd.DataFrame) -> pd.DataFrame:
    """Non-private rows (no ε) repeated at every ε their experiment runs at their (K, gap)."""
    has = df[np.isfinite(df["epsilon"])]
    none = df[~np.isfinite(df["epsilon"])]
    if none.empty:
        return df
    eps = has[["experiment", "K", "gap", "epsilon"]].drop_duplicates()
    spread = none.drop(columns="epsilon").merge(eps, on=["experiment", "K", "gap"], how="inner")
    return pd.concat([has, spread[df.columns]], ignore_index=True)


def _instances(df: pd.DataFrame) -> pd.DataFrame:
    """The standard Bernoulli rows of ``df`` (non-private ones at every ε of their experiment),
    one per cell and horizon, with ``mu`` = mu_best + gap (the K - 1 other actions' mean)."""
    if df.empty or "instance" not in df:
        return pd.DataFrame()
    rows = dedupe_cells(_with_epsilons(select(df, None, "bernoulli", "standard"))).copy()
    rows["mu"] = rows["mu_best"] + rows["gap"]
    return rows


def _instance_bounds(job: tuple) -> pd.DataFrame:
    K, mu, gap, eps, hs = job
    lb = _bounds(K, mu, gap, eps, hs).reset_index()
    return lb.assign(K=K, mu=mu, gap=gap, epsilon=eps)


def bounds_table(df: pd.DataFrame, jobs: int = 1) -> pd.DataFrame:
    """LB_T (:data:`BOUND_COLUMNS`) at every instance and checkpoint horizon of ``df``'s
    standard Bernoulli cells, sorted; empty (with the columns) when there is none.  ``jobs``
    processes share the instances (the table is the same whatever their number)."""
    rows = _instances(df)
    work = (
        [
            (
                int(K),
                float(mu),
                float(gap),
                float(eps),
                tuple(sorted(int(h) for h in g["horizon"].unique())),
            )
            for (K, mu, gap, eps), g in rows.groupby(list(BOUND_KEYS), sort=True)
        ]
        if not rows.empty
        else []
    )
    if jobs > 1 and len(work) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_instance_bounds, work, chunksize=8))
    else:
        parts = [_instance_bounds(job) for job in work]
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=float) for c in BOUND_COLUMNS})
    out = pd.concat(parts, ignore_index=True)[list(BOUND_COLUMNS)]
    return out.astype({"K": "int64", "horizon": "int64"}).reset_index(drop=True)


def price_table(
    df: pd.DataFrame, confidence: float, bounds: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Every (cell, checkpoint) of ``df``'s standard Bernoulli cells with LB_T (``lb``, its
    certified lower value; ``lb_error`` the width of its sandwich; its terms), the regret's
    limits (``lower``, ``upper`` at the nominal ``confidence``; ``upper_adj`` Bonferroni over
    the rows), ``ratio`` = regret/LB_T with ``ratio_low`` and ``ratio_high``; ``private``
    (:func:`is_private`) and ``verdict`` (PASS: the regret's lower limit is at least LB_T's
    upper end; FAIL: its Bonferroni upper limit is below LB_T's certified value; INCONCLUSIVE
    between; a relative slack of :data:`TOL` both ways)."""
    rows = _instances(df)
    if rows.empty:
        return rows
    if bounds is None:
        bounds = bounds_table(df)
    lb = bounds.rename(
        columns={
            "best": "lb",
            "best_error": "lb_error",
            "statistical": "lb_statistical",
            "privacy": "lb_privacy",
            "two_point": "lb_two_point",
        }
    )
    keys = [*BOUND_KEYS, "horizon"]
    out = rows.merge(lb, on=keys, how="left", validate="many_to_one")
    if out["lb"].isna().any():
        miss = out.loc[out["lb"].isna(), keys].iloc[0].to_dict()
        raise InputError(
            "agg-dir",
            f"{BOUNDS_TABLE}.parquet has no row for {miss}",
            "a table made from these cells (privdtol lower-bound-table)",
        )
    # PASS at the nominal level (every cell must pass: no multiplicity correction); FAIL with
    # the upper limit Bonferroni-widened over the rows (:mod:`privdtol.analysis.verdict`)
    low, high = stats.normal_ci(out["mean"], out["se"], confidence)
    _, high_adj = stats.normal_ci(
        out["mean"], out["se"], bonferroni_confidence(confidence, len(out))
    )
    out["lower"], out["upper"], out["upper_adj"] = low, high, high_adj
    with np.errstate(divide="ignore", invalid="ignore"):
        out["ratio"] = out["mean"] / out["lb"]
        out["ratio_low"] = out["lower"] / (out["lb"] + out["lb_error"])
        out["ratio_high"] = out["upper_adj"] / out["lb"]
    passes = out["lower"] >= (out["lb"] + out["lb_error"]) * (1 - TOL)
    fails = out["upper_adj"] < out["lb"] * (1 - TOL)
    out["verdict"] = np.where(passes, "PASS", np.where(fails, "FAIL", "INCONCLUSIVE"))
    out["private"] = [is_private(a) for a in out["algorithm"]]
    return out.sort_values(["algorithm", "K", "gap", "epsilon", "horizon"], kind="stable")


def final_prices(priced: pd.DataFrame) -> pd.DataFrame:
    """One row per (algorithm, cell): at its largest horizon (where both the regret and LB_T
    have stopped growing), with ``ratio_min``, the smallest ratio over its horizons."""
    if priced.empty:
        return priced
    keys = ["algorithm", "K", "gap", "epsilon", "mu_best"]
    last = priced.loc[priced.groupby(keys)["horizon"].idxmax()]
    smallest = priced.groupby(keys)["ratio"].min().rename("ratio_min")
    return last.merge(smallest.reset_index(), on=keys).reset_index(drop=True)
