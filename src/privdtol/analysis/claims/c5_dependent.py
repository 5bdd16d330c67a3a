"""Claim C5 (Section 1, on Theorem 1: "our proof only uses independence across time. Thus it
applies to i.i.d. loss vectors with arbitrary dependence among coordinates within each round").

For each dependent loss model of the ``dependent`` experiment (correlated Bernoulli with a
shared shock, Beta) the check repeats C2's bound
(:func:`~privdtol.analysis.claims.c2_theorem1.check_theorem1`) in every cell and at every
checkpoint horizon; the sub-verdicts combine as the decision rule of
:mod:`privdtol.analysis.verdict` says.  The correlated model covers positive dependence (a
comonotone shared shock, rho > 0) and negative dependence between the best action and the others
(an antithetic shock, rho < 0), the kind that makes X_j - X_1 more variable.

Negative controls: ``uniform`` (linear regret) must FAIL; and ``blocked``, rps itself on losses
repeated over each dyadic block (:mod:`privdtol.environments.blocked`), a process that breaks
the one assumption the proof uses, independence across time: the check must FAIL on it too.

What the remark claims is the *upper bound* (the proof of Theorem 1); Corollary 1's Θ rests on a
lower bound for the product model only, so the rate's form and exponents are not claims for
dependent losses (with a perfectly shared shock, rho = 1, the statistical term vanishes and the
regret does not grow with 1/gap at all).  They are measured as a finding
(:func:`privdtol.analysis.findings.dependent_rate`); the first design also held C4's form on
these cells (:data:`privdtol.analysis.diagnosis.DEVIATIONS`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.cells import select, stack
from privdtol.analysis.claim_types import ENV_CONTROLS, Claim, ClaimTeX
from privdtol.analysis.claims.c2_theorem1 import check_theorem1
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import combine_verdicts

RECORD = Claim(
    "C5",
    "Theorem 1's bound holds for dependent coordinates",
    "Section 1 (Contributions), on Theorem 1",
    "Although the open problem is stated for the usual product-over-actions stochastic "
    "model, our proof only uses independence across time. Thus it applies to i.i.d. "
    "loss vectors with arbitrary dependence among coordinates within each round; the "
    "product-over-actions model is a special case.",
    "largest regret / Theorem-1 bound over the correlated (positive and negative "
    "dependence) and Beta cells and their checkpoint horizons (upper confidence limit)",
    ("dependent",),
    ("confidence",),
    f"{__name__}:check",
    "dependent",
    ("uniform", "blocked"),
    tex=ClaimTeX(
        r"Theorem 1's bound holds for dependent coordinates",
        r"Although the open problem is stated for the usual product-over-actions stochastic "
        r"model, our proof only uses independence across time. Thus it applies to i.i.d. loss "
        r"vectors with arbitrary dependence among coordinates within each round; the "
        r"product-over-actions model is a special case.",
        r"largest regret/bound over the correlated (positive and negative dependence) and "
        r"Beta cells and their checkpoint horizons (upper confidence limit)",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id
#: the dependent loss models checked
DEPENDENT_ENVS = ("correlated", "beta")


def check_dependent(
    df: pd.DataFrame,
    confidence: float,
    envs=DEPENDENT_ENVS,
    algorithm: str = "rps",
    inputs=(),
) -> dict:
    """C5: C2's bound for each dependent loss model (see the module docstring).  Beta cells
    use their largest (short) horizon."""
    subs = []
    for env in envs:
        rows = select(df, algorithm, env)
        if rows.empty:
            continue
        note = (
            " Beta cells stop at a short horizon; their largest available horizon is used."
            if env == "beta"
            else ""
        )
        subs.append(
            ("C2", env, check_theorem1(rows, confidence, algorithm, f"C5/C2/{env}", note=note))
        )
    title = f"Dependent losses: Theorem 1's bound for {', '.join(envs)} losses"
    label = "max over dependent cells of regret / Theorem-1 bound"
    threshold = f"C2's bound (upper {confidence:.0%} limit <= 1) in every cell of every model"
    head = Heading(CLAIM, title, label, threshold)
    if not subs:
        return no_data(
            head, f"No dependent-loss {algorithm} cells in the input.", inputs, algorithm
        )
    cells = [
        {
            "sub_check": name,
            "env": env,
            "verdict": c["verdict"],
            "statistic": c["statistic"],
            "ci_low": c["ci_low"],
            "ci_high": c["ci_high"],
            "threshold": c["threshold"],
            "summary": c["summary"],
        }
        for name, env, c in subs
    ]
    c2 = [c for name, _, c in subs if name == "C2" and c["statistic"] is not None]
    stat = max((c["statistic"] for c in c2), default=None)
    lo = max((c["ci_low"] for c in c2 if c["ci_low"] is not None), default=None)
    hi = max((c["ci_high"] for c in c2 if c["ci_high"] is not None), default=None)
    verdict = combine_verdicts(c["verdict"] for c in cells)
    applied = ", ".join(f"{c['sub_check']}[{c['env']}]={c['verdict']}" for c in cells)
    summary = f"{algorithm}: sub-checks {applied}; largest regret/bound ratio {fmt(stat)}."
    return make_check(head, stat, lo, hi, verdict, summary, cells, inputs, algorithm)


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C5 check: :func:`check_dependent` at the config's ``confidence``; with
    ``algorithm`` a loss model of :data:`~privdtol.analysis.registry.ENV_CONTROLS` (the
    control ``blocked``), rps on that loss model instead of on the dependent ones."""
    envs = DEPENDENT_ENVS
    if algorithm in ENV_CONTROLS:
        envs, algorithm = (algorithm,), "rps"
    return check_dependent(
        stack(tables, RECORD.experiments),
        thresholds["confidence"],
        envs=envs,
        algorithm=algorithm,
        inputs=inputs,
    )
