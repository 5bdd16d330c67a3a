"""The decision rule shared by every claim check: from a statistic's confidence interval to a
verdict.  Nothing else: the fits are in :mod:`privdtol.analysis.stats`, the check records in
:mod:`privdtol.analysis.records`, the claims in :mod:`privdtol.analysis.claims`.

Decision rule (the same for every claim):

- the claim is an inequality or an interval for a statistic with a confidence interval (e.g.
  Theorem 1, eq. (1): ``Reg_T <= 1 + 800 log K/Δ + 16 log K/η``; Corollary 1: the rate
  ``Θ(log K/Δ + log K/ε)``, tested as log-log slopes in a range);
- **PASS** if the whole interval satisfies it, **FAIL** if the whole interval violates it,
  **INCONCLUSIVE** if the interval straddles a threshold or the data are insufficient
  (:func:`interval_verdict`, :func:`upper_verdict`);
- a claim over many cells ("in every cell") PASSes if every cell PASSes, FAILs if some cell
  FAILs, and is INCONCLUSIVE otherwise (:func:`combine_verdicts`).  For such claims, per-cell
  intervals for PASS are at the nominal ``confidence`` (an intersection-union test needs no
  multiplicity correction), while the interval used to declare a FAIL is Bonferroni-widened
  over the cells (:func:`bonferroni_confidence`), so that a FAIL is not a multiple-testing
  artefact.

Intervals are normal, from the Monte-Carlo standard errors (see :mod:`privdtol.analysis.stats`),
unless a claim's module says otherwise (the plateau ratio of C3 has paired or exact intervals; exact
numbers, hence no interval, for the privacy audit of C1).  The confidence level and every
other threshold come from the config's ``checks:`` block, whose defaults live only in the
JSON schema (``privdtol/pipeline/config.schema.yaml``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
#: every verdict a check record may carry
VERDICTS = (PASS, FAIL, INCONCLUSIVE)


def interval_verdict(low: float, high: float, lo: float, hi: float) -> str:
    """Verdict for "the statistic lies in [lo, hi]" given its interval [low, high]: PASS if
    the interval is inside, FAIL if it is disjoint, INCONCLUSIVE if it straddles a limit or is
    not finite."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return INCONCLUSIVE
    if lo <= low and high <= hi:
        return PASS
    if high < lo or low > hi:
        return FAIL
    return INCONCLUSIVE


def upper_verdict(low: float, high: float, threshold: float) -> str:
    """Verdict for "the statistic is at most ``threshold``"."""
    return interval_verdict(low, high, -math.inf, threshold)


def combine_verdicts(verdicts: Iterable[str]) -> str:
    """All PASS → PASS; any FAIL → FAIL; otherwise (or no verdicts) INCONCLUSIVE."""
    verdicts = list(verdicts)
    if not verdicts:
        return INCONCLUSIVE
    if FAIL in verdicts:
        return FAIL
    return PASS if all(v == PASS for v in verdicts) else INCONCLUSIVE


def bonferroni_confidence(confidence: float, n: int) -> float:
    """Per-test confidence so that ``n`` intervals hold jointly with ``confidence``."""
    return 1 - (1 - confidence) / max(int(n), 1)
