"""Claims C2 (Theorem 1's bound in every cell) and C3 (horizon-freeness), split from
:mod:`privdtol.analysis.checks`, which re-exports every name here; its docstring states the decision
rule shared by all checks.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from privdtol.core import bounds
from privdtol.analysis import stats as fits
from privdtol.analysis.verdicts import (INCONCLUSIVE, _cell_keys, _cell_label, _fmt, bonferroni_confidence,
                       combine_verdicts, make_check, select, upper_verdict)


# ----------------------------------------------------------------------------- C2

def bound_table(df: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Every (cell, horizon) with the Theorem 1 bound and ``mean/bound`` with its upper limit
    (nominal ``confidence``) and its lower limit (Bonferroni over the rows)."""
    out = df.copy()
    out["bound"] = bounds.theorem1(out["K"], out["gap"], out["epsilon"])
    _, high = fits.normal_ci(out["mean"], out["se"], confidence)
    low, _ = fits.normal_ci(out["mean"], out["se"], bonferroni_confidence(confidence, len(out)))
    out["upper"], out["lower_adj"] = high, low
    out["ratio"] = out["mean"] / out["bound"]
    out["ratio_high"] = out["upper"] / out["bound"]
    out["ratio_low"] = out["lower_adj"] / out["bound"]
    return out


def check_theorem1(df: pd.DataFrame, confidence: float = 0.95, algorithm: str = "rps",
                   claim: str = "C2", inputs=(), note: str = "") -> dict:
    """C2: the upper confidence limit of the regret is below ``1 + 800 log K/gap + 16 log K/eta``
    in every cell and at every checkpoint horizon."""
    rows = select(df, algorithm)
    rows = rows[np.isfinite(rows["epsilon"])]
    title = "Theorem 1: regret below 1 + 800 log K/gap + 16 log K/eta"
    label = "max over cells and horizons of regret / Theorem-1 bound"
    threshold = f"upper {confidence:.0%} limit of regret / bound <= 1 in every cell"
    if rows.empty:
        return make_check(claim, title, label, None, None, None, threshold, INCONCLUSIVE,
                          f"No {algorithm} cells in the input.", [], inputs)
    tab = bound_table(rows, confidence)
    cells = []
    verdicts = []
    for _, g in tab.groupby(_cell_keys(tab), dropna=False, sort=True):
        worst = g.loc[g["ratio_high"].idxmax()]
        v = upper_verdict(g["ratio_low"].max(), g["ratio_high"].max(), 1.0)
        verdicts.append(v)
        cells.append({**_cell_label(worst), "horizon": worst["horizon"],
                      "mean": worst["mean"], "upper": worst["upper"], "bound": worst["bound"],
                      "ratio": worst["ratio"], "ratio_high": worst["ratio_high"], "verdict": v})
    verdict = combine_verdicts(verdicts)
    i = tab["ratio"].idxmax()
    summary = (f"Over {len(cells)} {algorithm} cells and {len(tab)} (cell, horizon) pairs the "
               f"largest regret/bound ratio is {_fmt(tab['ratio'].max())} (upper limit "
               f"{_fmt(tab['ratio_high'].max())}), at K={_fmt(tab.at[i, 'K'])}, "
               f"gap={_fmt(tab.at[i, 'gap'])}, eps={_fmt(tab.at[i, 'epsilon'])}." + note)
    return make_check(claim, title, label, tab["ratio"].max(), tab["ratio_low"].max(),
                      tab["ratio_high"].max(), threshold, verdict, summary, cells, inputs)


# ----------------------------------------------------------------------------- C3

#: names of the two C3 interval methods (the ``interval`` column / cell key)
PAIRED, DELTA = "paired", "delta"
TAIL_COLUMNS = ("tail_mean", "tail_se")


