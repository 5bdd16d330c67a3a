"""Guards found by mutation testing of the simulation engine, its exact K = 2 reference and the
worst-case search (``make mutation GROUPS=engine``, docs/testing.md, round 3), with values
written out by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm

#: the 3 x 2 loss matrix of tests/test_mutants_engine_fresh.py: means (1/3, 2/3), gap 1/3
LOSSES = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])


@pytest.mark.parametrize("mode", ["fast", "explicit"])
def test_simulate_accepts_a_single_run(mode):
    """One run is a valid cell (runs >= 1) in both engines.  rps at eps = 1 (eta = 1/8) on the
    replayed losses to T = 3: A_0 uniform on B_0 = {1} (regret (1/3)/2 = 1/6), A_1 drawn from
    softmax(-eta S) with S = row 1 = (0, 1) (M_0 = 1) on B_1 = {2, 3}, so
    Reg_3 = 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8)) (Rao-Blackwellised charges, exact up to
    a few roundings)."""
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses

    res = simulate(
        make_algorithm("rps", 1.0), ReplayLosses(LOSSES), 3, 1, {"test": "one"}, mode=mode
    )
    x = math.exp(-0.125)
    assert res.regret.shape == (1, 2) and res.info == {"mode": mode, "chunks": 1}
    np.testing.assert_allclose(res.regret, [[1 / 6, 1 / 6 + 2 / 3 * x / (1 + x)]], rtol=1e-14)


@pytest.mark.parametrize("runs", [0, 1.5])
def test_simulate_refuses_a_bad_number_of_runs(runs):
    """Zero or fractional runs: the one-line InputError naming the field ``runs``."""
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses
    from privdtol.errors import InputError

    with pytest.raises(InputError) as err:
        simulate(make_algorithm("rps", 1.0), ReplayLosses(LOSSES), 3, runs, {"test": "bad"})
    assert str(err.value) == f"runs: got {runs} (allowed: integers >= 1)"


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


@pytest.mark.parametrize(
    ("name", "eps", "want"),
    [
        # rps at eps = 1 on LOSSES: Reg_3 = 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8)) (see above)
        ("rps", 1.0, 1 / 6 + 2 / 3 * math.exp(-0.125) / (1 + math.exp(-0.125))),
        # FTL on LOSSES[::-1] = [[1, 0], [0, 1], [0, 1]] (means (1/3, 2/3)): t = 1 a tie
        # (1/6), t = 2 leader action 2 after L_1 = (1, 0) (1/3), t = 3 a tie again (1/6)
        ("ftl", None, 1 / 6 + 1 / 3 + 1 / 6),
    ],
)
def test_explicit_engine_charges_every_chunk_of_rounds(monkeypatch, name, eps, want):
    """The per-round engine draws a block in chunks of ROUND_CHUNK_ELEMENTS / (runs K) rounds;
    with one round per chunk every round of B_1 = {2, 3} must still be charged, and the
    cumulative losses and block sums carried across the chunks: Reg_3 as computed by hand."""
    from privdtol.engine import explicit
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses

    monkeypatch.setattr(explicit, "ROUND_CHUNK_ELEMENTS", 1)
    losses = LOSSES if name == "rps" else LOSSES[::-1]
    res = simulate(
        make_algorithm(name, eps), ReplayLosses(losses), 3, 2, {"test": name}, mode="explicit"
    )
    np.testing.assert_allclose(res.regret, [[1 / 6, want]] * 2, rtol=1e-14)


def test_explicit_engine_resamples_each_loss_independently():
    """wu_wang_gumbel (eps = 2: softmax(-S), gap 1/2) on deterministic losses mu = (1/4, 3/4):
    A_0 is uniform on B_0 = {1} (regret 1/4; realised Delta_(A_0)), A_1 reads the block-0 sums
    after replacing each loss by an independent Bernoulli(mu_j) draw, S = (b_1, b_2), so
    Reg_3 = 1/4 + 2 (1/2) expit(-(b_2 - b_1)) takes one value per b_2 - b_1 in {-1, 0, 1},
    each with probability >= 3/16: over 400 runs all three appear (one shared draw would give
    every run the same sums, hence the same value)."""
    from scipy.special import expit

    from privdtol.engine.fast import simulate
    from privdtol.environments.deterministic import DeterministicLosses

    env = DeterministicLosses(np.array([0.25, 0.75]))
    alg = make_algorithm("wu_wang_gumbel", 2.0)
    res = simulate(alg, env, 3, 400, {"test": "resample"}, mode="explicit", keep_actions=True)
    want = 0.25 + expit(-np.array([1.0, 0.0, -1.0]))  # b_2 - b_1 = 1, 0, -1: ascending
    got = np.unique(res.regret[:, 1].round(14))
    np.testing.assert_allclose(got, want, rtol=1e-13)
    np.testing.assert_array_equal(res.regret[:, 0], 0.25)
    assert set(res.actions[:, 0]) == {0, 1}
    np.testing.assert_array_equal(res.regret_realized[:, 0], env.gaps[res.actions[:, 0]])


def _walk_mean(mu1: float, mu2: float, m: int, f) -> float:
    """E[f(D_m)], D_m = L_(m,2) - L_(m,1), by enumerating all 4^m pairs of Bernoulli losses
    (independent of the pmf propagation of privdtol.engine.exact_k2)."""
    pairs = [
        (x2 - x1, (mu1 if x1 else 1 - mu1) * (mu2 if x2 else 1 - mu2))
        for x1 in (0, 1)
        for x2 in (0, 1)
    ]
    return math.fsum(
        math.prod(p for _, p in seq) * f(sum(d for d, _ in seq))
        for seq in itertools.product(pairs, repeat=m)
    )


def _sigma(z: float) -> float:
    return 1 / (1 + math.exp(-z))


MU1, MU2, GAP = 0.25, 0.5, 0.25


@pytest.mark.parametrize("prefix", ["random", "full"])
def test_rps_k2_regret_is_the_block_sum_of_the_walk_expectations(prefix):
    """Reg_T at T = 1, 3, 7, 15 (Lemma 4's accounting with equality): Delta/2 for the uniform
    A_0, then block r+1 (2^(r+1) rounds) charged Delta E[sigma(-eta D_M)] averaged over its
    prefix M: M_0 = 1, M_1 = 2, M_2 uniform on {3, 4} ("random", Section 4) or 4 ("full")."""
    from support.exact_k2 import rps_regret_k2

    eta = 0.125
    e = [_walk_mean(MU1, MU2, m, lambda d: _sigma(-eta * d)) for m in range(5)]
    last = (e[3] + e[4]) / 2 if prefix == "random" else e[4]
    want = np.cumsum([GAP / 2, 2 * GAP * e[1], 4 * GAP * e[2], 8 * GAP * last])
    np.testing.assert_allclose(rps_regret_k2(MU1, MU2, eta, 4, prefix), want, rtol=1e-13)


@pytest.mark.parametrize("algorithm", ["ftl", "hedge"])
def test_round_k2_regret_sums_the_law_of_every_round(algorithm):
    """Reg_T = sum_(t <= T) Delta P(I_t = 2) at T = 1, 3, 7, with P(I_t = 2) = E[g(D_(t-1))]:
    FTL g(d) = 1 if d < 0, 1/2 if d = 0, else 0 (ties uniform); Decreasing Hedge
    g(d) = sigma(-eta_t d), eta_t = 2 sqrt(log 2 / t)."""
    from support.exact_k2 import round_regret_k2

    def g(t):
        if algorithm == "ftl":
            return lambda d: 1.0 if d < 0 else 0.5 if d == 0 else 0.0
        return lambda d: _sigma(-2 * math.sqrt(math.log(2) / t) * d)

    per_round = [GAP * _walk_mean(MU1, MU2, t - 1, g(t)) for t in range(1, 8)]
    want = np.cumsum(per_round)[[0, 2, 6]]
    np.testing.assert_allclose(round_regret_k2(MU1, MU2, 3, algorithm), want, rtol=1e-13)
    with pytest.raises(ValueError) as err:
        round_regret_k2(MU1, MU2, 3, "rps")
    assert str(err.value) == "algorithm must be 'ftl' or 'hedge', got 'rps'"
