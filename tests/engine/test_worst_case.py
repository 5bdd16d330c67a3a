"""Tests of :mod:`privdtol.engine.worst_case`: the search for the instance of largest regret
over Theorem 1's bound (or Lemma 5's), its families of instances, its budget, seed and polishing,
ranking at the search tolerance and reporting the best accurately; the ``worst-case`` command
line."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.engine_laws import U
from support.exact_k2 import deterministic_regret_k2
from support.proof_reference import deterministic_sum_f

from privdtol.engine.exact import expected_regret
from privdtol.engine.worst_case import (
    FAMILIES,
    Objective,
    means_of,
    n_params,
    search,
    standard_params,
)
from privdtol.environments import instance_means


@pytest.mark.parametrize(
    "K, gap, budget", [(1, 0.25, 10), (2, 0.0, 10), (2, 1.0, 10), (2, 0.25, 3)]
)
def test_search_refuses_degenerate_input_in_one_sentence(K, gap, budget):
    """K >= 2, 0 < gap < 1 and budget >= 4, each boundary refused."""
    with pytest.raises(ValueError, match=r"^need K >= 2, 0 < gap < 1 and budget >= 4$"):
        search("rps", K, gap, 1.0, budget=budget, horizon=7)


def test_family_for_switches_from_free_to_spread_above_free_max_k():
    from privdtol.engine.worst_case import FREE_MAX_K, family_for

    assert FREE_MAX_K == 8
    assert family_for(2) == "free" and family_for(8) == "free"
    assert family_for(9) == "spread" and family_for(64) == "spread"
    assert family_for(64, "levels") == "levels"
    with pytest.raises(ValueError, match=r"family 'nope' not in \('free', 'levels', 'spread'\)"):
        family_for(3, "nope")


def test_search_with_a_small_budget_evaluates_the_initial_population_only():
    """K = 3 (family free, d = 2 parameters), budget 8: a population of max(5, d + 1) = 5,
    differential evolution's share max(5, int(0.75 * 8) - 1) = 5, so maxiter = 5 // 5 - 1 = 0
    generations after the initial population; the budget left, 8 - 1 - 5 = 2, is below the
    2 (d + 1) = 6 that polishing needs.  Evaluations: the standard instance, the 5 members of
    the population (the first of which is the standard instance again), the best one:
    7 evaluations of 5 distinct instances.  The record names its inputs under their own keys
    (read by pipeline.worst_case.searches_table)."""
    from privdtol.engine.worst_case import search

    result, trace = search("rps", 3, 0.25, 1, budget=8, seed=0, horizon=3)
    assert list(result) == [
        *("algorithm", "K", "gap", "epsilon", "env", "objective", "family", "seed", "budget"),
        *("horizon", "means", "gaps", "value", "bound", "standard", "evaluations"),
        *("distinct_instances", "note", "regret", "error_bound"),
    ]
    inputs = ("rps", 3, 0.25, 1.0, "bernoulli", "theorem1", "free", 0, 8, 3)
    assert tuple(result.values())[:10] == inputs and type(result["epsilon"]) is float
    assert result["evaluations"] == 7 and len(trace) == 7
    assert result["distinct_instances"] == 5
    assert trace[0]["means"] == trace[1]["means"]


def test_search_polishes_exactly_when_two_evaluations_per_parameter_are_left():
    """K = 2 ('free': d = 1, population 5).  budget 9: DE budget max(5, int(6.75) - 1) = 5,
    maxiter 0, so 1 + 5 evaluations are spent and 3 < 2 (d + 1) are left: no polishing, one
    final evaluation, 7 in all.  budget 10: DE budget 6, still maxiter 0, 4 = 2 (d + 1) left:
    L-BFGS-B runs (its first value and a finite difference at least), 9 or more."""
    kw = dict(seed=0, horizon=63)
    low, trace = search("rps", 2, 0.25, 1.0, budget=9, **kw)
    assert low["evaluations"] == 7 == len(trace)
    high, _ = search("rps", 2, 0.25, 1.0, budget=10, **kw)
    assert high["evaluations"] >= 9


def test_search_record_of_a_minimal_search():
    """budget 4 (the least): K = 2, 'auto' family 'free'; the record names its inputs, its gaps
    are means - mu_1, the standard instance is (3/8, 5/8) (mu_1 = 1/2 - gap/2), the value is
    the ratio regret / bound and at least the standard's, and the note says what it is."""
    r, trace = search("rps", 2, 0.25, 1.0, budget=4, seed=5, horizon=7)
    assert {k: r[k] for k in ("algorithm", "K", "gap", "epsilon", "env", "objective")} == {
        "algorithm": "rps", "K": 2, "gap": 0.25, "epsilon": 1.0, "env": "bernoulli",
        "objective": "theorem1",
    }  # fmt: skip
    assert (r["family"], r["seed"], r["budget"], r["horizon"]) == ("free", 5, 4, 7)
    assert r["standard"]["means"] == [0.375, 0.625]
    assert r["gaps"] == [r["means"][1] - r["means"][0]] and r["gaps"][0] >= 0.25 - 1e-15
    assert r["value"] == r["regret"] / r["bound"] and r["value"] >= r["standard"]["value"]
    assert r["note"] == "the largest value found by the search, not a supremum"
    assert r["evaluations"] == len(trace) and 1 <= r["distinct_instances"] <= len(trace)
    assert 0 <= r["error_bound"] < 1e-6 * r["regret"]


