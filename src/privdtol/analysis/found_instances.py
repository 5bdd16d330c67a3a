"""The instances the worst-case searches found, as extra cells of Corollary 1's minimax side
(claim C7, :mod:`privdtol.analysis.claims.c7_optimality`).

Corollary 1 (Cesari & Colomboni) is a minimax statement: every instance with minimum gap
Δ_min has Reg_T(RPS) ≤ C (log K/Δ_min + log K/ε), and no ε-DP algorithm does better than order
log K/min(Δ_min, ε) on the worst instance of that class.  The two-level (standard) instance
belongs to the class, so its bound LB_T at (K, Δ_min, ε, T) (:mod:`privdtol.core.lower_bound`)
lower-bounds the minimax regret of the whole class.  An instance of the class on which the
algorithm's regret exceeds the standard instance's is therefore held against the *class's*
bound, the standard instance's LB_T: Reg_T(found)/LB_T(standard).  The searches' own tables
keep each instance's own bound (``results/agg/searches.parquet``, Reg/LB of the instance it
divides: a statement about that instance); C7's extra cells use the class's, because C7 asks
whether the algorithm's worst regret over the class stays within a constant of the minimax
rate, which the standard instance's LB_T lower-bounds; an instance's own LB_T bounds the
regret on that instance alone and can be far below the class's (an instance with mu_1 near 0
is easy for every algorithm that identifies it, not for the class).

A found instance enters when its minimum gap is the search's Δ_min and its regret, less its
error bound, exceeds the standard instance's regret at the search's horizon (the standard
regret read from the search's own row: the theorem1 objective's standard value times Theorem
1's bound, which is the same for every instance of the class, or a lower objective's standard
value times the standard instance's LB_T).  Its ratio's limits carry the regret's error bound
and LB_T's sandwich.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from privdtol.core.lower_bound import lower_bound

#: the searches' table and the worst instances' regret table (results/agg/<name>.parquet)
SEARCHES = "searches"
WORST = "worst_case"
#: relative slack of comparisons between exact values
TOL = 1e-9
#: the columns of :func:`found_cells`
COLUMNS = (
    "search_id",
    "objective",
    "K",
    "gap",
    "epsilon",
    "horizon",
    "regret",
    "standard_regret",
    "lb",
    "ratio",
    "ratio_low",
    "ratio_high",
    "means",
)


@lru_cache(maxsize=256)
def standard_lb(K: int, mu: float, gap: float, epsilon: float, horizon: int) -> tuple:
    """LB_T of the standard instance (K − 1 actions at mu, one at mu − gap) at ``horizon``:
    its certified value and the width of its sandwich (computed once per process)."""
    row = lower_bound(K, mu, gap, epsilon, [horizon]).iloc[-1]
    return float(row["best"]), float(row["best_error"])


def _means(text) -> np.ndarray:
    return np.sort(np.array([float(x) for x in str(text).split()], dtype=float))


def compact_means(text) -> str:
    """An instance's sorted means with repeats counted (``"0.0625, 0.5625 x1023"``): the
    record's short form of a mean vector of up to thousands of entries."""
    values, counts = np.unique(np.round(_means(text), 12), return_counts=True)
    return ", ".join(
        f"{v:.12g}" + (f" x{n}" if n > 1 else "") for v, n in zip(values, counts, strict=True)
    )


def _horizons(worst: pd.DataFrame | None) -> dict[str, int]:
    """The largest checkpoint of each search (cell ids ``<search_id>-<objective>``)."""
    if worst is None or worst.empty:
        return {}
    sid = worst["cell_id"].astype(str).str.rsplit("-", n=1).str[0]
    return {str(k): int(v) for k, v in worst.groupby(sid)["horizon"].max().items()}


def _standard_regret(rows: pd.DataFrame, lb: float) -> float | None:
    """The standard instance's regret at the search's horizon, from the search's own rows."""
    thm = rows[rows["objective"] == "theorem1"]
    if len(thm):
        r = thm.iloc[0]
        return float(r["standard_value"]) * float(r["theorem1_bound"])
    low = rows[rows["objective"].isin(["lower_max", "lower_min"])]
    if len(low):
        return float(low.iloc[0]["standard_value"]) * lb
    return None


def found_cells(
    searches: pd.DataFrame | None, worst: pd.DataFrame | None, algorithm: str
) -> pd.DataFrame:
    """The instances ``algorithm``'s searches found whose regret exceeds the standard
    instance's at the same (K, Δ_min, ε) (module docstring), one row each (:data:`COLUMNS`),
    their ratio over the standard instance's LB_T at the search's horizon."""
    empty = pd.DataFrame({c: pd.Series(dtype=float) for c in COLUMNS})
    if searches is None or searches.empty or "algorithm" not in searches:
        return empty
    horizons = _horizons(worst)
    rows = []
    for sid, g in searches[searches["algorithm"] == algorithm].groupby("search_id", sort=True):
        first = g.iloc[0]
        T = horizons.get(str(sid))
        if T is None:
            continue
        K, gap, eps = int(first["K"]), float(first["gap"]), float(first["epsilon"])
        mu = float(_means(first["standard_means"]).max())
        lb, lb_error = standard_lb(K, mu, gap, eps, int(T))
        std = _standard_regret(g, lb)
        if std is None or not lb > 0:
            continue
        seen = set()
        for r in g.itertuples(index=False):
            means = _means(r.means)
            key = tuple(np.round(means, 15))
            if key in seen or len(means) != K:
                continue
            seen.add(key)
            if not np.isclose(means[1] - means[0], gap, rtol=1e-9, atol=0):
                continue  # not in the class of minimum gap Δ_min
            regret, err = float(r.regret), float(r.error_bound)
            if regret - err <= std * (1 + TOL):
                continue
            rows.append(
                {
                    "search_id": str(sid),
                    "objective": r.objective,
                    "K": K,
                    "gap": gap,
                    "epsilon": eps,
                    "horizon": T,
                    "regret": regret,
                    "standard_regret": std,
                    "lb": lb,
                    "ratio": regret / lb,
                    "ratio_low": (regret - err) / (lb + lb_error),
                    "ratio_high": (regret + err) / lb,
                    "means": compact_means(r.means),
                }
            )
    return pd.DataFrame(rows, columns=list(COLUMNS)) if rows else empty
