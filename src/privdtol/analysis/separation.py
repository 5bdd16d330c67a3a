"""The separation between RPS and the algorithms of the prior bounds, measured (the experiment
``separation``).  The paper's contribution is a rate (Cesari & Colomboni, Theorem 1 and
Corollary 1): RPS pays log K/Delta_min + log K/eps, where Hu et al. 2021 proved
log K/Delta_min + log K log T/eps for their RNM-FTNL (``rnm_ftnl``) and Wu & Wang 2026
log K/Delta_min + log^2 K/eps for their variant (``wu_wang``, ``wu_wang_gumbel``).  A bound's
extra factor is a statement about a proof unless the algorithm's regret shows it; this module
asks whether it does:

- :func:`shapes`: the three shapes at (K, Delta_min, eps, T), natural logarithms;
- :func:`separation_table`: every standard-instance row of the experiment with its regret over
  each shape;
- :func:`growth_in_T`: per cell, Reg at the largest checkpoint over Reg at the checkpoint
  nearest T_max^(3/4) (the last quarter of log T, past every identification time of the grid,
  where a horizon-free regret has stopped rising: earlier, a regret still rising towards its
  limit would pass for a log T factor): a log T factor that binds makes this ratio
  log T_max/log T_mid (4/3 at T = 2^40 - 1 against 2^30 - 1), a horizon-free regret 1;
- :func:`growth_in_K`: per (algorithm, Delta_min, eps) of the privacy regime (eps < Delta_min,
  where the eps term dominates), Reg/(log K/eps) at the largest K over at the smallest K >= 8:
  a log^2 K regret grows by log K_max/log K_min, the paper's rate not at all.

An extra factor *shows* when the growth measured reaches half the predicted factor on a log
scale (at least sqrt(2) of a predicted 2).  The exact engine's regrets carry relative error
bounds below 1e-9, so each growth's relative error is below 2e-9 (reported).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.analysis.cells import dedupe_cells, select, stack

#: the experiment this module reads
EXPERIMENT = "separation"
#: each prior algorithm's own bound (its shape in :func:`shapes`) and the work that proves it
PRIOR = {
    "rnm_ftnl": ("hu", "Hu et al. 2021: log K/gap + log K log T/eps"),
    "wu_wang": ("wu_wang", "Wu & Wang 2026: log K/gap + log^2 K/eps"),
    "wu_wang_gumbel": ("wu_wang", "Wu & Wang 2026: log K/gap + log^2 K/eps"),
}
#: the smallest K of the growth in K (log 2 is too small a unit for a factor in log K)
K_MIN = 8
#: a factor shows when its growth reaches this power of the predicted factor
SHOWS = 0.5
#: where along log T the growth in T starts: T_mid = T_max^LATE (the last quarter of log T)
LATE = 0.75
#: relative error bound of a growth (two exact regrets, each within 1e-9)
GROWTH_ERROR = 2e-9


def shapes(K, gap, epsilon, horizon) -> dict[str, np.ndarray]:
    """``rate`` = log K/gap + log K/eps (the paper's), ``hu`` = log K/gap + log K log T/eps
    (Hu et al.'s bound without constants), ``wu_wang`` = log K/gap + log^2 K/eps."""
    lk = np.log(np.asarray(K, dtype=float))
    g, e = np.asarray(gap, dtype=float), np.asarray(epsilon, dtype=float)
    lt = np.log(np.maximum(np.asarray(horizon, dtype=float), 2.0))
    return {"rate": lk / g + lk / e, "hu": lk / g + lk * lt / e, "wu_wang": lk / g + lk**2 / e}


def separation_table(tables) -> pd.DataFrame:
    """The standard Bernoulli rows of ``separation`` (every checkpoint) with ``rate``,
    ``hu``, ``wu_wang`` and the regret over each (``over_<shape>``)."""
    df = stack(tables, [EXPERIMENT])
    if df.empty:
        return df
    df = dedupe_cells(select(df, None, "bernoulli", "standard"))
    cols = ["algorithm", "K", "gap", "epsilon", "horizon", "mean"]
    out = df[cols].copy()
    for name, values in shapes(out["K"], out["gap"], out["epsilon"], out["horizon"]).items():
        out[name] = values
        out[f"over_{name}"] = out["mean"] / values
    return out.sort_values(["algorithm", "K", "gap", "epsilon", "horizon"]).reset_index(drop=True)


def growth_in_T(table: pd.DataFrame) -> pd.DataFrame:
    """Per cell: Reg(T_max)/Reg(T_mid), T_mid the checkpoint nearest T_max^:data:`LATE`, and
    the factor a binding log T would predict, log T_max/log T_mid."""
    rows = []
    for (alg, K, gap, eps), g in table.groupby(["algorithm", "K", "gap", "epsilon"]):
        g = g[g["mean"] > 0]
        if len(g) < 2:
            continue
        last = g.iloc[-1]
        mid = g.iloc[int(np.argmin(np.abs(np.log(g["horizon"]) - LATE * np.log(last["horizon"]))))]
        if mid["horizon"] >= last["horizon"]:
            continue
        rows.append(
            {
                "algorithm": alg,
                "K": int(K),
                "gap": gap,
                "epsilon": eps,
                "T_mid": int(mid["horizon"]),
                "T_max": int(last["horizon"]),
                "growth": last["mean"] / mid["mean"],
                "predicted": np.log(last["horizon"]) / np.log(mid["horizon"]),
            }
        )
    return _shows(pd.DataFrame(rows))


def growth_in_K(table: pd.DataFrame) -> pd.DataFrame:
    """Per (algorithm, gap, eps) with eps < gap, at the largest horizon: Reg/(log K/eps) at
    the largest K over at the smallest K >= :data:`K_MIN`, and the factor a log^2 K regret
    would predict, log K_max/log K_min."""
    last = table.loc[table.groupby(["algorithm", "K", "gap", "epsilon"])["horizon"].idxmax()]
    last = last[(last["epsilon"] < last["gap"]) & (last["K"] >= K_MIN)]
    rows = []
    for (alg, gap, eps), g in last.groupby(["algorithm", "gap", "epsilon"]):
        g = g.sort_values("K")
        if g["K"].nunique() < 2:
            continue
        lo, hi = g.iloc[0], g.iloc[-1]
        unit = lambda r: r["mean"] / (np.log(r["K"]) / r["epsilon"])  # noqa: E731
        rows.append(
            {
                "algorithm": alg,
                "gap": gap,
                "epsilon": eps,
                "K_min": int(lo["K"]),
                "K_max": int(hi["K"]),
                "T": int(hi["horizon"]),
                "growth": unit(hi) / unit(lo),
                "predicted": np.log(hi["K"]) / np.log(lo["K"]),
            }
        )
    return _shows(pd.DataFrame(rows))


def _shows(df: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return df
    df["growth_error"] = GROWTH_ERROR * df["growth"]
    df["shows"] = df["growth"] >= df["predicted"] ** SHOWS
    return df