def _fake_regret(algorithm, means, epsilon, horizons, env="bernoulli", tol=None):
    """An exact engine by hand: Reg = 10 mu_2 (fast, and different on every instance)."""
    return np.array([10.0 * float(means[1])]), np.array([0.0])


def test_search_draws_its_initial_population_from_its_seed(monkeypatch):
    """K = 2 ('free' family: the one parameter x_0, population 5): after the standard
    instance (1/4, 3/4), differential evolution evaluates its initial population, the standard
    parameters and the 4 draws of default_rng(seed).random((4, 1)), in order, mapped to means
    by hand: mu_1 = x_0 (1 - gap), mu_2 = mu_1 + gap."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret)
    gap = 0.5
    _, trace = search("rps", 2, gap, 1.0, budget=8, seed=7, horizon=1000, env="deterministic")
    mu1 = np.random.default_rng(7).random((4, 1))[:, 0] * (1 - gap)
    seen = np.array([[float(v) for v in t["means"].split()] for t in trace])  # %.17g: exact
    assert seen[:2].tolist() == [[0.25, 0.75]] * 2  # the standard instance, then x0
    np.testing.assert_allclose(seen[2:6], np.stack([mu1, mu1 + gap], axis=1), rtol=0, atol=2e-16)


def test_search_record_names_its_budget(monkeypatch):
    """The search's record carries the budget it was given (the findings read it)."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret)
    res, _ = search("rps", 2, 0.5, 1.0, budget=8, seed=7, horizon=1000, env="deterministic")
    assert res["budget"] == 8 and res["seed"] == 7 and res["horizon"] == 1000


def _fake_regret_ranking(accurate: float):
    """An exact engine by hand: Reg = 2 at the standard instance (1/4, 3/4), else 3 at the
    search's tolerance and ``accurate`` at the engine's default (what a re-computation of a
    candidate ranked at the search tolerance may give)."""

    def fake(algorithm, means, epsilon, horizons, env="bernoulli", tol=None):
        if np.allclose(means, [0.25, 0.75], rtol=0, atol=1e-15):
            value = 2.0
        else:
            value = 3.0 if tol is not None else accurate
        return np.array([value]), np.array([0.0])

    return fake


