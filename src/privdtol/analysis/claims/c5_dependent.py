"""Claim C5 (Section 1, on Theorem 1: "our proof only uses independence across time. Thus it
applies to i.i.d. loss vectors with arbitrary dependence among coordinates within each round").

For each dependent loss model of the ``dependent`` experiment (correlated Bernoulli with a
shared shock, Beta) the check repeats C2's bound
(:func:`~privdtol.analysis.claims.c2_theorem1.check_theorem1`) and C4's form check
(:func:`~privdtol.analysis.claims.c4_rate.check_rate_form`, every cell within
``rate_form_factor`` of the fitted ``a log K/gap + b log K/eta + c``, pooled over the model's
parameters); a form sub-check with fewer than four cells is listed as not applicable.  The
sub-verdicts combine as the decision rule of :mod:`privdtol.analysis.verdict` says.  Negative
control: ``uniform`` (linear regret) must FAIL the bound.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.cells import final_rows, select, stack
from privdtol.analysis.claims.c2_theorem1 import check_theorem1
from privdtol.analysis.claims.c4_rate import MIN_FORM_CELLS, check_rate_form
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.registry import CLAIMS
from privdtol.analysis.verdict import combine_verdicts

CLAIM = "C5"
#: the dependent loss models checked
DEPENDENT_ENVS = ("correlated", "beta")


def check_dependent(
    df: pd.DataFrame,
    factor: float,
    confidence: float,
    envs=DEPENDENT_ENVS,
    algorithm: str = "rps",
    inputs=(),
) -> dict:
    """C5: C2's bound and C4's form check for each dependent loss model (see the module
    docstring).  Beta cells use their largest (short) horizon."""
    subs, skipped = [], []
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
        n = len(final_rows(rows).drop_duplicates(["K", "gap", "epsilon", "rho", "kappa"]))
        if n >= MIN_FORM_CELLS:
            sub = check_rate_form(
                rows, factor, confidence, algorithm, env, None, f"C5/C4/{env}", note=note
            )
            subs.append(("C4", env, sub))
        else:
            skipped.append(f"C4[{env}] not applicable ({n} cells, {MIN_FORM_CELLS} needed)")
    title = "Dependent losses: Theorem 1's bound and the rate form for correlated and Beta losses"
    label = "max over dependent cells of regret / Theorem-1 bound"
    threshold = f"every sub-check (C2 bound, C4 form within a factor {factor}) PASSes"
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
    summary = f"{algorithm}: sub-checks {applied}; largest regret/bound ratio {fmt(stat)}." + (
        " " + "; ".join(skipped) + "." if skipped else ""
    )
    cells += [{"sub_check": "C4", "verdict": "NOT APPLICABLE", "summary": x} for x in skipped]
    return make_check(head, stat, lo, hi, verdict, summary, cells, inputs, algorithm)


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C5 check: :func:`check_dependent` with ``rate_form_factor``."""
    return check_dependent(
        stack(tables, CLAIMS[CLAIM].experiments),
        thresholds["rate_form_factor"],
        thresholds["confidence"],
        algorithm=algorithm,
        inputs=inputs,
    )
