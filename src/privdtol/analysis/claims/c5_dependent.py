"""Claim C5 (Section 3: the losses are i.i.d. across rounds, but the coordinates of a round's
loss vector may be dependent): Theorem 1 and the rate hold for dependent coordinates.

For each dependent loss model of the ``dependent`` experiment (correlated Bernoulli with a
shared shock, Beta) the check repeats C2
(:func:`~privdtol.analysis.claims.c2_theorem1.check_theorem1`) and, where the experiment has
enough grid points, C4a/C4b (:func:`~privdtol.analysis.claims.c4_rate.check_slope`); the
sub-verdicts combine as the decision rule of :mod:`privdtol.analysis.verdict` says.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis.cells import final_rows, select, series_keys, stack
from privdtol.analysis.claims.c2_theorem1 import check_theorem1
from privdtol.analysis.claims.c4_rate import N_POINTS, check_slope
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.registry import CLAIMS
from privdtol.analysis.verdict import combine_verdicts

CLAIM = "C5"
#: the dependent loss models checked
DEPENDENT_ENVS = ("correlated", "beta")


def check_dependent(
    df: pd.DataFrame,
    slope_range,
    confidence: float,
    n_points: int = N_POINTS,
    envs=DEPENDENT_ENVS,
    algorithm: str = "rps",
    inputs=(),
) -> dict:
    """C5: the C2 check (Theorem 1 bound) and, where the experiment has at least ``n_points``
    gaps (eps >= 1) or epsilons (gap = 1/2), the C4a/C4b slope checks, for each dependent loss
    model.  Sub-checks without enough grid points are listed as not applicable; Beta cells use
    their largest (short) horizon."""
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
            (
                "C2",
                env,
                check_theorem1(rows, confidence, algorithm, claim=f"C5/C2/{env}", note=note),
            )
        )
        fin = final_rows(rows)
        stat = fin[fin["epsilon"] >= 1]
        priv = fin[np.isclose(fin["gap"], 0.5)]
        for name, sub, axis, by, regime_name in (
            ("C4a", stat, "1/gap", "gap", "statistical"),
            ("C4b", priv, "1/eps", "epsilon", "privacy"),
        ):
            keys = series_keys(sub, ["K", "epsilon" if by == "gap" else "gap"])
            most = int(sub.groupby(keys, dropna=False)[by].nunique().max()) if len(sub) else 0
            if most >= n_points:
                subs.append(
                    (
                        name,
                        env,
                        check_slope(
                            rows,
                            f"C5/{name}/{env}",
                            axis,
                            slope_range,
                            confidence,
                            n_points,
                            algorithm,
                            env,
                            None,
                            regime_name,
                            note=note,
                        ),
                    )
                )
            else:
                skipped.append(
                    f"{name}[{env}] not applicable (at most {most} distinct {by} "
                    f"values in the {regime_name} regime, {n_points} needed)"
                )
    title = "Dependent losses: Theorem 1 and the rate hold for correlated and Beta losses"
    label = "max over dependent cells of regret / Theorem-1 bound"
    threshold = "every applicable sub-check (C2, C4a, C4b) PASSes"
    head = Heading(CLAIM, title, label, threshold)
    if not subs:
        return no_data(head, "No dependent-loss cells in the input.", inputs)
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
    summary = (
        f"Sub-checks: {applied}; largest regret/bound ratio {fmt(stat)}."
        + (" " + "; ".join(skipped) + "." if skipped else "")
        + (
            " Beta cells use their largest (short) horizon."
            if "beta" in {e for _, e, _ in subs}
            else ""
        )
    )
    cells += [
        {
            "sub_check": x.split("[")[0],
            "env": x.split("[")[1].split("]")[0],
            "verdict": "NOT APPLICABLE",
            "summary": x,
        }
        for x in skipped
    ]
    return make_check(head, stat, lo, hi, verdict, summary, cells, inputs)


def check(tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str]) -> dict:
    """The registry's C5 check: :func:`check_dependent` with ``slope_range`` and ``confidence``."""
    return check_dependent(
        stack(tables, CLAIMS[CLAIM].experiments),
        thresholds["slope_range"],
        thresholds["confidence"],
        N_POINTS,
        inputs=inputs,
    )
