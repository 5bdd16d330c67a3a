"""Diagnostics C4a–C4c of Corollary 1's rate (not claims of the paper: Corollary 1 is a minimax
statement; C4 in :mod:`privdtol.analysis.claims.c4_rate` tests the form it implies on the grid):
the exponent of each term of Θ(log K/Δ + log K/ε) on one series of instances.

- **C4a** (:func:`check_gap`): the exponent p of ``(log K/gap)^p`` in the ``gap`` experiment
  (statistical regime), the privacy term and constant held at their fitted value;
- **C4b** (:func:`check_epsilon`): the exponent q of ``(log K/ε)^q`` in the ``epsilon``
  experiment over the cells with η = ε/2;
- **C4c** (:func:`check_log_k`): the exponent s of ``(log K)^s`` in each slice of the
  ``actions`` experiment (both terms are proportional to log K there, so the constant is held).

Each series: the other terms (constant within the series) are fitted as the offset B of
``A·x^p + B`` (:func:`privdtol.analysis.stats.offset_power_fit`), held at that value and
subtracted, and ``log(Reg − B)`` is regressed on ``log x``
(:func:`privdtol.analysis.stats.power_fit`: the interval comes from the residual scatter, t
quantile, or from the cells' errors if larger).  PASS if the interval lies inside
``exponent_range``, FAIL if it is disjoint.  Negative controls: ``ftl_egreedy`` (C4a),
``rps_eta_sq`` (C4b), ``rps_eta_logk`` (C4c).
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
    plateau_ratio,
    select,
    series_keys,
    stack,
)
from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.claims.c4_rate import _MINIMAX, COROLLARY1, COROLLARY1_TEX, form_columns
from privdtol.analysis.records import Heading, fmt, make_check, no_data, plain
from privdtol.analysis.verdict import (
    FAIL,
    INCONCLUSIVE,
    PASS,
    combine_verdicts,
    interval_verdict,
)

C4A = Claim(
    "C4a",
    "Linear in 1/Δ in the statistical regime",
    "Corollary 1",
    COROLLARY1,
    "exponent p of (log K/gap)^p, the privacy term held at its fitted value",
    ("gap",),
    ("confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"),
    f"{__name__}:check_gap",
    "rates",
    ("rps_short_prefix",),
    diagnostic=_MINIMAX,
    rate=True,
    tex=ClaimTeX(
        r"Linear in $1/\Delta_{\min}$ in the statistical regime",
        COROLLARY1_TEX,
        r"exponent $p$ of $(\log K/\Delta_{\min})^p$, the privacy term held at its fitted value",
    ),
)
C4B = Claim(
    "C4b",
    "Linear in 1/ε in the privacy regime",
    "Corollary 1",
    COROLLARY1,
    "exponent q of (log K/eps)^q over the cells with eta = eps/2, the statistical "
    "term held at its fitted value",
    ("epsilon",),
    ("confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"),
    f"{__name__}:check_epsilon",
    "rates",
    ("rps_eta_sq",),
    diagnostic=_MINIMAX,
    rate=True,
    tex=ClaimTeX(
        r"Linear in $1/\varepsilon$ in the privacy regime",
        COROLLARY1_TEX,
        r"exponent $q$ of $(\log K/\varepsilon)^q$ over the cells with $\eta = \varepsilon/2$, "
        r"the statistical term held at its fitted value",
    ),
)
C4C = Claim(
    "C4c",
    "Linear in log K, not log² K",
    "Corollary 1",
    COROLLARY1,
    "exponent s of (log K)^s in each regime, the other term held at its fitted value",
    ("actions",),
    ("confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"),
    f"{__name__}:check_log_k",
    "actions",
    ("rps_eta_logk",),
    diagnostic=_MINIMAX
    + "; and on this grid it cannot discriminate: on the standard instance the private "
    "competitors are linear in log K too (log^2 K is Wu & Wang's upper bound, not "
    "their algorithm's behaviour), so only the control built for it grows like "
    "log^2 K",
    rate=True,
    tex=ClaimTeX(
        r"Linear in $\log K$, not $\log^2 K$",
        COROLLARY1_TEX,
        r"exponent $s$ of $(\log K)^s$ in each regime, the other term held at its fitted value",
    ),
)
#: the diagnostics this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (C4A, C4B, C4C)

#: per exponent: the x of its term, the fitted terms held (the "other" terms), the columns
#: fixed within a series, and the words of the record
EXPONENTS = {
    "p": ("x_gap", ("x_eta", "const"), ("K", "epsilon"), "log K/gap", "statistical regime"),
    "q": ("x_eps", ("x_gap", "const"), ("K", "gap"), "log K/eps", "cells with eta = eps/2"),
    "s": ("logk", ("const",), ("gap", "epsilon"), "log K", "each regime of the actions slices"),
}


def exponent_series(
    rows: pd.DataFrame, which: str, confidence: float, group_cols: Sequence[str] | None = None
) -> list[dict]:
    """Per series of ``rows`` (final rows of one algorithm): the form fitted to the series, its
    "other" terms subtracted, and :func:`privdtol.analysis.stats.power_fit` of the rest against
    the exponent's x (see :data:`EXPONENTS`)."""
    xcol, others, base, _, _ = EXPONENTS[which]
    tab = form_columns(rows)
    keys = series_keys(tab, list(group_cols or base))
    out = []
    for key, g in tab.groupby(keys, dropna=False, sort=True):
        g = g.sort_values(xcol).reset_index(drop=True)
        fit = stats.form_fit(g["x_gap"], g["x_eta"], g["mean"])
        off = stats.offset_power_fit(g[xcol], g["mean"])
        if np.isfinite(off["B"]):
            other = off["B"]
        else:  # too few points for the offset fit: the linear form's other terms
            coef = {"x_gap": fit["a"], "x_eta": fit["b"], "const": fit["c"]}
            other = sum(coef[o] * (1.0 if o == "const" else g[o]) for o in others)
        rest = g["mean"] - other
        pf = stats.power_fit(g[xcol], rest, g["se"], confidence)
        key = key if isinstance(key, tuple) else (key,)
        out.append(
            {
                "exponent": which,
                **{col: plain(k) for col, k in zip(keys, key, strict=True)},
                "x": list(g[xcol]),
                "regret": list(g["mean"]),
                "other": list(np.broadcast_to(np.asarray(other, dtype=float), len(g))),
                "a": fit["a"],
                "b": fit["b"],
                "c": fit["c"],
                "n": pf["n"],
                "estimate": pf["slope"],
                "ci_low": pf["ci_low"],
                "ci_high": pf["ci_high"],
                "se_resid": pf["se_resid"],
                "se_meas": pf["se_meas"],
            }
        )
    return out


