"""Guards found by a second fresh mutation sample of the engine (``make mutation GROUPS=engine``,
docs/testing.md): the proof terms' drift and error bounds, the exact engine's instance checks
and single-group law, the cell spec's generated means and the worst-case search's record.
Expected values are closed forms written out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_mutants_engine_fresh import _fake_regret

U = 2.0**-53


def test_drift_at_a_small_temperature_matches_the_hand_potential():
    """The drift inequality E log Z_(m+1) - E log Z_m + (eta/4) E V_m <= 0 (Lemma 5's proof),
    rps at eps = 0.01 (eta = 0.005), deterministic means (0.2, 0.7): Delta = 0.5 > 4 eta, so
    the one other action is large-gap; x_m = e^(-eta m Delta), log Z_m = log(1 + x_m), V_m =
    Delta x_m / (1 + x_m). At this eta even m = 4096 has x_m ~ 4e-5: every m's gap is far
    above the error bound, so the maximum is the hand maximum."""
    from privdtol.engine.exact.proof import DRIFT_MS, _drift

    eta, delta = 0.005, 0.5

    def lz(m):
        return math.log1p(math.exp(-eta * m * delta))

    def gap(m):
        x = math.exp(-eta * m * delta)
        return lz(m + 1) - lz(m) + eta / 4 * delta * x / (1 + x)

    drift = _drift("rps", [0.2, 0.7], 0.01, "deterministic", eta)
    want = max(DRIFT_MS, key=gap)
    assert want == 4096 and -1e-7 < gap(want) < -5e-8
    e = drift["error_bound"]
    assert 0 <= e <= 1e-12
    assert drift["at_m"] == want
    # (eta/5 in place of eta/4 would move the gap at m = 4096 by (eta/20) V_m ~ 4.5e-9)
    assert abs(drift["max_gap"] - gap(want)) <= e + 1e-15


def test_weighted_sum_error_counts_one_rounding_per_range():
    """_weighted: value = sum_(r, g) w_g S[r, g] + w . tail / 2; its error bound adds the
    laws' errors, half the tail and 4 U per range (rows of S) times the value. Three ranges,
    two groups, all numbers dyadic (exact): S @ w = (1, 0.75, 0.5), w . tail / 2 = 0.25, so
    value = 2.5; error = 0.125 + 0.25 + 4 U x 3 x 2.5."""
    from privdtol.engine.exact.proof import _weighted

    S = np.array([[0.5, 0.25], [0.25, 0.25], [0.0, 0.25]])
    E = np.array([[0.0, 0.0625], [0.0, 0.0], [0.0, 0.0]])
    tail = np.array([0.0, 0.25])
    w = np.array([1.0, 2.0])
    value, err = _weighted(S, E, tail, w)
    assert value == 2.25 + 0.25
    assert err == 0.125 + 0.25 + 4 * U * 3 * 2.5


def test_sum_terms_reports_the_drift_error_bound():
    """The record's error_bound carries the drift's error bound under "drift" (read by the
    proof table); deterministic (0.2, 0.9) at eps = 1: one large-gap action, so a drift."""
    from privdtol.engine.exact.proof import sum_terms

    terms = sum_terms("rps", [0.2, 0.9], 1.0, "deterministic")
    assert terms["drift"] is not None
    e = terms["error_bound"]
    assert set(e) == {"sum_F", "small_gap", "large_gap", "sum_V", "max_ratio_eq4", "drift"}
    assert e["drift"] == terms["drift"]["error_bound"] and 0 <= e["drift"] <= 1e-12


def test_spec_names_a_tied_best_action():
    from privdtol.engine.exact.spec import _Spec

    with pytest.raises(ValueError, match=r"^means: no unique best action$"):
        _Spec("rps", [0.2, 0.2, 0.5], 1.0, "bernoulli")


@pytest.mark.parametrize("algorithm", ["rnm_ftnl", "rps"])
def test_law_with_every_other_group_pruned_is_the_best_action(algorithm):
    """m = 5000 Bernoulli rounds, means (0.1, 0.9): the other group's Chernoff bound is below
    PRUNE = 1e-40, so it is dropped and the law is all on the best action (group 0)."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec(algorithm, [0.1, 0.9], 1.0, "bernoulli")
    assert not spec.kept(5000)[1]
    P, err = spec.law(5000)
    assert P.tolist() == [1.0, 0.0]
    assert 0 <= err[1] < 1e-40


def test_make_spec_generates_the_means_at_the_given_best_mean():
    """K = 3, gap 0.25, mu_best 0.125 (dyadic: exact): the standard instance (0.125, 0.375,
    0.375); without mu_best the default 1/2 - gap/2 = 0.375, others 0.625."""
    from privdtol.engine.runner import make_spec

    assert make_spec("rps", 1.0, 100, 2, K=3, gap=0.25, mu_best=0.125).means == (
        0.125,
        0.375,
        0.375,
    )
    assert make_spec("rps", 1.0, 100, 2, K=3, gap=0.25).means == (0.375, 0.625, 0.625)


def test_search_record_names_its_budget(monkeypatch):
    """The search's record carries the budget it was given (the findings read it)."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret)
    res, _ = search("rps", 2, 0.5, 1.0, budget=8, seed=7, horizon=1000, env="deterministic")
    assert res["budget"] == 8 and res["seed"] == 7 and res["horizon"] == 1000
