"""Claim C7, Corollary 1 on both sides with explicit bounds: an algorithm's regret is within a
constant factor of what every ε-DP algorithm must pay, uniformly in K, Δ_min, ε **and T**.  The
upper side is Theorem 1 (C2); the lower side is LB_T (:mod:`privdtol.core.lower_bound`).  Θ(·)
says the ratio R = Reg_T/LB_T is bounded by a constant over every variable.  The rule is
:mod:`privdtol.analysis.boundedness`'s, on the table of R over every grid cell and checkpoint:

- the **level** sup R (ceiling ``optimality_ratio_max``, fixed in advance);
- the **growth** of R's envelope along log K, 1/Δ_min, 1/ε and T (slope in log log of the axis
  over its far half; threshold ``optimality_growth_max``).

PASS when the level's upper limit is at most the ceiling **and** every growth's upper limit is
at most the threshold; FAIL when, along some axis, the growth's lower limit is above the
threshold **and** the envelope at the axis's far end (its lower limit) is above the ceiling;
INCONCLUSIVE otherwise.  Both halves are needed: growth alone cannot tell a bounded ratio that
rises into its plateau from an unbounded one, and a rule that FAILs a ratio below the ceiling
would FAIL an algorithm better everywhere than one that PASSes.  The price is the rule's stated
limit: a growth that stays below the ceiling on the grid is INCONCLUSIVE, never FAIL (its power
against a √log K factor is measured on the battery).

Corollary 1 says *every* instance: the instances the worst-case searches found whose regret
exceeds the standard instance's at the same (K, Δ_min, ε) enter the level too, each over the
standard instance's LB_T at that (K, Δ_min, ε, T), the class's minimax bound
(:mod:`privdtol.analysis.found_instances` says why that bound and not the instance's own); the
record lists them.  They enter the level only: the growth stays on the grid, whose envelopes
are taken over the same instances at every axis value.

Intervals: exact cells carry no sampling error (the interval is the lower bound's certified
sandwich, and a found instance's regret its error bound); Monte Carlo cells their per-cell
limits (``ratio_low``, ``ratio_high`` of :func:`privdtol.analysis.price.price_table`).

A redesign made after results were seen (disclosed in :data:`privdtol.analysis.diagnosis.
DEVIATIONS`): the first design fitted exponents of log(Reg/LB) at the largest horizon only and
PASSed algorithms with linear regret.  The rule is shown on the battery of known truths
(:mod:`privdtol.analysis.battery`).  Negative control: ``rps_eta_logk`` (η/log₂ K, a log² K/ε
privacy term), whose ratio grows like log K.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis.boundedness import (  # noqa: F401 (re-exported for the tests)
    AXES,
    axis_cells,
    axis_scale,
    boundedness,
    growth,
    growth_parts,
)
from privdtol.analysis.cells import stack
from privdtol.analysis.claim_types import BOUNDS_TABLE, Claim, ClaimTeX
from privdtol.analysis.claims.c4_rate import COROLLARY1, COROLLARY1_TEX
from privdtol.analysis.found_instances import SEARCHES, WORST, found_cells
from privdtol.analysis.price import price_table
from privdtol.analysis.records import Heading, fmt, make_check, no_data, plain

RECORD = Claim(
    "C7",
    "Corollary 1, both sides: Reg_T/LB_T bounded over K, Delta_min, eps and T",
    "Corollary 1",
    COROLLARY1,
    "largest Reg_T/LB_T over every cell and checkpoint (level), and the growth of its envelope "
    "along log K, 1/Delta_min, 1/eps and T (slope in log log of the axis, far half); the "
    "level also over the instances the worst-case searches found above the standard instance",
    ("grid", BOUNDS_TABLE, WORST, SEARCHES),
    ("optimality_ratio_max", "optimality_growth_max"),
    f"{__name__}:check",
    "lower",
    ("rps_eta_logk",),
    rate=True,
    tex=ClaimTeX(
        r"Corollary~1, both sides: $\mathrm{Reg}_T/\mathrm{LB}_T$ bounded over $K$, "
        r"$\Delta_{\min}$, $\varepsilon$ and $T$",
        COROLLARY1_TEX,
        r"largest $\mathrm{Reg}_T/\mathrm{LB}_T$ over every cell and checkpoint (level), and the "
        r"growth of its envelope along $\log K$, $1/\Delta_{\min}$, $1/\varepsilon$ and $T$ "
        r"(slope in $\log\log$ of the axis, far half); the level also over the instances the "
        r"worst-case searches found above the standard instance",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id


def check_optimality(
    df: pd.DataFrame,
    ceiling: float,
    growth_max: float,
    algorithm: str = "rps",
    inputs=(),
    bounds: pd.DataFrame | None = None,
    found: pd.DataFrame | None = None,
) -> dict:
    """C7 on ``algorithm``'s cells of ``df`` at every checkpoint, with ``found`` (rows of
    :func:`privdtol.analysis.found_instances.found_cells`) in the level (module docstring)."""
    head = Heading(
        CLAIM,
        f"Reg_T/LB_T of {algorithm} bounded over log K, 1/gap, 1/eps and T",
        "largest Reg_T/LB_T (level, grid and found instances); growth of its envelope per axis "
        "(slope)",
        f"PASS: level <= {fmt(ceiling)} and every growth <= {fmt(growth_max)}; FAIL: along some "
        f"axis growth > {fmt(growth_max)} and the ratio at its far end > {fmt(ceiling)} "
        "(whole intervals)",
    )
    mine = df[df["algorithm"] == algorithm] if len(df) else df
    priced = price_table(mine, 0.95, bounds) if len(mine) else mine
    if len(priced):
        priced = priced[np.isfinite(priced["ratio"]) & (priced["ratio"] > 0)].reset_index(drop=True)
    if priced.empty or priced["K"].nunique() < 2:
        return no_data(head, f"Too few {algorithm} grid cells for the rule.", inputs, algorithm)
    searched = found is not None
    found = found if searched and len(found) else None
    rule = boundedness(priced, ceiling, growth_max, found)
    level, axes = rule["level"], rule["axes"]
    at = level["at"]
    lower = lower_side(priced)
    summary = (
        f"Over {priced[['K', 'gap', 'epsilon']].drop_duplicates().shape[0]} cells and "
        f"{len(priced)} (cell, checkpoint) pairs"
        + (f" and {len(found)} instances the searches found" if found is not None else "")
        + f", Reg_T/LB_T of {algorithm} is at most "
        f"{fmt(level['value'])} (K={fmt(at['K'])}, gap={fmt(at['gap'])}, "
        f"eps={fmt(at['epsilon'])}, T={fmt(at['horizon'])}); the growth of its envelope over "
        f"the far half of each axis is {growth_parts(axes)}. "
        f"{found_sentence(found, searched)} The lower side's own evidence: LB_T/(log K/gap + "
        "log K/eps) at the cells' largest horizon runs "
        f"from {fmt(lower['min'])} to {fmt(lower['max'])}."
    )
    worst = max(axes.values(), key=lambda g: g["upper"]) if axes else None
    record = make_check(
        head,
        level["value"],
        level["lower"],
        level["upper"],
        rule["verdict"],
        summary,
        axis_cells(axes, growth_max),
        inputs,
        algorithm,
    )
    growth_part = (
        {"largest": worst["slope"], "lower": worst["lower"], "upper": worst["upper"]}
        if worst
        else None
    )
    return {
        **record,
        "growth": plain(growth_part),
        "lower_side": plain(lower),
        "found_instances": found_records(found),
    }


def found_sentence(found: pd.DataFrame | None, searched: bool = True) -> str:
    """The summary's sentence on the instances the searches found (``searched``: whether the
    run has searches of this algorithm's class at all)."""
    if not searched:
        return "The run has no worst-case searches."
    if found is None:
        return (
            "No instance found by the worst-case searches has more regret than the standard "
            "instance at its (K, gap, eps)."
        )
    top = found.loc[found["ratio"].idxmax()]
    return (
        f"{len(found)} instances found by the worst-case searches have more regret than the "
        "standard instance at their (K, gap, eps) and enter the level over its LB_T (the "
        f"class's minimax bound); the largest, {fmt(top['ratio'])} (K={fmt(top['K'])}, "
        f"gap={fmt(top['gap'])}, eps={fmt(top['epsilon'])}, objective {top['objective']})."
    )


