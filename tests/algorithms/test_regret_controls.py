"""Tests of :mod:`privdtol.algorithms.regret_controls`: the negative controls of the regret checks
(uniform play, FTL with eps_t-greedy exploration, rps with a slower eta or a short prefix), their
laws, their exploration regret and that the rate controls stay eps-DP (Lemma 3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from support.laws import N_DRAWS, SUMS, draws
from support.stats import P_MIN, assert_mean_close, chisquare_against

from privdtol.algorithms import ALGORITHMS, make_algorithm
from privdtol.algorithms.base import sample_from
from privdtol.algorithms.regret_controls import exploration_regret, short_prefix
from privdtol.engine.fast import simulate
from privdtol.environments import BernoulliProduct, standard_means


def test_ftl_egreedy_exploration_closed_form():
    gaps = np.array([0.0, 0.25, 0.5])
    for T in (1, 2, 3, 4, 17, 1000):
        direct = np.minimum(1.0, 3 / np.arange(1, T + 1)).sum() * gaps.mean()
        np.testing.assert_allclose(exploration_regret(3, gaps, T), direct, rtol=1e-12)


def test_ftl_egreedy_regret_grows_like_log_T():
    # the exploration part alone: sum_t min(1, K/t) mean(gap) ~ K mean(gap) (1 + ln(T/K))
    env = BernoulliProduct(standard_means(4, 0.25))
    key = {"test": "ftl_egreedy", "mode": "fast", "tag": 0}
    res = simulate(make_algorithm("ftl_egreedy", None), env, (1 << 30) - 1, 400, key, mode="fast")
    r20, r30 = res.regret[:, 19].mean(), res.regret[:, 29].mean()
    grow = exploration_regret(4, env.gaps, (1 << 30) - 1) - exploration_regret(
        4, env.gaps, (1 << 20) - 1
    )
    np.testing.assert_allclose(grow, 4 * env.gaps.mean() * 10 * np.log(2), rtol=1e-4)
    assert_mean_close(res.regret[:, 29] - res.regret[:, 19], grow)
    assert r30 / r20 > 1.3  # what the horizon-free check must see


def test_ftl_egreedy_draws_match_law():
    L = np.array([2.0, 1.0, 1.0, 3.0, 5.0])
    alg = ALGORITHMS["ftl_egreedy"]()
    law = alg.law(np.tile(L, (N_DRAWS, 1)), 9)
    np.testing.assert_allclose(law[0], [5 / 45, 5 / 45 + 2 / 9, 5 / 45 + 2 / 9, 5 / 45, 5 / 45])
    actions = sample_from(np.random.default_rng(3), law)
    assert chisquare_against(actions, law[0], 5) > P_MIN


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.int64, (4, 5), elements=st.integers(0, 3)),  # small integers: many ties
    st.integers(1, 40),
)
def test_ftl_egreedy_law_is_the_formula(cumulative, t):
    L = cumulative.astype(float)
    K = L.shape[1]
    law = ALGORITHMS["ftl_egreedy"]().law(L, t)
    eps_t = min(1.0, K / t)
    leaders = (L.min(axis=1, keepdims=True) == L).astype(float)
    expected = eps_t / K + (1 - eps_t) * leaders / leaders.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(law, expected, rtol=0, atol=1e-15)
    # per-run times (the engines pass one t per row)
    ts = np.arange(1, L.shape[0] + 1) * t
    rows = ALGORITHMS["ftl_egreedy"]().law(L, ts)
    for i, ti in enumerate(ts):
        np.testing.assert_allclose(rows[i], ALGORITHMS["ftl_egreedy"]().law(L[i : i + 1], ti)[0])


def test_uniform_law_ignores_the_data():
    alg = make_algorithm("uniform", 0.5)
    actions, law = draws(alg, SUMS)
    np.testing.assert_array_equal(law, np.full((N_DRAWS, SUMS.size), 1 / SUMS.size))
    assert chisquare_against(actions, law[0], SUMS.size) > P_MIN
    other = alg.law(np.tile(SUMS[::-1] * 100, (3, 1)), 7)
    np.testing.assert_array_equal(other, law[:3])


def test_short_prefix_is_the_ceiling_of_two_to_the_two_thirds_r():
    """rps_short_prefix reads n_r = ceil(2^(2r/3)) rounds of block r: n^3 >= 4^r > (n-1)^3
    (integer arithmetic, every r up to 62), n_r <= 2^r, deterministic for every run."""
    for r in range(63):
        n = short_prefix(r)
        assert n**3 >= 4**r > (n - 1) ** 3 and 1 <= n <= 2**r, r
    alg = make_algorithm("rps_short_prefix", 0.5)
    lengths = alg.prefix_lengths(np.random.default_rng(0), 10, 5)
    np.testing.assert_array_equal(lengths, np.full(5, 102))
    assert alg.eta == make_algorithm("rps", 0.5).eta


@pytest.mark.parametrize("eps", [1e-3, 0.05, 0.25, 0.5, 0.9, 1.0, 1.7, 8.0])
def test_rate_controls_stay_eps_dp(eps):
    # Lemma 3: a softmax selection with inverse temperature eta is 2 eta-DP, so eps-DP
    # needs eta <= eps/2
    assert make_algorithm("rps_eta_sq", eps).eta <= eps / 2 + 1e-15
    alg = make_algorithm("rps_eta_logk", eps)
    for K in (2, 3, 8, 4096):
        assert alg.eta_for(K) <= min(eps / 2, 1 / 8) + 1e-15
        np.testing.assert_allclose(alg.eta_for(K), min(eps / 2, 1 / 8) / np.log2(K))
    with pytest.raises(AttributeError):
        _ = alg.eta  # no single temperature: the audits must not use a wrong one
