"""The claims of the cited works, checked like the paper's: each prior algorithm's regret over
the shape of its own published bound stays bounded over the run's grid.

Cesari & Colomboni (Section 2) state the prior upper bounds without their constants:
Hu et al. 2021's RNM-FTNL (``rnm_ftnl``) "matches the statistical term but can pay an
additional log T factor in the privacy term", i.e. Reg_T = O(log K/Δ_min + log K log T/ε); Wu &
Wang 2026 (``wu_wang``, Laplace noise, and ``wu_wang_gumbel``, Gumbel noise) obtained
O(log K/Δ_min + log² K/ε).  Neither constant is in the paper's text, so the claim checked is
the O(·) itself: Reg_T over the bound's shape (:func:`privdtol.analysis.separation.shapes`,
natural logarithms, log T read as log max(T, 2)) is bounded over every cell and checkpoint of
the experiments read, by the rule of :mod:`privdtol.analysis.boundedness` (the one C7 applies
to Reg_T/LB_T) with the ceiling ``cited_ratio_max`` fixed in the config before these checks
were first run, and the growth threshold ``cited_growth_max`` (C7's value).

These are claims of the cited works, not of this paper (:attr:`~privdtol.analysis.claim_types.
Claim.cited`): they are shown in their own table, out of the paper's count.  A PASS says the
measured regret is consistent with the cited bound on the grid; it says nothing of the cited
bound's constant, nor of whether its extra factor binds (the finding ``separation`` asks that).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.boundedness import axis_cells, boundedness, growth_parts
from privdtol.analysis.cells import dedupe_cells, select, stack
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.separation import shapes
from privdtol.analysis.verdict import bonferroni_confidence

#: the experiments whose standard cells the claims read (the rate grid; the separation
#: experiment's long horizons and large K)
EXPERIMENTS = ("grid", "separation")
#: the thresholds the claims declare
THRESHOLDS = ("cited_ratio_max", "cited_growth_max", "confidence")
#: each prior algorithm and the variants its authors' bound covers (checked together: the
#: bound is claimed of each, so of the largest ratio over them)
VARIANTS = {"wu_wang": ("wu_wang", "wu_wang_gumbel")}


def shape_ratios(
    df: pd.DataFrame, shape: str, algorithms, confidence: float = 0.95
) -> pd.DataFrame:
    """The standard Bernoulli rows of ``algorithms`` in ``df`` (every checkpoint; a cell run
    by two experiments once) with the shape's value and ``ratio`` = regret/shape and its limits
    (exact cells: none; Monte Carlo: the normal interval, the upper end Bonferroni-widened over
    the rows, as :func:`privdtol.analysis.price.price_table` does)."""
    rows = select(df, list(algorithms), "bernoulli", "standard") if len(df) else df
    if rows.empty:
        return rows
    rows = dedupe_cells(rows)
    value = shapes(rows["K"], rows["gap"], rows["epsilon"], rows["horizon"])[shape]
    se = rows["se"].fillna(0.0).to_numpy(float)
    low, _ = stats.normal_ci(rows["mean"], se, confidence)
    _, high = stats.normal_ci(rows["mean"], se, bonferroni_confidence(confidence, len(rows)))
    out = rows[["algorithm", "K", "gap", "epsilon", "horizon", "mean"]].copy()
    out["shape"] = value
    out["ratio"] = out["mean"] / value
    out["ratio_low"] = np.maximum(low, 0.0) / value
    out["ratio_high"] = high / value
    keep = np.isfinite(out["ratio"]) & (out["ratio"] > 0)
    return out[keep].reset_index(drop=True)


def check_prior_bound(
    tables,
    thresholds: dict,
    inputs,
    algorithm: str,
    *,
    claim: str,
    shape: str,
    shape_words: str,
) -> dict:
    """The claim ``claim`` of a cited work on ``algorithm`` (with its :data:`VARIANTS`): its
    regret over the shape ``shape`` bounded over the grid (module docstring)."""
    ceiling, growth_max = thresholds["cited_ratio_max"], thresholds["cited_growth_max"]
    algorithms = VARIANTS.get(algorithm, (algorithm,))
    head = Heading(
        claim,
        f"Reg_T/({shape_words}) of {' and '.join(algorithms)} bounded over the grid",
        f"largest Reg_T/({shape_words}) (level); growth of its envelope per axis (slope)",
        f"PASS: level <= {fmt(ceiling)} and every growth <= {fmt(growth_max)}; FAIL: along some "
        f"axis growth > {fmt(growth_max)} and the ratio at its far end > {fmt(ceiling)} "
        "(whole intervals)",
    )
    ratios = shape_ratios(
        stack(tables, list(EXPERIMENTS)), shape, algorithms, thresholds["confidence"]
    )
    if ratios.empty or ratios["K"].nunique() < 2:
        return no_data(head, f"Too few {algorithm} cells for the rule.", inputs, algorithm)
    rule = boundedness(ratios, ceiling, growth_max)
    level, axes, at = rule["level"], rule["axes"], rule["level"]["at"]
    where = ratios.loc[ratios["ratio"].idxmax(), "algorithm"]
    summary = (
        f"Over {ratios[['algorithm', 'K', 'gap', 'epsilon']].drop_duplicates().shape[0]} cells "
        f"and {len(ratios)} (cell, checkpoint) pairs, Reg_T/({shape_words}) of "
        f"{' and '.join(algorithms)} is at most {fmt(level['value'])} ({where}, K={fmt(at['K'])}, "
        f"gap={fmt(at['gap'])}, eps={fmt(at['epsilon'])}, T={fmt(at['horizon'])}); the growth "
        f"of its envelope over the far half of each axis is {growth_parts(axes)}. The cited "
        "work's constant is not in the paper's text: the ceiling is the run's, fixed in the "
        "config before these checks were first run."
    )
    return make_check(
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