@pytest.mark.parametrize(("accurate", "standard_wins"), [(1.0, True), (2.5, False)])
def test_search_reranks_the_accurate_best_against_the_standard_instance(
    monkeypatch, accurate, standard_wins
):
    """Differential evolution ranks candidates at the search tolerance (all 3 here); the best,
    computed again accurately, is reported unless the standard instance (2) is larger: 1.0
    loses to it, 2.5 does not. Theorem 1's bound at K = 2, gap 1/2, eps = 1 by hand:
    1 + 800 log 2 / (1/2) + 16 log 2 / (1/8) = 1 + 1728 log 2."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret_ranking(accurate))
    res, trace = search("rps", 2, 0.5, 1.0, budget=4, horizon=1000, env="deterministic")
    bound = 1 + 1728 * math.log(2)
    assert res["bound"] == pytest.approx(bound, rel=1e-15)
    assert res["standard"] == {"means": [0.25, 0.75], "value": 2.0 / res["bound"]}
    assert max(t["ratio"] for t in trace) == 3.0 / res["bound"]  # ranked at the search tol
    want = 2.0 if standard_wins else accurate
    assert res["regret"] == want and res["value"] == want / res["bound"]
    assert (res["means"] == [0.25, 0.75]) is standard_wins


def test_the_search_ranks_at_1e_6_and_reports_its_best_accurately(monkeypatch):
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    calls, real = [], exact.expected_regret

    def spy(*args, **kw):
        calls.append(kw.get("tol"))
        return real(*args, **kw)

    monkeypatch.setattr(exact, "expected_regret", spy)
    res, _ = search("rps", 2, 0.5, 1.0, budget=4, horizon=1000, env="deterministic")
    assert calls[0] is None  # the standard instance, at the engine's default accuracy
    ranked = [t for t in calls[1:] if t is not None]
    assert ranked and set(ranked) == {1e-6}
    assert calls[-1] is None  # the best one, computed again accurately
    assert np.isfinite(res["value"])


def test_objective_recomputes_a_search_tolerance_value_accurately(monkeypatch):
    """An instance cached at the search tolerance is computed again when the engine's default
    is asked for (and that accurate value then serves both), never the other way round."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import Objective

    calls, real = [], exact.expected_regret

    def spy(*args, **kw):
        calls.append(kw)
        return real(*args, **kw)

    monkeypatch.setattr(exact, "expected_regret", spy)
    f = Objective("rps", 2, 0.5, 1.0, "theorem1", "free", 1000, "deterministic")
    means = np.array([0.25, 0.75])
    f.tol = 1e-6
    assert f.at(means)["tol"] == 1e-6
    f.tol = None
    accurate = f.at(means)
    assert accurate["tol"] is None
    f.tol = 1e-6
    assert f.at(means) is accurate
    assert calls == [{"tol": 1e-6}, {}]
    reg = deterministic_regret_k2(1000, 0.5, ETA)[0]
    assert abs(accurate["value"] - reg) <= accurate["error_bound"] + 64 * U * reg


def test_the_search_ranks_at_its_tolerance_and_reports_an_accurate_regret():
    """Differential evolution ranks with regrets to SEARCH_TOL (each within its own rigorous
    bound of the accurate value); the instance reported is computed to the default again."""
    from privdtol.engine.exact import expected_regret
    from privdtol.engine.worst_case import SEARCH_TOL, search

    means = [0.4, 0.5, 0.55, 0.9]
    (fast,), (fast_err,) = expected_regret("rps", means, 0.5, [2**20 - 1], tol=SEARCH_TOL)
    (exact,), (exact_err,) = expected_regret("rps", means, 0.5, [2**20 - 1])
    assert exact_err < 1e-8 * exact and exact_err < fast_err < SEARCH_TOL * fast
    assert abs(fast - exact) <= fast_err + exact_err
    result, trace = search("rps", 4, 0.1, 0.5, budget=12, seed=3, horizon=2**20 - 1)
    (again,), (again_err,) = expected_regret("rps", result["means"], 0.5, [2**20 - 1])
    assert result["regret"] == again and result["error_bound"] == again_err
    assert result["value"] >= result["standard"]["value"] and len(trace) == result["evaluations"]


ETA = 0.125  # rps at eps = 1: eta = min(eps/2, 1/8)