def check_exponent(
    df: pd.DataFrame,
    claim: str,
    which: str,
    exponent_range,
    confidence: float,
    algorithm: str = "rps",
    env="bernoulli",
    instance="standard",
    inputs=(),
    *,
    plateau: tuple[int, float] | None,
) -> dict:
    """C4a/C4b/C4c: the exponent ``which`` ('p', 'q' or 's') of every series has its interval
    inside ``exponent_range`` (PASS), or some series' interval is disjoint from it (FAIL).

    ``plateau = (octaves, ratio_max)`` (None: every cell): only cells whose regret has stopped
    growing by their largest horizon enter (:func:`~privdtol.analysis.cells.plateau_ratio`
    <= ratio_max); the rate is about sup_T Reg_T, which a cell still rising at T_max only
    bounds from below. The others are named in the summary."""
    lo, hi = (float(v) for v in exponent_range)
    _, _, _, xname, what = EXPONENTS[which]
    rows = dedupe_cells(final_rows(select(df, algorithm, env, instance)))
    rising = []
    if plateau is not None and len(rows):  # (octaves, ratio_max): sup_T Reg_T is seen
        rows = dedupe_cells(plateau_ratio(select(df, algorithm, env, instance), plateau[0]))
        flat = rows["plateau_ratio"] <= plateau[1]
        rising = [
            ", ".join(f"{k} {fmt(v)}" for k, v in cell_label(r).items() if k != "env")
            for _, r in rows[~flat].iterrows()
        ]
        rows = rows[flat].reset_index(drop=True)
    if which == "p" and len(rows):
        rows = rows[rows["epsilon"].isna() | (rows["epsilon"] > rows["gap"])]
    if which == "q" and len(rows):
        rows = rows[rows["epsilon"] / 2 <= 1 / 8]
    title = f"Rate: regret linear in {xname} ({what})"
    label = f"exponent {which} of ({xname})^{which}, other term held at its fitted value"
    threshold = f"{confidence:.0%} CI of {which} inside [{lo}, {hi}] in every series"
    head = Heading(claim, title, label, threshold)
    series = exponent_series(rows, which, confidence) if len(rows) else []
    for sr in series:
        sr["verdict"] = interval_verdict(sr["ci_low"], sr["ci_high"], lo, hi)
    usable = [sr for sr in series if np.isfinite(sr["estimate"])]
    if not usable:
        return no_data(
            head,
            f"No series of at least three {algorithm} cells in the {what}.",
            inputs,
            algorithm,
        )
    verdict = combine_verdicts(sr["verdict"] for sr in usable)
    order = {FAIL: 0, INCONCLUSIVE: 1, PASS: 2}
    decisive = min(
        usable,
        key=lambda sr: (order[sr["verdict"]], min(sr["ci_low"] - lo, hi - sr["ci_high"])),
    )
    parts = "; ".join(
        f"{fmt(sr['estimate'])} [{fmt(sr['ci_low'])}, {fmt(sr['ci_high'])}] over {sr['n']} cells"
        for sr in usable[:6]
    )
    summary = (
        f"{len(usable)} {algorithm} series ({what}); exponent {which}: {parts}"
        f"{' ...' if len(usable) > 6 else ''}; required inside [{lo}, {hi}]. Error model of the "
        f"interval: estimate +- t(n-2) max(lack-of-fit s.e., numerical s.e.), the lack-of-fit "
        f"s.e. from the residual scatter of the log-log fit about the power law, the numerical "
        f"s.e. from the cells' own errors (Monte Carlo s.e. or the exact engine's error bound); "
        f"in the decisive series they are {fmt(decisive['se_resid'])} and "
        f"{fmt(decisive['se_meas'])}."
    )
    if rising:
        summary += (
            f" Left out, regret still growing over the last {plateau[0]} octaves of T "
            f"(Reg(T_max)/Reg(T_max/2^{plateau[0]}) > {plateau[1]}): {len(rising)} cells"
            f" ({'; '.join(rising[:4])}{' ...' if len(rising) > 4 else ''})."
        )
    return make_check(
        head,
        decisive["estimate"],
        decisive["ci_low"],
        decisive["ci_high"],
        verdict,
        summary,
        series,
        inputs,
        algorithm,
    )


def check_gap(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C4a check: exponent p of 1/gap in the gap experiment."""
    return check_exponent(
        stack(tables, C4A.experiments),
        "C4a",
        "p",
        thresholds["exponent_range"],
        thresholds["confidence"],
        algorithm,
        inputs=inputs,
        plateau=(thresholds["plateau_octaves"], thresholds["horizon_free_ratio_max"]),
    )


def check_epsilon(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C4b check: exponent q of 1/eps in the epsilon experiment (eta = eps/2)."""
    return check_exponent(
        stack(tables, C4B.experiments),
        "C4b",
        "q",
        thresholds["exponent_range"],
        thresholds["confidence"],
        algorithm,
        inputs=inputs,
        plateau=(thresholds["plateau_octaves"], thresholds["horizon_free_ratio_max"]),
    )


def check_log_k(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C4c check: exponent s of log K in each slice of the actions experiment."""
    return check_exponent(
        stack(tables, C4C.experiments),
        "C4c",
        "s",
        thresholds["exponent_range"],
        thresholds["confidence"],
        algorithm,
        inputs=inputs,
        plateau=(thresholds["plateau_octaves"], thresholds["horizon_free_ratio_max"]),
    )


# ----------------------------------------------------------------------------- display helpers
