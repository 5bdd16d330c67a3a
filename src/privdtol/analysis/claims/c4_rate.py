"""Claims C4a–C4d (Corollary 1: with the lower bound of Hu et al. 2021, Theorem 1 gives the
rate Θ(log K/Δ + log K/ε)).  Θ(·) means bounded above and below by constants, so the rate is
tested by fitting its form and exponents:

- **C4a** (:func:`check_gap`): linear in 1/Δ in the statistical regime (ε >= 1, so η = 1/8): the
  log-log slope of regret against 1/gap over the :data:`N_POINTS` smallest gaps has its CI in
  the config's ``slope_range``;
- **C4b** (:func:`check_epsilon`): linear in 1/ε in the privacy regime (gap = 1/2), likewise
  against 1/eps;
- **C4c** (:func:`check_ratio`): regret / (log K/Δ + log K/ε) is flat: its log-log slope along
  each axis (1/gap, 1/eps, log K) over the last :data:`N_POINTS` grid points has its CI in
  ``ratio_slope_range``;
- **C4d** (:func:`check_log_k`): linear in log K, not log² K as in Wu & Wang's bound: in the
  privacy regime (eps < gap) ``a·log K + b`` fits the regret better than ``a·log² K + b``
  (residual chi-square difference with a parametric-bootstrap CI above 0).

Slopes are weighted least-squares fits on log(mean) (:func:`privdtol.analysis.stats.loglog_slope`);
series combine as the decision rule of :mod:`privdtol.analysis.verdict` says.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import final_rows, regime, select, series_keys, stack
from privdtol.analysis.records import Heading, fmt, make_check, no_data, plain
from privdtol.analysis.registry import CLAIMS
from privdtol.analysis.verdict import FAIL, INCONCLUSIVE, PASS, combine_verdicts, interval_verdict
from privdtol.core import bounds

#: grid points per fitted series (the largest values of the axis)
N_POINTS = 3
#: parametric-bootstrap draws of the C4d comparison
N_BOOT = 2000
#: the axes of a slope and the x value each takes from a table
AXES = {
    "1/gap": lambda d: 1 / d["gap"],
    "1/eps": lambda d: 1 / d["epsilon"],
    "log K": lambda d: np.log(d["K"].astype(float)),
}


# ----------------------------------------------------------------------------- slopes


def slope_series(
    df: pd.DataFrame,
    axis: str,
    group_cols: Sequence[str],
    n_points: int,
    confidence: float,
    value: str = "mean",
    se: str = "se",
) -> list[dict]:
    """For each group, the log-log slope of ``value`` against the axis over the ``n_points``
    grid points with the largest axis value.  ``axis`` is '1/gap', '1/eps' or 'log K'."""
    xfun = AXES[axis]
    out = []
    groups = df.groupby(list(group_cols), dropna=False, sort=True) if group_cols else [((), df)]
    for key, g in groups:
        g = g.assign(_x=xfun(g)).sort_values("_x")
        g = g.drop_duplicates("_x", keep="first").tail(n_points)
        fit = stats.loglog_slope(g["_x"], g[value], g[se], confidence)
        key = key if isinstance(key, tuple) else (key,)
        out.append(
            {
                "axis": axis,
                **{c: plain(k) for c, k in zip(group_cols, key, strict=True)},
                "x": list(g["_x"]),
                "y": list(g[value]),
                "n": fit["n"],
                "slope": fit["slope"],
                "intercept": fit["intercept"],
                "se": fit["se"],
                "ci_low": fit["ci_low"],
                "ci_high": fit["ci_high"],
                "chi2": fit["chi2"],
                "enough": fit["n"] >= n_points,
            }
        )
    return out


def verdict_series(series: list[dict], lo: float, hi: float) -> tuple[str, dict | None]:
    """Verdict per series (INCONCLUSIVE if too few points; stored in each series' ``verdict``),
    then the combined verdict and the series that decides it (first FAIL, else first
    INCONCLUSIVE, else the smallest margin)."""
    for s in series:
        s["verdict"] = (
            interval_verdict(s["ci_low"], s["ci_high"], lo, hi) if s["enough"] else INCONCLUSIVE
        )
    if not series:
        return INCONCLUSIVE, None
    verdict = combine_verdicts(s["verdict"] for s in series)
    for target in (FAIL, INCONCLUSIVE):
        for s in series:
            if s["verdict"] == target:
                return verdict, s
    margin = [min(s["ci_low"] - lo, hi - s["ci_high"]) for s in series]
    return verdict, series[int(np.argmin(margin))]


def check_slope(
    df: pd.DataFrame,
    claim: str,
    axis: str,
    slope_range,
    confidence: float,
    n_points: int = N_POINTS,
    algorithm: str = "rps",
    env="bernoulli",
    instance="standard",
    regime_filter: str | None = None,
    inputs=(),
    note: str = "",
) -> dict:
    """C4a/C4b: log-log slope of regret against ``axis`` over the ``n_points`` smallest gaps
    (axis '1/gap', statistical regime: eps >= 1 so eta = 1/8) or smallest eps (axis '1/eps',
    privacy regime: gap = 1/2), one series per remaining parameter combination; PASS when every
    series' CI lies within ``slope_range``."""
    lo, hi = (float(v) for v in slope_range)
    rows = final_rows(select(df, algorithm, env, instance))
    if regime_filter == "statistical":
        rows = rows[rows["epsilon"] >= 1]
        group = ["env", "K", "epsilon"]
        what = "statistical regime (eps >= 1, eta = 1/8)"
    elif regime_filter == "privacy":
        rows = rows[np.isclose(rows["gap"], 0.5)]
        group = ["env", "K", "gap"]
        what = "privacy regime (gap = 1/2)"
    else:
        group = ["env", "K"] + (["epsilon"] if axis == "1/gap" else ["gap"])
        what = "all cells"
    series = slope_series(rows, axis, series_keys(rows, group), n_points, confidence)
    verdict, decisive = verdict_series(series, lo, hi)
    title = f"Rate: regret linear in {axis} ({what})"
    label = f"log-log slope of regret against {axis} over the {n_points} largest {axis}"
    threshold = f"{confidence:.0%} CI of the slope within [{lo}, {hi}]"
    head = Heading(claim, title, label, threshold)
    if decisive is None:
        return no_data(
            head,
            f"No {algorithm} cells in the {what}." + note,
            inputs,
        )
    slopes = ", ".join(
        f"{fmt(s['slope'])} [{fmt(s['ci_low'])}, {fmt(s['ci_high'])}]" for s in series[:6]
    )
    summary = (
        f"{len(series)} series in the {what}; slopes (95% CI): {slopes}"
        f"{' ...' if len(series) > 6 else ''}; required range [{lo}, {hi}]." + note
    )
    low, high = decisive["ci_low"], decisive["ci_high"]
    return make_check(head, decisive["slope"], low, high, verdict, summary, series, inputs)


def check_gap(tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str]) -> dict:
    """The registry's C4a check: :func:`check_slope` against 1/gap, statistical regime."""
    return check_slope(
        stack(tables, CLAIMS["C4a"].experiments),
        "C4a",
        "1/gap",
        thresholds["slope_range"],
        thresholds["confidence"],
        N_POINTS,
        regime_filter="statistical",
        inputs=inputs,
    )