def test_lemma5_search_reports_the_regret_at_its_horizon():
    """A lemma5 search (K = 2, gap 1/2, deterministic: every instance has the same laws) reports
    sum_m F_m and, besides, Reg_T at its horizon T = 1000, both against the closed forms;
    Lemma 5's bound by hand: 200 log 2 / (1/2) + 4 log 2 / (1/8) = 432 log 2."""
    from privdtol.engine.worst_case import search

    res, _ = search(
        "rps", 2, 0.5, 1.0, objective="lemma5", budget=4, horizon=1000, env="deterministic"
    )
    sum_f = float(deterministic_sum_f([0.0, 0.5], ETA)[1])
    assert abs(res["sum_F"] - sum_f) <= res["sum_F_error_bound"] <= 1e-7 * sum_f
    assert res["bound"] == pytest.approx(432 * math.log(2), rel=1e-15)
    assert res["value"] == res["sum_F"] / res["bound"]
    reg = deterministic_regret_k2(1000, 0.5, ETA)[0]
    assert abs(res["regret"] - reg) <= res["error_bound"] + 64 * U * reg


T = (1 << 10) - 1  # short horizon: every evaluation is a few milliseconds


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("K", [3, 8, 16])
def test_every_family_contains_the_standard_instance(family, K):
    if family == "free" and K > 8:
        pytest.skip("the free family is for K <= 8")
    means = means_of(standard_params(K, 0.125, family), K, 0.125, family)
    np.testing.assert_allclose(means, instance_means(K, 0.125, None, "standard"), atol=1e-15)


def test_spread_contains_the_staircase_and_keeps_one_action_at_the_gap():
    K, gap = 10, 0.0625
    x = np.array([(0.5 - gap / 2) / (1 - gap), 0.0, 1 / (K - 2), 1.0])
    np.testing.assert_allclose(
        means_of(x, K, gap, "spread"), instance_means(K, gap, None, "staircase"), atol=1e-12
    )
    rng = np.random.default_rng(3)
    for family in FAMILIES:
        for x in rng.random((20, n_params(K if family != "free" else 6, family))):
            k = K if family != "free" else 6
            m = means_of(x, k, gap, family)
            assert m.size == k and m.min() >= 0 and m.max() <= 1 and np.all(np.diff(m) >= 0)
            assert m[1] - m[0] == pytest.approx(gap, abs=1e-15)


def _dense_max(f, grid_1d, d):
    """Largest objective over a d-dimensional grid, then over a finer grid around its best
    point."""
    axes = [grid_1d] * d
    best_v, best_x = -np.inf, None
    for x in np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(axes), -1).T:
        v = f.evaluate(x)["ratio"]
        if v > best_v:
            best_v, best_x = v, x
    step = grid_1d[1] - grid_1d[0]
    fine = [np.clip(np.linspace(c - step, c + step, 9), 0, 1) for c in best_x]
    for x in np.array(np.meshgrid(*fine, indexing="ij")).reshape(len(fine), -1).T:
        best_v = max(best_v, f.evaluate(x)["ratio"])
    return best_v


@pytest.mark.slow
@pytest.mark.parametrize(("K", "family", "points"), [(2, "free", 41), (8, "levels", 13)])
def test_search_maximum_agrees_with_a_dense_grid(K, family, points):
    gap, eps = 0.25, 1.0
    result, trace = search("rps", K, gap, eps, "theorem1", family, budget=40, seed=1, horizon=T)
    grid = Objective("rps", K, gap, eps, "theorem1", family, T, "bernoulli")
    dense = _dense_max(grid, np.linspace(0, 1, points), n_params(K, family))
    assert result["value"] >= dense * (1 - 1e-6), (result["value"], dense)
    assert result["value"] >= result["standard"]["value"]
    assert len(trace) == result["evaluations"] and result["evaluations"] <= 40 + 2
    # the value is the exact regret of the instance reported, over Theorem 1's bound
    reg, _ = expected_regret("rps", np.array(result["means"]), eps, [T])
    assert result["regret"] == pytest.approx(float(reg[0]), rel=1e-12)
    assert result["value"] == pytest.approx(result["regret"] / result["bound"], rel=1e-12)


def test_rate_min_minimises_and_never_exceeds_the_standard():
    r, _ = search("rps", 4, 0.25, 0.0625, "rate_min", "free", budget=20, seed=0, horizon=T)
    assert r["value"] <= r["standard"]["value"]
