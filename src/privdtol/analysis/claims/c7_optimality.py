"""Claim C7, Corollary 1 on both sides with explicit bounds: RPS's regret is within a constant
factor of what every ε-DP algorithm must pay, uniformly over the grid.  The upper side is
Theorem 1 (C2); the lower side is LB_T (C6, :mod:`privdtol.core.lower_bound`).  Θ(·) says the
ratio Reg/LB_T is bounded above by a constant; on a finite grid that is tested as "no upward
trend": the least-squares fit

    log(Reg/LB) = c + a log log K + b log(1/Δ_min) + d log(1/ε)

over the grid experiment's RPS cells at their largest horizon (both sides have stopped growing
there) must have every exponent's upper confidence limit (Student t from the residuals: the
values are exact, the interval is the fit's lack of fit) at most ``optimality_exponent_max``.
FAIL when one exponent's lower limit (Bonferroni over the three) is above it.

The threshold is 0: "no upward trend", as the statement says (a disclosed change: it was 0.5,
halfway to an algorithm off by one factor of the rate's variables, until the control was seen
INCONCLUSIVE there; :data:`privdtol.analysis.diagnosis.DEVIATIONS`).  Negative control:
``rps_eta_logk`` (η/log₂ K, a log² K/ε privacy term, the shape of Wu & Wang's bound), whose
ratio grows like log K.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import cell_label, stack
from privdtol.analysis.claim_types import BOUNDS_TABLE, Claim, ClaimTeX
from privdtol.analysis.claims.c4_rate import COROLLARY1, COROLLARY1_TEX
from privdtol.analysis.price import final_prices, price_table
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import bonferroni_confidence, combine_verdicts, upper_verdict

RECORD = Claim(
    "C7",
    "Corollary 1, both sides: Reg_T/LB_T has no upward trend",
    "Corollary 1",
    COROLLARY1,
    "largest exponent of log K, 1/Delta_min, 1/eps in a fit of log(Reg/LB) (upper "
    "confidence limit)",
    ("grid", BOUNDS_TABLE),
    ("confidence", "optimality_exponent_max"),
    f"{__name__}:check",
    "lower",
    ("rps_eta_logk",),
    tex=ClaimTeX(
        r"Corollary~1, both sides: $\mathrm{Reg}_T/\mathrm{LB}_T$ has no upward trend",
        COROLLARY1_TEX,
        r"largest exponent of $\log K$, $1/\Delta_{\min}$, $1/\varepsilon$ in a fit of "
        r"$\log(\mathrm{Reg}/\mathrm{LB})$ (upper confidence limit)",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id
#: the fit's regressors, in the record's order
TERMS = ("log K", "1/gap", "1/eps")


def exponent_fit(final: pd.DataFrame, confidence: float) -> dict:
    """Least squares of log(ratio) on [1, log log K, log(1/gap), log(1/eps)]: each exponent with
    its standard error (residual variance, n - 4 degrees of freedom), its upper limit at
    ``confidence`` and its lower limit Bonferroni-widened over the three."""
    y = np.log(final["ratio"].to_numpy(float))
    X = np.column_stack(
        [
            np.ones(len(final)),
            np.log(np.log(final["K"].to_numpy(float))),
            -np.log(final["gap"].to_numpy(float)),
            -np.log(final["epsilon"].to_numpy(float)),
        ]
    )
    dof = len(y) - X.shape[1]
    if dof < 1 or np.linalg.matrix_rank(X) < X.shape[1]:
        return {"n": len(y), "dof": dof, "terms": []}
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ coef
    s2 = float(resid @ resid) / dof
    se = np.sqrt(np.diag(np.linalg.inv(X.T @ X)) * s2)
    t_up = stats.t_value(2 * confidence - 1, dof)  # one-sided upper limit at `confidence`
    t_low = stats.t_value(2 * bonferroni_confidence(confidence, 3) - 1, dof)
    terms = [
        {
            "term": name,
            "exponent": float(coef[k]),
            "se": float(se[k]),
            "upper": float(coef[k] + t_up * se[k]),
            "lower": float(coef[k] - t_low * se[k]),
        }
        for k, name in enumerate(TERMS, start=1)
    ]
    return {"n": len(y), "dof": dof, "residual_sd": float(np.sqrt(s2)), "terms": terms}


def check_optimality(
    df: pd.DataFrame,
    confidence: float,
    limit: float,
    algorithm: str = "rps",
    inputs=(),
    bounds: pd.DataFrame | None = None,
) -> dict:
    """C7 on ``algorithm``'s grid cells (see the module docstring)."""
    head = Heading(
        CLAIM,
        f"Reg/LB_T of {algorithm} has no upward trend in log K, 1/gap, 1/eps",
        "largest fitted exponent of log(Reg/LB) (upper limit)",
        f"every exponent's upper {confidence:.0%} limit <= {fmt(limit)} "
        f"(FAIL: some Bonferroni lower limit > {fmt(limit)})",
    )
    mine = df[df["algorithm"] == algorithm] if len(df) else df
    priced = price_table(mine, confidence, bounds) if len(mine) else mine
    final = final_prices(priced) if len(priced) else priced
    if len(final):
        final = final[np.isfinite(final["ratio"]) & (final["ratio"] > 0)]
    fit = exponent_fit(final, confidence) if len(final) else {"terms": []}
    if not fit["terms"]:
        return no_data(head, f"Too few {algorithm} grid cells for the fit.", inputs, algorithm)
    verdicts = [upper_verdict(t["lower"], t["upper"], limit) for t in fit["terms"]]
    worst = max(fit["terms"], key=lambda t: t["upper"])
    parts = ", ".join(
        f"{t['term']}: {fmt(t['exponent'])} [{fmt(t['lower'])}, {fmt(t['upper'])}]"
        for t in fit["terms"]
    )
    summary = (
        f"Over {len(final)} grid cells Reg/LB_T of {algorithm} ranges from "
        f"{fmt(final['ratio'].min())} to {fmt(final['ratio'].max())}; the fitted exponents "
        f"are {parts} (residual sd {fmt(fit['residual_sd'])} in log, {fit['dof']} degrees "
        "of freedom)."
    )
    cells = [
        {**cell_label(r), "ratio": r["ratio"], "regret": r["mean"], "lb": r["lb"]}
        for r in final.to_dict("records")
    ]
    return make_check(
        head,
        worst["exponent"],
        worst["lower"],
        worst["upper"],
        combine_verdicts(verdicts),
        summary,
        cells,
        inputs,
        algorithm,
    )


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C7 check on the grid experiment."""
    return check_optimality(
        stack(tables, ["grid"]),
        thresholds["confidence"],
        thresholds["optimality_exponent_max"],
        algorithm,
        inputs,
        tables.get(BOUNDS_TABLE),
    )