def found_records(found: pd.DataFrame | None) -> list[dict]:
    """The record's list of the found instances that entered the level."""
    if found is None:
        return []
    cols = ["K", "epsilon", "gap", "objective", "horizon", "ratio", "ratio_low", "ratio_high"]
    cols += ["regret", "standard_regret", "lb", "means"]
    return plain(found[cols].to_dict("records"))


def lower_side(priced: pd.DataFrame) -> dict:
    """The smallest and largest LB_T/(log K/Δ_min + log K/ε) over the cells at their largest
    horizon: how much of the rate the explicit lower bound certifies."""
    last = priced.loc[priced.groupby(["K", "gap", "epsilon"])["horizon"].idxmax()]
    lk = np.log(last["K"].to_numpy(float))
    rate = lk / last["gap"].to_numpy(float) + lk / last["epsilon"].to_numpy(float)
    share = last["lb"].to_numpy(float) / rate
    return {"min": float(share.min()), "max": float(share.max())}


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C7 check on the grid experiment, with the instances ``algorithm``'s
    worst-case searches found (when the run has searches)."""
    return check_optimality(
        stack(tables, ["grid"]),
        thresholds["optimality_ratio_max"],
        thresholds["optimality_growth_max"],
        algorithm,
        inputs,
        tables.get(BOUNDS_TABLE),
        found_cells(tables[SEARCHES], tables.get(WORST), algorithm) if SEARCHES in tables else None,
    )
