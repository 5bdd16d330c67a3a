"""Claim C4 (Corollary 1: with the lower bound of Hu et al. 2021, Theorem 1 gives the rate
Θ(log K/Δ + log K/ε)).  Θ(·) means bounded above and below by constants, so the rate is tested
by fitting the form it comes from (Theorem 1, eq. (1), with η = min(ε/2, 1/8)), not by the
local slope of a ratio: over the algorithm's cells of the ``grid`` experiment at their largest
horizon, :func:`check_form` fits ``Reg = a·log K/gap + b·log K/η + c`` (relative least squares,
:func:`privdtol.analysis.stats.form_fit`); PASS if every cell lies within the factor
``rate_form_factor`` of the fit (upper limits from the cells' intervals), FAIL if some cell lies
outside it (lower limit, Bonferroni over the cells).  The residuals are the record's cells.
Negative control: ``rps_eta_logk`` (privacy term log² K/ε).  The exponents of the form's terms
are the diagnostics C4a–C4c (:mod:`privdtol.analysis.claims.c4a_exponents`).

The Θ band (min and max of ``Reg/(log K/min(gap, ε))``) is a finding, not a verdict
(:mod:`privdtol.analysis.findings`).  :func:`slope_series` and :func:`rate_ratio_table` are
display helpers of the notebooks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import (
    cell_label,
    dedupe_cells,
    final_rows,
    select,
    stack,
)
from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.records import Heading, fmt, make_check, no_data, plain
from privdtol.analysis.verdict import (
    FAIL,
    INCONCLUSIVE,
    PASS,
    bonferroni_confidence,
    combine_verdicts,
)
from privdtol.core import bounds

COROLLARY1 = (
    "Combining Theorem 1 with the lower bound of [5] gives the optimal gap-dependent rate "
    "Theta(log K/Delta_min + log K/eps)."
)
#: why the exponent fits are diagnostics, not claims (Corollary 1 is a minimax statement)
_MINIMAX = (
    "Corollary 1 is a minimax statement (the order of the worst-case regret over instances), "
    "not a claim about the regret of RPS on each instance; what it implies for RPS on the grid "
    "is C4's form, and this exponent fit diagnoses that form on one series of instances"
)
COROLLARY1_TEX = (
    r"Combining Theorem 1 with the lower bound of [5] gives the optimal gap-dependent rate "
    r"$\Theta(\log K/\Delta_{\min} + \log K/\varepsilon)$."
)

C4 = Claim(
    "C4",
    "Rate form: Reg ≈ a log K/Δ + b log K/η + c over the grid",
    "Corollary 1 (with Theorem 1, eq. (1))",
    COROLLARY1,
    "largest factor between a cell's regret and the fitted a log K/gap + b log K/eta + c",
    ("grid",),
    ("confidence", "rate_form_factor"),
    f"{__name__}:check_form",
    "heatmap",
    ("rps_eta_logk",),
    diagnostic=(
        "Corollary 1 is a minimax statement; C4 fits RPS's regret on one family of instances, "
        "which Corollary 1 does not claim (its two sides are checked by C2 and C6, their ratio "
        "by C7)"
    ),
    rate=True,
    tex=ClaimTeX(
        r"Rate form $\mathrm{Reg} \approx a \log K/\Delta_{\min} + b \log K/\eta + c$ "
        r"over the grid",
        COROLLARY1_TEX,
        r"largest factor between a cell's regret and the fitted "
        r"$a \log K/\Delta_{\min} + b \log K/\eta + c$",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (C4,)

#: the axes of a display slope and the x value each takes from a table
AXES = {
    "1/gap": lambda d: 1 / d["gap"],
    "1/eps": lambda d: 1 / d["epsilon"],
    "log K": lambda d: np.log(d["K"].astype(float)),
}
#: fewest cells of a form fit (three parameters and at least one residual)
MIN_FORM_CELLS = 4


# ----------------------------------------------------------------------------- the form


def form_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with ``x_gap = log K/gap``, ``x_eta = log K/η`` (η = min(ε/2, 1/8), the paper's;
    0 for a non-private algorithm without ε) and ``x_eps = log K/ε``."""
    logk = np.log(df["K"].astype(float))
    eps = df["epsilon"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_eta = np.where(np.isfinite(eps), logk / bounds.eta(eps), 0.0)
    return df.assign(x_gap=logk / df["gap"], x_eta=x_eta, x_eps=logk / eps, logk=logk)


def form_table(rows: pd.DataFrame, confidence: float) -> tuple[pd.DataFrame, dict]:
    """The form fit over ``rows`` (one per cell) and per cell: ``fitted``, ``ratio`` (regret /
    fit), ``ratio_low``/``ratio_high`` from the cell's interval at ``confidence`` and
    ``ratio_low_adj``/``ratio_high_adj`` at the Bonferroni level over the cells."""
    tab = form_columns(rows).reset_index(drop=True)
    fit = stats.form_fit(tab["x_gap"], tab["x_eta"], tab["mean"])
    tab["fitted"] = fit["fitted"]
    tab["ratio"] = fit["ratio"]
    for suffix, conf in (("", confidence), ("_adj", bonferroni_confidence(confidence, len(tab)))):
        low, high = stats.normal_ci(tab["mean"], tab["se"], conf)
        tab[f"ratio_low{suffix}"] = low / tab["fitted"]
        tab[f"ratio_high{suffix}"] = high / tab["fitted"]
    return tab, fit


def factor_of(low, high):
    """The factor by which an interval of ratios [low, high] is away from 1 at its worst
    (``max(high, 1/low)``) and at its best (``max(low, 1/high)``, 1 if it contains 1)."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        worst = np.maximum(high, np.where(low > 0, 1 / low, np.inf))
        best = np.where(low > 1, low, np.where(high < 1, 1 / high, 1.0))
    return worst, best


def check_rate_form(
    df: pd.DataFrame,
    factor: float,
    confidence: float,
    algorithm: str = "rps",
    env="bernoulli",
    instance="standard",
    claim: str = "C4",
    inputs=(),
    note: str = "",
) -> dict:
    """C4: every cell within ``factor`` of the fitted ``a·log K/gap + b·log K/η + c`` (see the
    module docstring).  Statistic: the largest factor ``max(ratio, 1/ratio)`` over the cells."""
    rows = dedupe_cells(final_rows(select(df, algorithm, env, instance)))
    rows = rows[rows["mean"] > 0] if len(rows) else rows
    title = "Rate form: regret ~ a log K/gap + b log K/eta + c (eta = min(eps/2, 1/8))"
    label = "largest factor max(r, 1/r), r = regret / fitted form, over the cells"
    threshold = f"every cell's {confidence:.0%} interval of r within [1/{factor}, {factor}]"
    head = Heading(claim, title, label, threshold)
    if len(rows) < MIN_FORM_CELLS:
        return no_data(
            head,
            f"{len(rows)} {algorithm} cells; the form fit needs {MIN_FORM_CELLS}." + note,
            inputs,
            algorithm,
        )
    tab, fit = form_table(rows, confidence)
    worst, _ = factor_of(tab["ratio_low"], tab["ratio_high"])
    _, best_adj = factor_of(tab["ratio_low_adj"], tab["ratio_high_adj"])
    point, _ = factor_of(tab["ratio"], tab["ratio"])
    verdicts = [
        PASS if w <= factor else (FAIL if b > factor else INCONCLUSIVE)
        for w, b in zip(worst, best_adj, strict=True)
    ]
    cells = [
        {
            **cell_label(r),
            "mean": r["mean"],
            "fitted": r["fitted"],
            "ratio": r["ratio"],
            "ratio_low": r["ratio_low"],
            "ratio_high": r["ratio_high"],
            "verdict": v,
        }
        for r, v in zip(tab.to_dict("records"), verdicts, strict=True)
    ]
    fit_cell = {"kind": "fit", "a": fit["a"], "b": fit["b"], "c": fit["c"], "n": fit["n"]}
    summary = (
        f"Relative least squares over {len(tab)} {algorithm} cells: regret ~ {fmt(fit['a'])} "
        f"log K/gap + {fmt(fit['b'])} log K/eta + {fmt(fit['c'])}; regret/fit ranges over "
        f"[{fmt(tab['ratio'].min())}, {fmt(tab['ratio'].max())}] (required within a factor "
        f"{factor}); {verdicts.count(FAIL)} cell(s) outside." + note
    )
    return make_check(
        head,
        float(np.nanmax(point)),
        float(np.nanmax(best_adj)),
        float(np.nanmax(worst)),
        combine_verdicts(verdicts),
        summary,
        [fit_cell, *cells],
        inputs,
        algorithm,
    )


def check_form(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C4 check: :func:`check_rate_form` on the grid experiment."""
    return check_rate_form(
        stack(tables, C4.experiments),
        thresholds["rate_form_factor"],
        thresholds["confidence"],
        algorithm,
        inputs=inputs,
    )


# ----------------------------------------------------------------------------- exponents


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


def rate_ratio_table(df: pd.DataFrame) -> pd.DataFrame:
    """Final rows with ``ratio = regret / (log K/gap + log K/eps)`` and its standard error."""
    out = final_rows(df).copy()
    out["rate"] = bounds.rate(out["K"], out["gap"], out["epsilon"])
    out["ratio"] = out["mean"] / out["rate"]
    out["ratio_se"] = out["se"] / out["rate"]
    return out
