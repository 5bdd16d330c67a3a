"""Tests of :mod:`privdtol.analysis.verdict`: the verdict of an interval against a range or an
upper threshold, the verdict of several checks together and the Bonferroni confidence."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.analysis import verdict
from privdtol.analysis import verdict as decision


@pytest.mark.parametrize(
    "low, high, verdict",
    [
        (0.9, 1.1, "PASS"),
        (1.3, 1.5, "FAIL"),
        (0.1, 0.5, "FAIL"),
        (0.7, 1.0, "INCONCLUSIVE"),
        (float("nan"), 1.0, "INCONCLUSIVE"),
    ],
)
def test_interval_verdict(low, high, verdict):
    assert decision.interval_verdict(low, high, 0.8, 1.2) == verdict


def test_combine_verdicts():
    assert decision.combine_verdicts(["PASS", "PASS"]) == "PASS"
    assert decision.combine_verdicts(["PASS", "INCONCLUSIVE"]) == "INCONCLUSIVE"
    assert decision.combine_verdicts(["INCONCLUSIVE", "FAIL"]) == "FAIL"
    assert decision.combine_verdicts([]) == "INCONCLUSIVE"


@pytest.mark.parametrize(
    ("low", "high", "lo", "hi"),
    [
        (2.0, np.inf, 0.0, 1.0),  # above the range, upper end infinite
        (-np.inf, 0.5, -np.inf, 1.0),  # upper_verdict's form: lower end -inf, below 1
        (np.nan, 0.5, 0.0, 1.0),
    ],
)
def test_an_interval_with_one_end_not_finite_is_inconclusive(low, high, lo, hi):
    """The decision rule (analysis/verdict.py): an interval that is not finite gives
    INCONCLUSIVE, even when its finite end lies beyond a limit (a conservative rule)."""
    assert verdict.interval_verdict(low, high, lo, hi) == verdict.INCONCLUSIVE


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (0.9, 1.2, "PASS"),  # high == hi: inside [lo, hi]
        (0.8, 1.0, "PASS"),  # low == lo: inside
        (0.8, 1.2, "PASS"),  # the interval is [lo, hi] itself
        (0.5, 0.8, "INCONCLUSIVE"),  # touches lo from below: not disjoint
        (1.2, 1.5, "INCONCLUSIVE"),  # touches hi from above: not disjoint
        (0.5, 0.7999999, "FAIL"),
        (1.2000001, 1.5, "FAIL"),
        (0.9, 1.2000001, "INCONCLUSIVE"),
        (0.7999999, 1.0, "INCONCLUSIVE"),
    ],
)
def test_interval_verdict_edges(low, high, expected):
    assert verdict.interval_verdict(low, high, 0.8, 1.2) == expected


def test_upper_verdict_edge():
    """ "At most 1": an upper limit of exactly 1 PASSes, a lower limit of exactly 1 does not
    FAIL."""
    assert verdict.upper_verdict(0.5, 1.0, 1.0) == "PASS"
    assert verdict.upper_verdict(1.0, 2.0, 1.0) == "INCONCLUSIVE"
    assert verdict.upper_verdict(1.0000001, 2.0, 1.0) == "FAIL"


def test_bonferroni_confidence_by_hand():
    assert verdict.bonferroni_confidence(0.95, 20) == pytest.approx(0.9975, rel=1e-12)
    assert verdict.bonferroni_confidence(0.95, 1) == 0.95
    assert verdict.bonferroni_confidence(0.95, 0) == 0.95
