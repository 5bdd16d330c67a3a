"""Whether a ratio is bounded over a grid: the rule of Corollary 1's Θ (Cesari & Colomboni,
Corollary 1), shared by claim C7 (Reg_T/LB_T, :mod:`privdtol.analysis.claims.c7_optimality`)
and by the claims of the cited works (Reg_T over each prior bound's shape,
:mod:`privdtol.analysis.prior_bounds`).  On a finite grid a bounded ratio and a slowly growing
one differ only in how the ratio R behaves at the grid's far end, so the rule reads two
statistics of the table of R over every cell and checkpoint:

- the **level** sup R over the whole table (a bounded ratio has a constant: the rule needs one
  fixed in advance, the ceiling);
- the **growth** along each axis a of (log K, 1/Δ_min, 1/ε, T): the envelope M_a(v) = the
  largest R over every other variable at axis value v, and the least-squares slope of log M_a
  on log log_2(1 + x_a) (x = K − 1, 1/Δ, 1/ε, T) over the far half of the axis's octaves
  log_2(1 + x_a) (at least three values).  A ratio growing like log x has slope 1 there, like
  √log x slope 1/2, a linear regret (R ∝ T) a slope of about ln T; a bounded ratio tends to
  slope 0.

PASS when the level's upper limit is at most the ceiling **and** every growth's upper limit is
at most the growth threshold; FAIL when, along some axis, the growth's lower limit is above the
growth threshold **and** the envelope at the axis's far end (its lower limit) is above the
ceiling; INCONCLUSIVE otherwise.  With the level in both halves the verdict is monotone: a
ratio everywhere below one that PASSes cannot FAIL.

The table (``priced``) has columns K, gap, epsilon, horizon, ``ratio`` and its limits
``ratio_low``, ``ratio_high``.  The envelope's limits are the envelopes of the limits, and a
slope's limits put each point at whichever end of its interval moves the slope down (lower
limit) or up (upper limit): no fit residual enters the interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.analysis.records import plain
from privdtol.analysis.verdict import FAIL, INCONCLUSIVE, PASS

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


def level_of(priced: pd.DataFrame) -> dict:
    """The largest ratio of ``priced``, its limits (the largest limits) and where it is."""
    i = priced["ratio"].idxmax()
    return {
        "value": float(priced.at[i, "ratio"]),
        "lower": float(priced["ratio_low"].max()),
        "upper": float(priced["ratio_high"].max()),
        "at": {c: plain(priced.at[i, c]) for c in ("K", "gap", "epsilon", "horizon")},
    }


def boundedness(
    priced: pd.DataFrame, ceiling: float, growth_max: float, extra: pd.DataFrame | None = None
) -> dict:
    """Level, growth per axis and the verdict of the module docstring's rule on ``priced``
    (rows with finite positive ratios).  ``extra``: further rows (same columns) that enter the
    level only, not the envelopes (instances off the grid, e.g. those a worst-case search
    found: an envelope compares axis values only when each is taken over the same
    instances)."""
    both = priced if extra is None or extra.empty else pd.concat([priced, extra], ignore_index=True)
    level = level_of(both)
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


def axis_cells(axes: dict, growth_max: float) -> list[dict]:
    """The record's cells: one per axis, its slope, limits, points and the axis's verdict."""
    return [
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


def growth_parts(axes: dict) -> str:
    """``"log K: s [lo, hi]; ..."``: each axis's growth in words."""
    from privdtol.analysis.records import fmt

    return "; ".join(
        f"{a}: {fmt(g['slope'])} [{fmt(g['lower'])}, {fmt(g['upper'])}]" for a, g in axes.items()
    )