def check_epsilon(tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str]) -> dict:
    """The registry's C4b check: :func:`check_slope` against 1/eps, privacy regime."""
    return check_slope(
        stack(tables, CLAIMS["C4b"].experiments),
        "C4b",
        "1/eps",
        thresholds["slope_range"],
        thresholds["confidence"],
        N_POINTS,
        regime_filter="privacy",
        inputs=inputs,
    )


# ----------------------------------------------------------------------------- C4c


def rate_ratio_table(df: pd.DataFrame) -> pd.DataFrame:
    """Final rows with ``ratio = regret / (log K/gap + log K/eps)`` and its standard error."""
    out = final_rows(df).copy()
    out["rate"] = bounds.rate(out["K"], out["gap"], out["epsilon"])
    out["ratio"] = out["mean"] / out["rate"]
    out["ratio_se"] = out["se"] / out["rate"]
    return out


def check_rate_ratio(
    df: pd.DataFrame,
    ratio_slope_range,
    confidence: float,
    n_points: int = N_POINTS,
    algorithm: str = "rps",
    env="bernoulli",
    instance="standard",
    inputs=(),
) -> dict:
    """C4c: regret / rate is flat along each axis (1/gap, 1/eps, log K): the log-log slope of
    the ratio over the last ``n_points`` grid points lies in ``ratio_slope_range``."""
    lo, hi = (float(v) for v in ratio_slope_range)
    tab = rate_ratio_table(select(df, algorithm, env, instance))
    title = "Rate: regret / (log K/gap + log K/eps) flat along 1/gap, 1/eps and log K"
    label = "log-log slope of regret/rate along an axis (decisive series)"
    threshold = f"{confidence:.0%} CI of every slope within [{lo}, {hi}]"
    head = Heading("C4c", title, label, threshold)
    if tab.empty:
        return no_data(head, f"No {algorithm} cells.", inputs)
    series = []
    for axis, group in (
        ("1/gap", ["env", "K", "epsilon"]),
        ("1/eps", ["env", "K", "gap"]),
        ("log K", ["env", "gap", "epsilon"]),
    ):
        series += [
            s
            for s in slope_series(
                tab,
                axis,
                series_keys(tab, group),
                n_points,
                confidence,
                value="ratio",
                se="ratio_se",
            )
            if s["n"] >= 2
        ]
    verdict, decisive = verdict_series(series, lo, hi)
    rmin, rmax = float(tab["ratio"].min()), float(tab["ratio"].max())
    rng = {"kind": "ratio_range", "ratio_min": rmin, "ratio_max": rmax, "n_cells": len(tab)}
    per_axis = []
    for axis in ("1/gap", "1/eps", "log K"):
        ss = [s for s in series if s["axis"] == axis]
        if ss:
            per_axis.append(
                f"{axis}: slopes {fmt(min(s['slope'] for s in ss))} to "
                f"{fmt(max(s['slope'] for s in ss))} ({len(ss)} series)"
            )
    summary = (
        f"Over {len(tab)} cells regret/(log K/gap + log K/eps) ranges over "
        f"[{fmt(rmin)}, {fmt(rmax)}]; "
        + "; ".join(per_axis or ["no series"])
        + f"; required [{lo}, {hi}]."
    )
    if decisive is None:
        return no_data(head, summary, inputs)
    return make_check(
        head,
        decisive["slope"],
        decisive["ci_low"],
        decisive["ci_high"],
        verdict,
        summary,
        [rng] + [{"kind": "slope", **s} for s in series],
        inputs,
    )