def paired_ratio_ci(inc, se_inc, den, se_den, confidence: float = 0.95):
    """Ratio ``1 + inc/den`` of the regret at a high horizon over the regret ``den`` at a low one,
    where ``inc`` is the mean per-run increment between the two horizons (same runs), with a
    Bonferroni-rectangle interval: ``inc ± z·se_inc`` and ``den ± z·se_den`` each hold with
    confidence ``1 − (1 − confidence)/2``, so jointly with ``confidence`` whatever their
    correlation, and the interval is the range of ``1 + inc/den`` over that rectangle:

    - upper = ``1 + inc_hi/den_lo`` if ``inc_hi >= 0`` else ``1 + inc_hi/den_hi``;
    - lower = ``1 + inc_lo/den_hi`` if ``inc_lo >= 0`` else ``1 + inc_lo/den_lo``;

    with ``+inf`` (upper) or ``-inf`` (lower, when ``inc_lo < 0``) if ``den_lo <= 0``.  Returns
    ``(ratio, se, low, high)``; ``se`` is an informative delta-method value (increment and
    denominator treated as independent), not used for the interval.  NaN where ``den <= 0`` or
    an input is not finite."""
    inc, se_inc, den, se_den = (np.asarray(v, dtype=float) for v in (inc, se_inc, den, se_den))
    z = fits.z_value(bonferroni_confidence(confidence, 2))
    ok = (den > 0) & np.isfinite(inc) & np.isfinite(se_inc) & np.isfinite(se_den)
    inc_lo, inc_hi = inc - z * se_inc, inc + z * se_inc
    den_lo, den_hi = den - z * se_den, den + z * se_den
    pos = den_lo > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ok, 1 + inc / den, np.nan)
        se = np.where(ok, np.sqrt((se_inc / den) ** 2 + (inc * se_den / den ** 2) ** 2), np.nan)
        high = np.where(inc_hi >= 0, np.where(pos, 1 + inc_hi / den_lo, np.inf),
                        1 + inc_hi / den_hi)
        low = np.where(inc_lo >= 0, 1 + inc_lo / den_hi,
                       np.where(pos, 1 + inc_lo / den_lo, -np.inf))
    return ratio, se, np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def horizon_ratio_table(df: pd.DataFrame, pair=(1048575, 1073741823),
                        confidence: float = 0.95) -> pd.DataFrame:
    """Per cell: regret at ``pair[1]`` over regret at ``pair[0]``, its upper limit ``ratio_high``
    (``confidence``) and lower limit ``ratio_low_adj`` (Bonferroni over the cells).

    Cells whose rows carry finite paired-tail columns (``tail_mean``, ``tail_se``) use the paired
    interval of :func:`paired_ratio_ci` (``interval = "paired"``): ``L`` = mean at the low
    horizon, increment ``D = tail_mean(low) − tail_mean(high)`` with standard error
    ``tail_se(low) + tail_se(high)`` (exact when the high horizon is the cell's largest, where
    the tail is 0; otherwise a conservative bound, since sd(X − Y) <= sd(X) + sd(Y)).  Other cells
    (older tables) use the delta-method interval of :func:`privdtol.analysis.stats.ratio_ci`
    (``interval = "delta"``), conservative because it ignores the positive correlation of the
    same runs at two horizons.  Cells that lack the pair (e.g. Beta cells with a short horizon)
    use their largest horizon and the checkpoint ``2^10`` times smaller (or their smallest),
    flagged ``fallback``."""
    lo_h, hi_h = (int(h) for h in pair)
    factor = hi_h // max(lo_h, 1)
    has_tail = all(c in df.columns for c in TAIL_COLUMNS)
    rows = []
    for _, g in df.groupby(_cell_keys(df), dropna=False, sort=True):
        g = g.sort_values("horizon")
        hs = set(g["horizon"].astype(np.int64))
        if lo_h in hs and hi_h in hs:
            h0, h1, fallback = lo_h, hi_h, False
        else:
            h1 = int(g["horizon"].max())
            cands = g["horizon"][g["horizon"] <= max(h1 // max(factor, 1), 1)]
            h0 = int(cands.max()) if len(cands) else int(g["horizon"].min())
            fallback = True
        a = g[g["horizon"] == h0].iloc[0]
        b = g[g["horizon"] == h1].iloc[0]
        tails = ([float(a["tail_mean"]), float(a["tail_se"]), float(b["tail_mean"]),
                  float(b["tail_se"])] if has_tail else [np.nan] * 4)
        paired = bool(np.all(np.isfinite(tails)))
        rows.append({**{c: a[c] for c in g.columns if c not in
                        ("horizon", "mean", "se", "ci_low", "ci_high", *TAIL_COLUMNS)},
                     "h_low": h0, "h_high": h1, "fallback": fallback,
                     "mean_low": a["mean"], "se_low": a["se"],
                     "mean_high": b["mean"], "se_high": b["se"],
                     "interval": PAIRED if paired else DELTA,
                     "increment": tails[0] - tails[2] if paired else np.nan,
                     "increment_se": tails[1] + tails[3] if paired else np.nan})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    conf_adj = bonferroni_confidence(confidence, len(out))
    ratio, se, _, high = fits.ratio_ci(out["mean_high"], out["se_high"], out["mean_low"],
                                       out["se_low"], confidence)
    _, _, low_adj, _ = fits.ratio_ci(out["mean_high"], out["se_high"], out["mean_low"],
                                     out["se_low"], conf_adj)
    p_ratio, p_se, _, p_high = paired_ratio_ci(out["increment"], out["increment_se"],
                                               out["mean_low"], out["se_low"], confidence)
    _, _, p_low_adj, _ = paired_ratio_ci(out["increment"], out["increment_se"],
                                         out["mean_low"], out["se_low"], conf_adj)
    use = (out["interval"] == PAIRED).to_numpy()
    out["ratio"] = np.where(use, p_ratio, ratio)
    out["ratio_se"] = np.where(use, p_se, se)
    out["ratio_high"] = np.where(use, p_high, high)
    out["ratio_low_adj"] = np.where(use, p_low_adj, low_adj)
    return out


def check_horizon_free(df: pd.DataFrame, ratio_max: float = 1.05,
                       pair=(1048575, 1073741823), confidence: float = 0.95,
                       algorithm: str = "rps", inputs=()) -> dict:
    """C3: regret(2^30 − 1) / regret(2^20 − 1) <= ``ratio_max`` (upper limit) in every cell.

    The per-cell interval is the paired one (per-run increments between the two horizons,
    Bonferroni rectangle with the low-horizon mean, see :func:`paired_ratio_ci`) where the
    aggregated table has the ``tail_mean``/``tail_se`` columns, and otherwise the (conservative)
    delta-method interval on two independent means; the summary says which was used."""
    rows = select(df, algorithm)
    title = "Horizon-free regret"
    label = f"max over cells of regret(T={pair[1]}) / regret(T={pair[0]})"
    threshold = f"upper {confidence:.0%} limit of the ratio <= {ratio_max} in every cell"
    tab = horizon_ratio_table(rows, pair, confidence)
    if tab.empty:
        return make_check("C3", title, label, None, None, None, threshold, INCONCLUSIVE,
                          f"No {algorithm} cells in the input.", [], inputs)
    cells, verdicts = [], []
    for _, r in tab.iterrows():
        v = upper_verdict(r["ratio_low_adj"], r["ratio_high"], ratio_max)
        verdicts.append(v)
        cells.append({**_cell_label(r), "h_low": r["h_low"], "h_high": r["h_high"],
                      "fallback": r["fallback"], "interval": r["interval"], "ratio": r["ratio"],
                      "ratio_high": r["ratio_high"], "verdict": v})
    n_fb = int(tab["fallback"].sum())
    note = (f" {n_fb} cell(s) lack T={pair[1]} and use their largest horizon and the checkpoint "
            "about 2^10 times smaller instead." if n_fb else "")
    n_paired = int((tab["interval"] == PAIRED).sum())
    n_delta = len(tab) - n_paired
    methods = []
    if n_paired:
        methods.append(f"paired interval from per-run increments between the two horizons "
                       f"(Bonferroni over increment and low-horizon mean) for {n_paired} cell(s)")
    if n_delta:
        methods.append(f"conservative delta-method interval on independent means (paired "
                       f"tail columns absent from the aggregated table or not finite) for "
                       f"{n_delta} cell(s)")
    summary = (f"Across {len(tab)} {algorithm} cells the regret ratio between T={pair[1]} and "
               f"T={pair[0]} is at most {_fmt(tab['ratio'].max(), 4)} (largest upper limit "
               f"{_fmt(tab['ratio_high'].max(), 4)}, threshold {ratio_max}). Intervals: "
               + "; ".join(methods) + "." + note)
    return make_check("C3", title, label, tab["ratio"].max(), tab["ratio_low_adj"].max(),
                      tab["ratio_high"].max(), threshold, combine_verdicts(verdicts), summary,
                      cells, inputs)
