"""Machine checks of the paper's claims, from aggregated tables to verdicts.

Every ``check_*`` function takes aggregated DataFrames (the ``results/agg/<experiment>.parquet``
contract: one row per cell and checkpoint horizon, with ``mean`` and ``se`` of the regret) plus the
thresholds of the config's ``checks:`` block, and returns a *check dict* with the keys

    claim, title, statistic_label, statistic, ci_low, ci_high, threshold, verdict, summary,
    cells, inputs

that :func:`write_check` writes as deterministic JSON.

Decision rule (the same for every claim):

- the claim is an inequality or an interval for a statistic with a confidence interval;
- **PASS** if the whole interval satisfies it, **FAIL** if the whole interval violates it,
  **INCONCLUSIVE** if the interval straddles a threshold or the data are insufficient;
- a claim over many cells ("in every cell") PASSes if every cell PASSes, FAILs if some cell
  FAILs, and is INCONCLUSIVE otherwise.  For such claims, per-cell intervals for PASS are at
  the nominal ``confidence`` (an intersection-union test needs no multiplicity correction), while
  the interval used to declare a FAIL is Bonferroni-widened over the cells, so that a FAIL is not
  a multiple-testing artefact.

Intervals are normal, from the Monte-Carlo standard errors (see :mod:`privdtol.analysis.stats`).  "Regret"
of a cell is its mean at the largest horizon available, unless a check says otherwise.

C3 (horizon-free) is a ratio of the *same runs'* regret at two horizons, ``1 + D/L`` with ``L``
the mean regret at the low horizon and ``D`` the mean per-run increment up to the high one.
When the aggregated table has the paired-tail columns ``tail_mean``/``tail_se`` (see
:mod:`privdtol.pipeline.aggregate`), ``D`` and its standard error come from the per-run increments, and
the interval is a Bonferroni rectangle: ``D ± z·se_D`` and ``L ± z·se_L``, each at confidence
``1 − (1 − c)/2``, mapped through ``1 + D/L`` (see :func:`paired_ratio_ci`).  This is valid
whatever the correlation of ``D`` and ``L`` and is tight when the increments are (nearly) all 0,
as they are for RPS.  Older tables without those columns fall back to the delta-method interval
of :func:`privdtol.analysis.stats.ratio_ci`, which treats the two means as independent and is therefore
conservative (much too wide).  The check's summary and cells say which interval was used.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from privdtol.core import bounds
from privdtol.analysis import stats as fits
from privdtol.analysis.verdicts import (CELL_COLUMNS, CHECK_KEYS, FAIL, INCONCLUSIVE, PASS, SIG,  # noqa: F401
                       _cell_keys, _cell_label, _fmt, _inputs, _plain, bonferroni_confidence,
                       check_json, combine_verdicts, dedupe_cells, final_rows, interval_verdict,
                       load_agg, make_check, not_run, read_check, regime, select, series_keys,
                       upper_verdict, write_check)
DEFAULT_THRESHOLDS = {"horizon_free_ratio_max": 1.05, "slope_range": (0.8, 1.2),
                      "ratio_slope_range": (-0.2, 0.2), "confidence": 0.95,
                      "horizon_free_pair": (1048575, 1073741823)}
from privdtol.analysis.bound_checks import (bound_table, check_theorem1, paired_ratio_ci, horizon_ratio_table, check_horizon_free)  # noqa: F401


# ----------------------------------------------------------------------------- C4 a/b

def slope_series(df: pd.DataFrame, axis: str, group_cols: Sequence[str], n_points: int = 3,
                 confidence: float = 0.95, value: str = "mean", se: str = "se") -> list[dict]:
    """For each group, the log-log slope of ``value`` against the axis over the ``n_points``
    grid points with the largest axis value.  ``axis`` is '1/gap', '1/eps' or 'log K'."""
    xfun = {"1/gap": lambda d: 1 / d["gap"], "1/eps": lambda d: 1 / d["epsilon"],
            "log K": lambda d: np.log(d["K"].astype(float))}[axis]
    out = []
    groups = df.groupby(list(group_cols), dropna=False, sort=True) if group_cols else [((), df)]
    for key, g in groups:
        g = g.assign(_x=xfun(g)).sort_values("_x")
        g = g.drop_duplicates("_x", keep="first").tail(n_points)
        fit = fits.loglog_slope(g["_x"], g[value], g[se], confidence)
        key = key if isinstance(key, tuple) else (key,)
        out.append({"axis": axis, **{c: _plain(k) for c, k in zip(group_cols, key)},
                    "x": list(g["_x"]), "y": list(g[value]), "n": fit["n"],
                    "slope": fit["slope"], "intercept": fit["intercept"], "se": fit["se"],
                    "ci_low": fit["ci_low"],
                    "ci_high": fit["ci_high"], "chi2": fit["chi2"],
                    "enough": fit["n"] >= n_points})
    return out


def _verdict_series(series: list[dict], lo: float, hi: float) -> tuple[str, dict | None]:
    """Verdict per series (INCONCLUSIVE if too few points), then the combined verdict and the
    series that decides it (first FAIL, else first INCONCLUSIVE, else the smallest margin)."""
    for s in series:
        s["verdict"] = (interval_verdict(s["ci_low"], s["ci_high"], lo, hi) if s["enough"]
                        else INCONCLUSIVE)
    if not series:
        return INCONCLUSIVE, None
    verdict = combine_verdicts(s["verdict"] for s in series)
    for target in (FAIL, INCONCLUSIVE):
        for s in series:
            if s["verdict"] == target:
                return verdict, s
    margin = [min(s["ci_low"] - lo, hi - s["ci_high"]) for s in series]
    return verdict, series[int(np.argmin(margin))]


def check_slope(df: pd.DataFrame, claim: str, axis: str, slope_range=(0.8, 1.2),
                confidence: float = 0.95, n_points: int = 3, algorithm: str = "rps",
                env="bernoulli", instance="standard", regime_filter: str | None = None,
                inputs=(), note: str = "") -> dict:
    """C4a/C4b: log-log slope of regret against ``axis`` over the ``n_points`` smallest gaps
    (axis '1/gap', statistical regime: eps >= 1 so eta = 1/8) or smallest eps (axis '1/eps',
    privacy regime: gap = 1/2), one series per remaining parameter combination."""
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
    verdict, decisive = _verdict_series(series, lo, hi)
    title = f"Rate: regret linear in {axis} ({what})"
    label = f"log-log slope of regret against {axis} over the {n_points} largest {axis}"
    threshold = f"{confidence:.0%} CI of the slope within [{lo}, {hi}]"
    if decisive is None:
        return make_check(claim, title, label, None, None, None, threshold, INCONCLUSIVE,
                          f"No {algorithm} cells in the {what}." + note, [], inputs)
    slopes = ", ".join(f"{_fmt(s['slope'])} [{_fmt(s['ci_low'])}, {_fmt(s['ci_high'])}]"
                       for s in series[:6])
    summary = (f"{len(series)} series in the {what}; slopes (95% CI): {slopes}"
               f"{' ...' if len(series) > 6 else ''}; required range [{lo}, {hi}]." + note)
    return make_check(claim, title, label, decisive["slope"], decisive["ci_low"],
                      decisive["ci_high"], threshold, verdict, summary, series, inputs)


# ----------------------------------------------------------------------------- C4c

def rate_ratio_table(df: pd.DataFrame) -> pd.DataFrame:
    """Final rows with ``ratio = regret / (log K/gap + log K/eps)`` and its standard error."""
    out = final_rows(df).copy()
    out["rate"] = bounds.rate(out["K"], out["gap"], out["epsilon"])
    out["ratio"] = out["mean"] / out["rate"]
    out["ratio_se"] = out["se"] / out["rate"]
    return out


def check_rate_ratio(df: pd.DataFrame, ratio_slope_range=(-0.2, 0.2), confidence: float = 0.95,
                     n_points: int = 3, algorithm: str = "rps", env="bernoulli",
                     instance="standard", inputs=()) -> dict:
    """C4c: regret / rate is flat along each axis (1/gap, 1/eps, log K): the log-log slope of
    the ratio over the last ``n_points`` grid points lies in ``ratio_slope_range``."""
    lo, hi = (float(v) for v in ratio_slope_range)
    tab = rate_ratio_table(select(df, algorithm, env, instance))
    title = "Rate: regret / (log K/gap + log K/eps) flat along 1/gap, 1/eps and log K"
    label = "log-log slope of regret/rate along an axis (decisive series)"
    threshold = f"{confidence:.0%} CI of every slope within [{lo}, {hi}]"
    if tab.empty:
        return make_check("C4c", title, label, None, None, None, threshold, INCONCLUSIVE,
                          f"No {algorithm} cells.", [], inputs)
    series = []
    for axis, group in (("1/gap", ["env", "K", "epsilon"]), ("1/eps", ["env", "K", "gap"]),
                        ("log K", ["env", "gap", "epsilon"])):
        series += [s for s in slope_series(tab, axis, series_keys(tab, group), n_points,
                                           confidence,
                                           value="ratio", se="ratio_se") if s["n"] >= 2]
    verdict, decisive = _verdict_series(series, lo, hi)
    rmin, rmax = float(tab["ratio"].min()), float(tab["ratio"].max())
    rng = {"kind": "ratio_range", "ratio_min": rmin, "ratio_max": rmax, "n_cells": len(tab)}
    per_axis = []
    for axis in ("1/gap", "1/eps", "log K"):
        ss = [s for s in series if s["axis"] == axis]
        if ss:
            per_axis.append(f"{axis}: slopes {_fmt(min(s['slope'] for s in ss))} to "
                            f"{_fmt(max(s['slope'] for s in ss))} ({len(ss)} series)")
    summary = (f"Over {len(tab)} cells regret/(log K/gap + log K/eps) ranges over "
               f"[{_fmt(rmin)}, {_fmt(rmax)}]; " + "; ".join(per_axis or ["no series"]) +
               f"; required [{lo}, {hi}].")
    if decisive is None:
        return make_check("C4c", title, label, None, None, None, threshold, INCONCLUSIVE,
                          summary, [rng], inputs)
    return make_check("C4c", title, label, decisive["slope"], decisive["ci_low"],
                      decisive["ci_high"], threshold, verdict, summary,
                      [rng] + [{"kind": "slope", **s} for s in series], inputs)


# ----------------------------------------------------------------------------- C4d

def check_logk(df: pd.DataFrame, confidence: float = 0.95, algorithm: str = "rps",
               env="bernoulli", instance="standard", n_boot: int = 2000, inputs=()) -> dict:
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
    series = []
    for (g_, e_), g in rows.groupby(["gap", "epsilon"], sort=True):
        g = g.sort_values("K")
        if g["K"].nunique() < 3:
            continue
        cmp = fits.compare_logk_fits(g["K"], g["mean"], g["se"], confidence, n_boot,
                                     seed_key={"gap": g_, "epsilon": e_})
        v = interval_verdict(cmp["ci_low"], cmp["ci_high"], 0.0, math.inf)
        series.append({"gap": g_, "epsilon": e_, "K": list(g["K"]), "delta_chi2": cmp["delta_chi2"],
                       "ci_low": cmp["ci_low"], "ci_high": cmp["ci_high"],
                       "better": cmp["better"], "verdict": v,
                       **{f"{k}_{tag}": cmp["fits"][form][k] for form, tag in
                          (("log K", "logk"), ("log² K", "log2k")) for k in ("a", "b", "chi2")}})
    if not series:
        return make_check("C4d", title, label, None, None, None, threshold, INCONCLUSIVE,
                          "Fewer than three values of K in the privacy regime.", [], inputs)
    verdict = combine_verdicts(s["verdict"] for s in series)
    order = {FAIL: 0, INCONCLUSIVE: 1, PASS: 2}
    decisive = min(series, key=lambda s: (order[s["verdict"]], s["ci_low"]))
    parts = [f"gap={_fmt(s['gap'])}, eps={_fmt(s['epsilon'])}: {s['better']} fits better "
             f"(Δχ²={_fmt(s['delta_chi2'])} [{_fmt(s['ci_low'])}, {_fmt(s['ci_high'])}]; "
             f"chi2 {_fmt(s['chi2_logk'])} vs {_fmt(s['chi2_log2k'])})" for s in series]
    summary = "Privacy regime; " + "; ".join(parts) + "."
    return make_check("C4d", title, label, decisive["delta_chi2"], decisive["ci_low"],
                      decisive["ci_high"], threshold, verdict, summary, series, inputs)


# ----------------------------------------------------------------------------- C5

def check_dependent(df: pd.DataFrame, slope_range=(0.8, 1.2), confidence: float = 0.95,
                    n_points: int = 3, envs=("correlated", "beta"), algorithm: str = "rps",
                    inputs=()) -> dict:
    """C5: the C2 check (Theorem 1 bound) and, where the experiment has at least ``n_points``
    gaps (eps >= 1) or epsilons (gap = 1/2), the C4a/C4b slope checks, for each dependent loss
    model.  Sub-checks without enough grid points are listed as not applicable; Beta cells use
    their largest (short) horizon."""
    subs, skipped = [], []
    for env in envs:
        rows = select(df, algorithm, env)
        if rows.empty:
            continue
        note = (" Beta cells stop at a short horizon; their largest available horizon is used."
                if env == "beta" else "")
        subs.append(("C2", env, check_theorem1(rows, confidence, algorithm, claim=f"C5/C2/{env}",
                                               note=note)))
        fin = final_rows(rows)
        stat = fin[fin["epsilon"] >= 1]
        priv = fin[np.isclose(fin["gap"], 0.5)]
        for name, sub, axis, by, regime_name in (
                ("C4a", stat, "1/gap", "gap", "statistical"),
                ("C4b", priv, "1/eps", "epsilon", "privacy")):
            keys = series_keys(sub, ["K", "epsilon" if by == "gap" else "gap"])
            most = int(sub.groupby(keys, dropna=False)[by].nunique().max()) if len(sub) else 0
            if most >= n_points:
                subs.append((name, env, check_slope(
                    rows, f"C5/{name}/{env}", axis, slope_range, confidence, n_points,
                    algorithm, env, None, regime_name, note=note)))
            else:
                skipped.append(f"{name}[{env}] not applicable (at most {most} distinct {by} "
                               f"values in the {regime_name} regime, {n_points} needed)")
    title = "Dependent losses: Theorem 1 and the rate hold for correlated and Beta losses"
    label = "max over dependent cells of regret / Theorem-1 bound"
    threshold = "every applicable sub-check (C2, C4a, C4b) PASSes"
    if not subs:
        return make_check("C5", title, label, None, None, None, threshold, INCONCLUSIVE,
                          "No dependent-loss cells in the input.", [], inputs)
    cells = [{"sub_check": name, "env": env, "verdict": c["verdict"], "statistic": c["statistic"],
              "ci_low": c["ci_low"], "ci_high": c["ci_high"], "threshold": c["threshold"],
              "summary": c["summary"]} for name, env, c in subs]
    c2 = [c for name, _, c in subs if name == "C2" and c["statistic"] is not None]
    stat = max((c["statistic"] for c in c2), default=None)
    lo = max((c["ci_low"] for c in c2 if c["ci_low"] is not None), default=None)
    hi = max((c["ci_high"] for c in c2 if c["ci_high"] is not None), default=None)
    verdict = combine_verdicts(c["verdict"] for c in cells)
    applied = ", ".join(f"{c['sub_check']}[{c['env']}]={c['verdict']}" for c in cells)
    summary = (f"Sub-checks: {applied}; largest regret/bound ratio {_fmt(stat)}."
               + (" " + "; ".join(skipped) + "." if skipped else "")
               + (" Beta cells use their largest (short) horizon." if "beta" in
                  {e for _, e, _ in subs} else ""))
    cells += [{"sub_check": x.split("[")[0], "env": x.split("[")[1].split("]")[0],
               "verdict": "NOT APPLICABLE", "summary": x} for x in skipped]
    return make_check("C5", title, label, stat, lo, hi, threshold, verdict, summary, cells, inputs)


# ----------------------------------------------------------------------------- constants

def check_constants(df: pd.DataFrame, confidence: float = 0.95, algorithm: str = "rps",
                    env="bernoulli", n_boot: int = 2000, inputs=()) -> dict:
    """Fitted constants of Theorem 1's form (see :func:`privdtol.analysis.stats.fit_constants`) on every
    distinct cell at its largest horizon, against the paper's 800 and 16.  Statistic: the larger
    of c_gap/800 and c_eta/16 with its bootstrap interval; PASS if the interval is below 1 (the
    theorem's constants are not beaten by the fitted mean constants), FAIL if above 1."""
    rows = dedupe_cells(final_rows(select(df, algorithm, env)))
    rows = rows[np.isfinite(rows["epsilon"])]
    title = "Fitted constants of Theorem 1 (800 and 16)"
    label = "max(c_gap/800, c_eta/16)"
    threshold = "bootstrap CI of max(c_gap/800, c_eta/16) below 1"
    if len(rows) < 3:
        return make_check("constants", title, label, None, None, None, threshold, INCONCLUSIVE,
                          "Fewer than three cells.", [], inputs)
    logk = np.log(rows["K"].astype(float))
    x_gap = logk / rows["gap"]
    x_eta = logk / bounds.eta(rows["epsilon"])
    fit = fits.fit_constants(x_gap, x_eta, rows["mean"], confidence, n_boot,
                             seed_key={"claim": "constants"})
    boot = np.max(fit["boot"] / np.array([800.0, 16.0]), axis=1)
    alpha = 1 - confidence
    low, high = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    stat = max(fit["c_gap"] / 800, fit["c_eta"] / 16)
    cells = [{"term": "log K/gap", "estimate": fit["c_gap"], "ci_low": fit["c_gap_ci"][0],
              "ci_high": fit["c_gap_ci"][1], "paper": 800},
             {"term": "log K/eta", "estimate": fit["c_eta"], "ci_low": fit["c_eta_ci"][0],
              "ci_high": fit["c_eta_ci"][1], "paper": 16}]
    summary = (f"Relative least squares over {fit['n']} cells: regret - 1 ~ "
               f"{_fmt(fit['c_gap'])} [{_fmt(fit['c_gap_ci'][0])}, {_fmt(fit['c_gap_ci'][1])}]"
               f" log K/gap + {_fmt(fit['c_eta'])} [{_fmt(fit['c_eta_ci'][0])}, "
               f"{_fmt(fit['c_eta_ci'][1])}] log K/eta, against the paper's 800 and 16 "
               f"({n_boot} bootstrap resamples of cells).")
    return make_check("constants", title, label, stat, low, high, threshold,
                      upper_verdict(low, high, 1.0), summary, cells, inputs)