def check_ratio(tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str]) -> dict:
    """The registry's C4c check: :func:`check_rate_ratio` with ``ratio_slope_range``."""
    return check_rate_ratio(
        stack(tables, CLAIMS["C4c"].experiments),
        thresholds["ratio_slope_range"],
        thresholds["confidence"],
        N_POINTS,
        inputs=inputs,
    )


# ----------------------------------------------------------------------------- C4d


def check_logk(
    df: pd.DataFrame,
    confidence: float,
    algorithm: str = "rps",
    env="bernoulli",
    instance="standard",
    n_boot: int = N_BOOT,
    inputs=(),
) -> dict:
    """C4d: against K in the privacy regime (eps < gap), compare ``a·log K + b`` with
    ``a·log² K + b``.  Statistic: Δχ² = χ²(log² K) − χ²(log K) (> 0: log K fits better), with a
    parametric-bootstrap interval; PASS if the interval is above 0 (log K fits better), FAIL if
    below 0, INCONCLUSIVE otherwise.  One comparison per (gap, eps) series; series combine as
    usual."""
    rows = final_rows(select(df, algorithm, env, instance))
    rows = rows[regime(rows["gap"], rows["epsilon"]) == "privacy"]
    title = "Rate in K (privacy regime): log K rather than log² K"
    label = "Δχ² = χ²(a log² K + b) − χ²(a log K + b)"
    threshold = "bootstrap CI of Δχ² above 0 (log K fits better)"
    head = Heading("C4d", title, label, threshold)
    series = []
    for (g_, e_), g in rows.groupby(["gap", "epsilon"], sort=True):
        g = g.sort_values("K")
        if g["K"].nunique() < 3:
            continue
        cmp = stats.compare_logk_fits(
            g["K"], g["mean"], g["se"], confidence, n_boot, seed_key={"gap": g_, "epsilon": e_}
        )
        v = interval_verdict(cmp["ci_low"], cmp["ci_high"], 0.0, math.inf)
        series.append(
            {
                "gap": g_,
                "epsilon": e_,
                "K": list(g["K"]),
                "delta_chi2": cmp["delta_chi2"],
                "ci_low": cmp["ci_low"],
                "ci_high": cmp["ci_high"],
                "better": cmp["better"],
                "verdict": v,
                **{
                    f"{k}_{tag}": cmp["fits"][form][k]
                    for form, tag in (("log K", "logk"), ("log² K", "log2k"))
                    for k in ("a", "b", "chi2")
                },
            }
        )
    if not series:
        return no_data(
            head,
            "Fewer than three values of K in the privacy regime.",
            inputs,
        )
    verdict = combine_verdicts(s["verdict"] for s in series)
    order = {FAIL: 0, INCONCLUSIVE: 1, PASS: 2}
    decisive = min(series, key=lambda s: (order[s["verdict"]], s["ci_low"]))
    parts = [
        f"gap={fmt(s['gap'])}, eps={fmt(s['epsilon'])}: {s['better']} fits better "
        f"(Δχ²={fmt(s['delta_chi2'])} [{fmt(s['ci_low'])}, {fmt(s['ci_high'])}]; "
        f"chi2 {fmt(s['chi2_logk'])} vs {fmt(s['chi2_log2k'])})"
        for s in series
    ]
    summary = "Privacy regime; " + "; ".join(parts) + "."
    low, high = decisive["ci_low"], decisive["ci_high"]
    return make_check(head, decisive["delta_chi2"], low, high, verdict, summary, series, inputs)


def check_log_k(tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str]) -> dict:
    """The registry's C4d check: :func:`check_logk` with :data:`N_BOOT` bootstrap draws."""
    return check_logk(
        stack(tables, CLAIMS["C4d"].experiments),
        thresholds["confidence"],
        n_boot=N_BOOT,
        inputs=inputs,
    )
