"""Claim C3 (Theorem 1): the regret bound does not depend on T, i.e. the regret is horizon-free.

Tested per cell as the ratio of the *same runs'* regret at the two horizons of the config's
``horizon_free_pair`` (2^20 − 1 and 2^30 − 1 by default, well after the identification time
≈ log K/Δ²): PASS when the upper confidence limit of ``regret(T_high)/regret(T_low)`` is at
most ``horizon_free_ratio_max`` in every cell (decision rule: :mod:`privdtol.analysis.verdict`).

The ratio is ``1 + D/L`` with ``L`` the mean regret at the low horizon and ``D`` the mean
per-run increment up to the high one.  When the aggregated table has the paired-tail columns
``tail_mean``/``tail_se`` (see :mod:`privdtol.pipeline.aggregate`), ``D`` and its standard error
come from the per-run increments, and the interval is a Bonferroni rectangle: ``D ± z·se_D``
and ``L ± z·se_L``, each at confidence ``1 − (1 − c)/2``, mapped through ``1 + D/L`` (see
:func:`paired_ratio_ci`).  This is valid whatever the correlation of ``D`` and ``L`` and is
tight when the increments are (nearly) all 0, as they are for RPS.  Older tables without those
columns fall back to the delta-method interval of :func:`privdtol.analysis.stats.ratio_ci`,
which treats the two means as independent and is therefore conservative (much too wide).  The
check's summary and cells say which interval was used.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import cell_keys, cell_label, select, stack
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.registry import CLAIMS
from privdtol.analysis.verdict import (
    bonferroni_confidence,
    combine_verdicts,
    upper_verdict,
)

CLAIM = "C3"
#: names of the two interval methods (the ``interval`` column / cell key)
PAIRED, DELTA = "paired", "delta"
TAIL_COLUMNS = ("tail_mean", "tail_se")


def paired_ratio_ci(inc, se_inc, den, se_den, confidence: float):
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
    z = stats.z_value(bonferroni_confidence(confidence, 2))
    ok = (den > 0) & np.isfinite(inc) & np.isfinite(se_inc) & np.isfinite(se_den)
    inc_lo, inc_hi = inc - z * se_inc, inc + z * se_inc
    den_lo, den_hi = den - z * se_den, den + z * se_den
    pos = den_lo > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ok, 1 + inc / den, np.nan)
        se = np.where(ok, np.sqrt((se_inc / den) ** 2 + (inc * se_den / den**2) ** 2), np.nan)
        high = np.where(
            inc_hi >= 0, np.where(pos, 1 + inc_hi / den_lo, np.inf), 1 + inc_hi / den_hi
        )
        low = np.where(
            inc_lo >= 0, 1 + inc_lo / den_hi, np.where(pos, 1 + inc_lo / den_lo, -np.inf)
        )
    return ratio, se, np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def horizon_ratio_table(df: pd.DataFrame, pair, confidence: float) -> pd.DataFrame:
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
    for _, g in df.groupby(cell_keys(df), dropna=False, sort=True):
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
        tails = (
            [float(a["tail_mean"]), float(a["tail_se"]), float(b["tail_mean"]), float(b["tail_se"])]
            if has_tail
            else [np.nan] * 4
        )
        paired = bool(np.all(np.isfinite(tails)))
        rows.append(
            {
                **{
                    c: a[c]
                    for c in g.columns
                    if c not in ("horizon", "mean", "se", "ci_low", "ci_high", *TAIL_COLUMNS)
                },
                "h_low": h0,
                "h_high": h1,
                "fallback": fallback,
                "mean_low": a["mean"],
                "se_low": a["se"],
                "mean_high": b["mean"],
                "se_high": b["se"],
                "interval": PAIRED if paired else DELTA,
                "increment": tails[0] - tails[2] if paired else np.nan,
                "increment_se": tails[1] + tails[3] if paired else np.nan,
            }
        )
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    conf_adj = bonferroni_confidence(confidence, len(out))
    ratio, se, _, high = stats.ratio_ci(
        out["mean_high"], out["se_high"], out["mean_low"], out["se_low"], confidence
    )
    _, _, low_adj, _ = stats.ratio_ci(
        out["mean_high"], out["se_high"], out["mean_low"], out["se_low"], conf_adj
    )
    p_ratio, p_se, _, p_high = paired_ratio_ci(
        out["increment"], out["increment_se"], out["mean_low"], out["se_low"], confidence
    )
    _, _, p_low_adj, _ = paired_ratio_ci(
        out["increment"], out["increment_se"], out["mean_low"], out["se_low"], conf_adj
    )
    use = (out["interval"] == PAIRED).to_numpy()
    out["ratio"] = np.where(use, p_ratio, ratio)
    out["ratio_se"] = np.where(use, p_se, se)
    out["ratio_high"] = np.where(use, p_high, high)
    out["ratio_low_adj"] = np.where(use, p_low_adj, low_adj)
    return out


def check_horizon_free(
    df: pd.DataFrame, ratio_max: float, pair, confidence: float, algorithm: str = "rps", inputs=()
) -> dict:
    """C3: regret(``pair[1]``) / regret(``pair[0]``) <= ``ratio_max`` (upper limit) in every cell.

    The per-cell interval is the paired one (per-run increments between the two horizons,
    Bonferroni rectangle with the low-horizon mean, see :func:`paired_ratio_ci`) where the
    aggregated table has the ``tail_mean``/``tail_se`` columns, and otherwise the (conservative)
    delta-method interval on two independent means; the summary says which was used."""
    rows = select(df, algorithm)
    title = "Horizon-free regret"
    label = f"max over cells of regret(T={pair[1]}) / regret(T={pair[0]})"
    threshold = f"upper {confidence:.0%} limit of the ratio <= {ratio_max} in every cell"
    head = Heading(CLAIM, title, label, threshold)
    tab = horizon_ratio_table(rows, pair, confidence)
    if tab.empty:
        return no_data(head, f"No {algorithm} cells in the input.", inputs)
    cells, verdicts = [], []
    for _, r in tab.iterrows():
        v = upper_verdict(r["ratio_low_adj"], r["ratio_high"], ratio_max)
        verdicts.append(v)
        cells.append(
            {
                **cell_label(r),
                "h_low": r["h_low"],
                "h_high": r["h_high"],
                "fallback": r["fallback"],
                "interval": r["interval"],
                "ratio": r["ratio"],
                "ratio_high": r["ratio_high"],
                "verdict": v,
            }
        )
    n_fb = int(tab["fallback"].sum())
    note = (
        f" {n_fb} cell(s) lack T={pair[1]} and use their largest horizon and the checkpoint "
        "about 2^10 times smaller instead."
        if n_fb
        else ""
    )
    n_paired = int((tab["interval"] == PAIRED).sum())
    n_delta = len(tab) - n_paired
    methods = []
    if n_paired:
        methods.append(
            f"paired interval from per-run increments between the two horizons "
            f"(Bonferroni over increment and low-horizon mean) for {n_paired} cell(s)"
        )
    if n_delta:
        methods.append(
            f"conservative delta-method interval on independent means (paired "
            f"tail columns absent from the aggregated table or not finite) for "
            f"{n_delta} cell(s)"
        )
    summary = (
        f"Across {len(tab)} {algorithm} cells the regret ratio between T={pair[1]} and "
        f"T={pair[0]} is at most {fmt(tab['ratio'].max(), 4)} (largest upper limit "
        f"{fmt(tab['ratio_high'].max(), 4)}, threshold {ratio_max}). Intervals: "
        + "; ".join(methods)
        + "."
        + note
    )
    return make_check(
        head,
        tab["ratio"].max(),
        tab["ratio_low_adj"].max(),
        tab["ratio_high"].max(),
        combine_verdicts(verdicts),
        summary,
        cells,
        inputs,
    )


def check(tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str]) -> dict:
    """The registry's C3 check: :func:`check_horizon_free` on the experiments' tables stacked,
    with the config's ``horizon_free_ratio_max``, ``horizon_free_pair`` and ``confidence``."""
    return check_horizon_free(
        stack(tables, CLAIMS[CLAIM].experiments),
        thresholds["horizon_free_ratio_max"],
        thresholds["horizon_free_pair"],
        thresholds["confidence"],
        inputs=inputs,
    )
