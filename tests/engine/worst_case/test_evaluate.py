"""Tests of :mod:`privdtol.engine.worst_case.evaluate`: an instance's regret (against an
independent K = 2 reference), its two ratios (Theorem 1's bound by hand, LB_T of the two-level
instance of the same mu_1), each instance computed once, the budget, the uncounted evaluations,
the trace and the accurate recomputation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.exact_k2 import rps_regret_k2

from privdtol.core.lower_bound import lower_bound
from privdtol.engine import exact
from privdtol.engine.worst_case.evaluate import (
    DEFAULT_HORIZON,
    OBJECTIVES,
    SEARCH_TOL,
    BudgetSpent,
    Evaluator,
    better,
    gain,
    value,
)

T = 1023  # 2^10 - 1: an exact evaluation is a few ms (rnm_ftnl) to tens of ms (rps)


def test_constants():
    assert DEFAULT_HORIZON == 2**40 - 1 and SEARCH_TOL == 1e-5
    assert OBJECTIVES == {
        "theorem1": ("theorem1", 1),
        "lower_max": ("lower", 1),
        "lower_min": ("lower", -1),
        "eq6": ("eq6", 1),
    }


def test_theorem1_ratio_is_the_regret_over_the_bound_by_hand():
    """K = 4, gap 1/4, eps = 1 (eta = 1/8): 1 + 800 log 4 / (1/4) + 16 log 4 / (1/8)
    = 1 + 3328 log 4."""
    ev = Evaluator("rnm_ftnl", 4, 0.25, 1.0, T)
    bound = 1 + 3328 * math.log(4)
    assert ev.theorem1 == pytest.approx(bound, rel=1e-15)
    e = ev.evaluate([0.375, 0.625, 0.8, 1.0], "x", "free")
    assert e["ratios"]["theorem1"] == pytest.approx(e["regret"] / bound, rel=1e-15)


def test_theorem1_bound_at_a_small_epsilon_by_hand():
    """K = 3, gap 1/8, eps = 1/16 (eta = 1/32): 1 + 6400 log 3 + 512 log 3."""
    ev = Evaluator("rnm_ftnl", 3, 0.125, 0.0625, T)
    assert ev.theorem1 == pytest.approx(1 + 6912 * math.log(3), rel=1e-15)


def test_lower_ratio_is_the_regret_over_the_instances_own_lb():
    """The lower ratio's denominator is LB_T (best) of the instance itself, not of the
    two-level instance of the same mu_1 and Delta_min (which is larger: the spread actions
    are easier to rule out)."""
    from privdtol.core.lower_bound_means import lower_bound_means

    ev = Evaluator("rnm_ftnl", 4, 0.25, 1.0, T)
    means = [0.2, 0.45, 0.7, 0.95]
    lb = lower_bound_means(means, 1.0, [T])
    assert lb["best"].iloc[0] < lower_bound(4, 0.45, 0.25, 1.0, [T])["best"].iloc[0]
    e = ev.evaluate(means, "x", "free")
    assert e["lower"] == lb["best"].iloc[0] and e["lower_error"] == lb["best_error"].iloc[0]
    assert e["ratios"]["lower"] == pytest.approx(e["regret"] / e["lower"], rel=1e-15)
    assert e["lower"] > 0


def test_regret_against_an_independent_k2_reference():
    """rps at K = 2 (eps = 1, eta = 1/8), means (3/8, 5/8), T = 2^10 - 1: the pmf propagation of
    support.exact_k2 against the evaluation at the search's tolerance and the accurate one,
    each within its own error bound (and a float rounding allowance of 1e-12).  The search's
    tolerance is the error wanted of each block relative to the regret so far, so the bound of
    the whole may exceed it a little (here 1.9e-6 relative)."""
    ref = rps_regret_k2(0.375, 0.625, 0.125, 10)[-1]
    ev = Evaluator("rps", 2, 0.25, 1.0, T)
    ranked = ev.evaluate([0.375, 0.625], "x", "standard")
    assert ranked["tol"] == SEARCH_TOL and ranked["error_bound"] <= 4 * SEARCH_TOL * ref
    assert abs(ranked["regret"] - ref) <= ranked["error_bound"] + 1e-12 * ref
    accurate = ev.accurate(ranked)
    assert accurate["tol"] is None and accurate["error_bound"] <= 1e-9 * ref
    assert abs(accurate["regret"] - ref) <= accurate["error_bound"] + 1e-12 * ref
    assert ref == pytest.approx(23.773171791, rel=1e-10)


def test_regret_is_the_exact_engine_at_the_search_tolerance_and_horizon():
    ev = Evaluator("rnm_ftnl", 3, 0.125, 0.5, 255)
    e = ev.evaluate([0.3, 0.425, 0.9], "x", "free")
    (reg,), (err,) = exact.expected_regret("rnm_ftnl", [0.3, 0.425, 0.9], 0.5, [255], tol=1e-6)
    assert (e["regret"], e["error_bound"]) == (reg, err)


def _spy(monkeypatch):
    """Record the tolerance of every call of the exact engine (the real engine answers)."""
    calls, real = [], exact.expected_regret

    def spy(*args, **kw):
        calls.append(kw.get("tol"))
        return real(*args, **kw)

    monkeypatch.setattr(exact, "expected_regret", spy)
    return calls


def test_each_instance_is_computed_once(monkeypatch):
    calls = _spy(monkeypatch)
    ev = Evaluator("rnm_ftnl", 3, 0.25, 1.0, T)
    first = ev.evaluate([0.375, 0.625, 0.625], "standard", "standard")
    again = ev.evaluate(np.array([0.375, 0.625 + 1e-17, 0.625]), "sweep", "other")
    assert again is first and first["phase"] == "standard" and first["family"] == "standard"
    assert calls == [SEARCH_TOL] and ev.count == 1 and len(ev.trace) == 1
    ev.evaluate([0.375, 0.625, 0.75], "scan", "two_level(1)")
    assert calls == [SEARCH_TOL] * 2 and ev.count == 2 and len(ev.trace) == 2


def test_lb_is_the_instances_own_bound_computed_once(monkeypatch):
    import privdtol.core.lower_bound_means as lbm

    seen, real = [], lbm.lower_bound_means_columns

    def spy(means, *args, **kw):
        seen.append(tuple(means))
        return real(means, *args, **kw)

    monkeypatch.setattr(lbm, "lower_bound_means_columns", spy)
    ev = Evaluator("rnm_ftnl", 3, 0.25, 1.0, T)
    for top in (0.625, 0.9, 0.625):
        ev.evaluate([0.375, 0.625, top], "x", "free")
    assert seen == [(0.375, 0.625, 0.625), (0.375, 0.625, 0.9)]
    # a two-level instance: the two-level bound, the columns without the DataFrame
    table = lower_bound(3, 0.625, 0.25, 1.0, [T])
    two = ev.lower([0.375, 0.625, 0.625])
    assert two == pytest.approx((table["best"].iloc[0], table["best_error"].iloc[0]), rel=1e-12)
    # a spread instance: its own bound, smaller (the third action is easier to rule out)
    spread = lbm.lower_bound_means([0.375, 0.625, 0.9], 1.0, [T])
    assert ev.lower([0.375, 0.625, 0.9])[0] == spread["best"].iloc[0] < two[0]


def test_the_budget_counts_new_instances_only():
    ev = Evaluator("rnm_ftnl", 3, 0.25, 1.0, T)
    ev.budget = 2
    a = ev.evaluate([0.375, 0.625, 0.625], "p", "f")
    ev.evaluate([0.375, 0.625, 0.75], "p", "f")
    with pytest.raises(BudgetSpent):
        ev.evaluate([0.375, 0.625, 0.875], "p", "f")
    assert ev.evaluate([0.375, 0.625, 0.625], "p", "f") is a  # known: no budget needed
    assert ev.count == 2 and len(ev.trace) == 2
    # an uncounted evaluation is computed beyond the budget, gets a row, does not count
    u = ev.evaluate([0.375, 0.625, 0.875], "unseen", "free", counted=False)
    assert ev.count == 2 and len(ev.trace) == 3 and u["evaluation"] == 3
    assert u["phase"] == "unseen"


def test_trace_rows():
    ev = Evaluator("rnm_ftnl", 3, 0.25, 1.0, T)
    means = [0.1, 0.35, 1 / 3 + 0.5]
    e = ev.evaluate(means, "scan", "two_level(1)")
    ev.evaluate([0.375, 0.625, 0.625], "standard", "standard")
    assert [r["evaluation"] for r in ev.trace] == [1, 2]
    row = ev.trace[0]
    assert list(row) == [
        *("evaluation", "phase", "family", "regret", "lower_bound", "theorem1", "lower"),
        "means",
    ]
    assert (row["phase"], row["family"]) == ("scan", "two_level(1)")
    assert row["regret"] == e["regret"] and row["lower_bound"] == e["lower"]
    assert row["theorem1"] == e["ratios"]["theorem1"] and row["lower"] == e["ratios"]["lower"]
    assert [float(v) for v in row["means"].split()] == means  # %.17g: exact


def test_accurate_recomputes_at_the_engines_default(monkeypatch):
    calls = _spy(monkeypatch)
    ev = Evaluator("rnm_ftnl", 3, 0.25, 1.0, T)
    e = ev.evaluate([0.375, 0.625, 0.8], "scan", "free")
    acc = ev.accurate(e)
    assert calls == [SEARCH_TOL, None]
    assert (acc["phase"], acc["family"], acc["evaluation"]) == ("scan", "free", 1)
    assert acc["error_bound"] <= e["error_bound"] and acc["lower"] == e["lower"]
    assert abs(acc["regret"] - e["regret"]) <= acc["error_bound"] + e["error_bound"]
    assert acc["ratios"]["theorem1"] == pytest.approx(acc["regret"] / ev.theorem1, rel=1e-15)
    assert len(ev.trace) == 1 and ev.count == 1  # not a new evaluation


def test_value_and_better():
    entry = {"ratios": {"theorem1": 0.25, "lower": 40.0}}
    assert value(entry, "theorem1") == 0.25
    assert value(entry, "lower_max") == value(entry, "lower_min") == 40.0
    assert better(2.0, 1.0, "theorem1") and better(2.0, 1.0, "lower_max")
    assert better(1.0, 2.0, "lower_min") and not better(2.0, 1.0, "lower_min")
    assert not any(better(1.0, 1.0, o) for o in OBJECTIVES)  # strictly


def test_gain_is_relative_and_signed_by_the_objective():
    """A minimised objective gains when the value falls: 2 against 4 is a gain of 1/2."""
    assert gain(2.0, 4.0, "lower_min") == 0.5
    assert gain(6.0, 4.0, "lower_max") == 0.5
    assert gain(0.75, 1.0, "theorem1") == -0.25
