"""Claim C7, Corollary 1 on both sides with explicit bounds: an algorithm's regret is within a
constant factor of what every ε-DP algorithm must pay, uniformly in K, Δ_min, ε **and T**.  The
upper side is Theorem 1 (C2); the lower side is LB_T (:mod:`privdtol.core.lower_bound`).  Θ(·)
says the ratio R = Reg_T/LB_T is bounded by a constant over every variable.  On a finite grid a
bounded ratio and a slowly growing one differ only in how R behaves at the grid's far end, so
the rule reads two statistics of the table of R over every cell and checkpoint:

- the **level** sup R over the whole table (a bounded ratio has a constant: the rule needs one
  fixed in advance, ``optimality_ratio_max``);
- the **growth** along each axis a of (log K, 1/Δ_min, 1/ε, T): the envelope M_a(v) = the largest
  R over every other variable at axis value v, and the least-squares slope of log M_a on
  log log_2(1 + x_a) (x = K − 1, 1/Δ, 1/ε, T) over the far half of the axis's octaves
  log_2(1 + x_a) (at least three values).  A ratio growing like log x has slope 1 there, like
  √log x slope 1/2, a linear regret (R ∝ T) a slope of about ln T; a bounded ratio tends to
  slope 0.

PASS when the level's upper limit is at most the ceiling **and** every growth's upper limit is
at most ``optimality_growth_max``; FAIL when, along some axis, the growth's lower limit is above
the growth threshold **and** the envelope at the axis's far end (its lower limit) is above the
ceiling: the ratio grows and has left every constant the rule allows in the direction it grows;
INCONCLUSIVE otherwise.  Both halves are needed: growth alone cannot tell a bounded ratio that
rises into its plateau (a bounded ratio approaching its limit from below has a positive slope
on any finite grid) from an unbounded one, and a rule that FAILs a ratio below the ceiling would
FAIL an algorithm better everywhere than one that PASSes.  With the level in both halves the
verdict is monotone: if algorithm A's ratio is at most B's in every cell and checkpoint and B
PASSes, then A's envelope is below the ceiling everywhere and A cannot FAIL.  The price is the
rule's stated limit: a growth that stays below the ceiling on the grid is INCONCLUSIVE, never
FAIL (its power against a √log K factor is measured on the battery).

Intervals: exact cells carry no sampling error (the interval is the lower bound's certified
sandwich); Monte Carlo cells their per-cell limits (``ratio_low``, ``ratio_high`` of
:func:`privdtol.analysis.price.price_table`).  The envelope's limits are the envelopes of the
limits, and a slope's limits put each point at whichever end of its interval moves the slope
down (lower limit) or up (upper limit): no fit residual enters the interval.

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

from privdtol.analysis.cells import stack
from privdtol.analysis.claim_types import BOUNDS_TABLE, Claim, ClaimTeX
from privdtol.analysis.claims.c4_rate import COROLLARY1, COROLLARY1_TEX
from privdtol.analysis.price import price_table
from privdtol.analysis.records import Heading, fmt, make_check, no_data, plain
from privdtol.analysis.verdict import FAIL, INCONCLUSIVE, PASS

RECORD = Claim(
    "C7",
    "Corollary 1, both sides: Reg_T/LB_T bounded over K, Delta_min, eps and T",
    "Corollary 1",
    COROLLARY1,
    "largest Reg_T/LB_T over every cell and checkpoint (level), and the growth of its envelope "
    "along log K, 1/Delta_min, 1/eps and T (slope in log log of the axis, far half)",
    ("grid", BOUNDS_TABLE),
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
        r"(slope in $\log\log$ of the axis, far half)",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id
#: each axis: its name in the record and x(row) whose log_2(1 + x) is the axis's scale
AXES = {
    "log K": lambda d: d["K"].to_numpy(float) - 1.0,
    "1/gap": lambda d: 1.0 / d["gap"].to_numpy(float),
    "1/eps": lambda d: 1.0 / d["epsilon"].to_numpy(float),
    "T": lambda d: d["horizon"].to_numpy(float),
}
#: the fewest axis values a growth slope is fitted on
MIN_POINTS = 3


def axis_scale(x) -> np.ndarray:
    """log log_2(1 + x): a ratio growing like log x has slope 1 against it far out."""
    return np.log(np.log2(1.0 + np.asarray(x, dtype=float)))


def envelope(priced: pd.DataFrame, axis: str) -> pd.DataFrame:
    """``u`` (the axis's scale), ``ratio``, ``low``, ``high``: the largest ratio (and limits)
    over every other variable at each value of ``axis``, in increasing u."""
    d = pd.DataFrame(
        {
            "u": axis_scale(AXES[axis](priced)),
            "ratio": priced["ratio"].to_numpy(float),
            "low": priced["ratio_low"].to_numpy(float),
            "high": priced["ratio_high"].to_numpy(float),
        }
    )
    d = d[np.isfinite(d["u"])]
    return d.groupby("u", sort=True).max().reset_index()


def far_half(env: pd.DataFrame) -> pd.DataFrame:
    """The axis values in the far half of the axis's octaves log_2(1 + x) (at least
    :data:`MIN_POINTS` of them when the axis has that many)."""
    if len(env) <= MIN_POINTS:
        return env
    octaves = np.exp(env["u"])  # log_2(1 + x)
    far = env[octaves >= (octaves.iloc[0] + octaves.iloc[-1]) / 2]
    return far if len(far) >= MIN_POINTS else env.iloc[-MIN_POINTS:]


def growth(env: pd.DataFrame) -> dict | None:
    """The least-squares slope of log(envelope) on u over the far half, with limits that put
    each point at the end of its interval moving the slope down (lower) or up (upper)."""
    far = far_half(env)
    if len(far) < 2 or float(np.ptp(far["u"])) == 0.0:
        return None
    u = far["u"].to_numpy(float)
    w = (u - u.mean()) / float(((u - u.mean()) ** 2).sum())  # slope = sum(w * y)
    with np.errstate(divide="ignore"):
        y, lo, hi = (np.log(far[c].to_numpy(float)) for c in ("ratio", "low", "high"))
    lower = float(np.sum(np.where(w > 0, w * lo, w * hi)))
    upper = float(np.sum(np.where(w > 0, w * hi, w * lo)))
    return {
        "slope": float(np.sum(w * y)),
        "lower": lower,
        "upper": upper,
        "points": len(far),
        "far": float(far["ratio"].iloc[-1]),
        "far_low": float(far["low"].iloc[-1]),
    }


def boundedness(priced: pd.DataFrame, ceiling: float, growth_max: float) -> dict:
    """Level, growth per axis and the verdict of the module docstring's rule on ``priced``
    (rows of :func:`privdtol.analysis.price.price_table` with finite positive ratios)."""
    i = priced["ratio"].idxmax()
    level = {
        "value": float(priced.at[i, "ratio"]),
        "lower": float(priced["ratio_low"].max()),
        "upper": float(priced["ratio_high"].max()),
        "at": {c: plain(priced.at[i, c]) for c in ("K", "gap", "epsilon", "horizon")},
    }
    axes = {}
    for axis in AXES:
        env = envelope(priced, axis)
        g = growth(env) if len(env) >= 2 else None
        if g is not None:
            axes[axis] = g
    if not axes:
        return {"level": level, "axes": axes, "verdict": INCONCLUSIVE}
    if level["upper"] <= ceiling and all(g["upper"] <= growth_max for g in axes.values()):
        verdict = PASS
    elif any(g["lower"] > growth_max and g["far_low"] > ceiling for g in axes.values()):
        verdict = FAIL
    else:
        verdict = INCONCLUSIVE
    return {"level": level, "axes": axes, "verdict": verdict}


def check_optimality(
    df: pd.DataFrame,
    ceiling: float,
    growth_max: float,
    algorithm: str = "rps",
    inputs=(),
    bounds: pd.DataFrame | None = None,
) -> dict:
    """C7 on ``algorithm``'s cells of ``df`` at every checkpoint (module docstring)."""
    head = Heading(
        CLAIM,
        f"Reg_T/LB_T of {algorithm} bounded over log K, 1/gap, 1/eps and T",
        "largest Reg_T/LB_T (level); growth of its envelope per axis (slope)",
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
    rule = boundedness(priced, ceiling, growth_max)
    level, axes = rule["level"], rule["axes"]
    parts = "; ".join(
        f"{a}: {fmt(g['slope'])} [{fmt(g['lower'])}, {fmt(g['upper'])}]" for a, g in axes.items()
    )
    at = level["at"]
    lower = lower_side(priced)
    summary = (
        f"Over {priced[['K', 'gap', 'epsilon']].drop_duplicates().shape[0]} cells and "
        f"{len(priced)} (cell, checkpoint) pairs, Reg_T/LB_T of {algorithm} is at most "
        f"{fmt(level['value'])} (K={fmt(at['K'])}, gap={fmt(at['gap'])}, "
        f"eps={fmt(at['epsilon'])}, T={fmt(at['horizon'])}); the growth of its envelope over "
        f"the far half of each axis is {parts}. The lower side's own evidence: "
        f"LB_T/(log K/gap + log K/eps) at the cells' largest horizon runs from "
        f"{fmt(lower['min'])} to {fmt(lower['max'])}."
    )
    cells = [
        {
            "axis": a,
            "slope": g["slope"],
            "lower": g["lower"],
            "upper": g["upper"],
            "points": g["points"],
            "verdict": PASS
            if g["upper"] <= growth_max
            else FAIL
            if g["lower"] > growth_max
            else INCONCLUSIVE,
        }
        for a, g in axes.items()
    ]
    worst = max(axes.values(), key=lambda g: g["upper"])
    record = make_check(
        head,
        level["value"],
        level["lower"],
        level["upper"],
        rule["verdict"],
        summary,
        cells,
        inputs,
        algorithm,
    )
    growth_part = {"largest": worst["slope"], "lower": worst["lower"], "upper": worst["upper"]}
    return {**record, "growth": plain(growth_part), "lower_side": plain(lower)}


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
    """The registry's C7 check on the grid experiment."""
    return check_optimality(
        stack(tables, ["grid"]),
        thresholds["optimality_ratio_max"],
        thresholds["optimality_growth_max"],
        algorithm,
        inputs,
        tables.get(BOUNDS_TABLE),
    )
