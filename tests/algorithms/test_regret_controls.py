"""Tests of :mod:`privdtol.algorithms.regret_controls`: the negative controls of the regret checks
(uniform play, FTL with eps_t-greedy exploration, rps with a slower eta or a short prefix, rps
mixed with the uniform law, rps with eta = 1/8 at every eps), their laws, their exploration
regret, that the rate controls and the mixture stay eps-DP (Lemma 3) while rps_hot does not, and
the mixture's Monte Carlo block regret against the exact engine."""

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


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
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


def _softmax(sums, eta):
    """exp(-eta L_j) / sum_i exp(-eta L_i), row by row, written out (no shift)."""
    w = np.exp(-eta * np.asarray(sums, dtype=float))
    return w / w.sum(axis=1, keepdims=True)


def test_uniform_mix_law_is_fifteen_sixteenths_softmax_plus_one_sixteenth_uniform_by_hand():
    """rps_uniform_mix at eps = 1 (eta = 1/8) on sums (0, 8 ln 3): softmax weights (1, 1/3),
    law (3/4, 1/4); mixed with gamma = 1/16: (15/16)(3/4) + 1/32 = 47/64 and
    (15/16)(1/4) + 1/32 = 17/64."""
    alg = make_algorithm("rps_uniform_mix", 1.0)
    assert alg.exact_law.uniform_mix == 1 / 16 and alg.eta == 1 / 8
    law = alg.law(np.array([[0.0, 8 * np.log(3.0)]]), 4)
    np.testing.assert_allclose(law[0], [47 / 64, 17 / 64], rtol=1e-15)


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.25, 1.0, 8.0])
def test_uniform_mix_law_matches_its_formula_and_its_draws(eps):
    """The law against (1 - gamma) softmax(-eta L) + gamma/K with the softmax written out,
    eta = min(eps/2, 1/8); the draws of ``select`` against that law (chi-square)."""
    alg = make_algorithm("rps_uniform_mix", eps)
    eta = min(eps / 2, 1 / 8)
    rows = np.vstack([SUMS, SUMS[::-1] * 7, np.zeros(SUMS.size), SUMS * 40])
    want = (15 / 16) * _softmax(rows, eta) + (1 / 16) / SUMS.size
    np.testing.assert_allclose(alg.law(rows, 5), want, rtol=1e-13, atol=0)
    actions, law = draws(alg, SUMS)
    np.testing.assert_allclose(law[0], want[0], rtol=1e-13)
    assert chisquare_against(actions, want[0], SUMS.size) > P_MIN
    # the uniform part keeps every action's probability >= gamma / K, however large the sums
    assert alg.law(np.array([[0.0, 1e6, 1e6]]), 9).min() == pytest.approx(1 / 48, rel=1e-15)


def _neighbour_pairs(rng, K, n):
    """Prefix sums of neighbouring datasets: one loss vector in [0, 1]^K changed, so each
    coordinate moves by at most 1; the extreme pair (0, 1, .., 1) -> (1, 0, .., 0) included."""
    base = rng.uniform(0, 6, size=(n, K))
    moved = base + rng.uniform(-1, 1, size=(n, K))
    extreme = np.r_[0.0, np.ones(K - 1)]
    return np.vstack([base, extreme]), np.vstack([moved, 1 - extreme])


@pytest.mark.parametrize("eps", [0.02, 0.1, 0.25, 1.0, 4.0])
def test_uniform_mix_selection_stays_eps_dp(eps):
    """Lemma 3 with a data-independent mixture: every log-ratio of the laws of one selection
    on neighbouring sums is <= 2 eta <= eps (K = 2, 5 and 200)."""
    alg = make_algorithm("rps_uniform_mix", eps)
    rng = np.random.default_rng(11)
    for K in (2, 5, 200):
        a, b = _neighbour_pairs(rng, K, 400)
        loss = np.abs(np.log(alg.law(a, 3)) - np.log(alg.law(b, 3))).max()
        assert loss <= 2 * alg.eta + 1e-12 <= eps + 1e-12


def test_rps_hot_has_eta_four_at_every_eps_and_is_not_eps_dp_below_eight():
    """rps_hot: eta = 4 whatever eps (the law of rps_uncapped at eps = 8), so a selection is
    8-DP only: with K = 1000 the neighbouring sums (0, 1, .., 1) and (1, 0, .., 0) give
    action 0 the probabilities 1/(1 + 999 e^-eta) and e^-eta/(e^-eta + 999), a log-ratio
    eta + log((e^-eta + 999)/(1 + 999 e^-eta)) = 7.95 > eps = 1/16."""
    for eps in (1e-3, 1 / 16, 0.25, 1.0, 100.0):
        alg = make_algorithm("rps_hot", eps)
        assert alg.eta == 4 and alg.epsilon == eps and alg.private
        rows = np.tile(SUMS, (2, 1))
        want = make_algorithm("rps_uncapped", 8.0).law(rows, 3)
        np.testing.assert_array_equal(alg.law(rows, 3), want)
    K, eta = 1000, 4.0
    d = np.r_[0.0, np.ones(K - 1)][None, :]
    loss = float(np.log(make_algorithm("rps_hot", 1 / 16).law(d, 0)[0, 0]))
    loss -= float(np.log(make_algorithm("rps_hot", 1 / 16).law(1 - d, 0)[0, 0]))
    want = eta + np.log((np.exp(-eta) + K - 1) / (1 + (K - 1) * np.exp(-eta)))
    assert loss == pytest.approx(want, rel=1e-12)
    assert loss > 7.9 > 1 / 16  # > eps: not 1/16-DP
    assert make_algorithm("rps", 1 / 16).eta == 1 / 32  # rps at the same eps


def test_uniform_mix_block_regret_matches_the_exact_engine():
    """rps_uniform_mix at eps = 0.3 on Bernoulli (0.35, 0.5, 0.9): the fast engine's
    Rao-Blackwellised charge of each block (4000 runs, a fixed seed) within 4 standard errors
    of the exact engine's, (1 - gamma) rps's + gamma #B_r mean_j Delta_j."""
    from privdtol.engine.exact import expected_regret

    means, eps, k_max = np.array([0.35, 0.5, 0.9]), 0.3, 11
    res = simulate(
        make_algorithm("rps_uniform_mix", eps),
        BernoulliProduct(means),
        (1 << k_max) - 1,
        4000,
        {"test": "uniform-mix-blocks"},
        mode="fast",
    )
    exact, err = expected_regret("rps_uniform_mix", means, eps, res.checkpoints)
    assert (err <= 1e-8 * exact).all()
    blocks = np.diff(res.regret, axis=1, prepend=0.0)  # block k - 1's charge, k = 1..k_max
    want = np.diff(exact, prepend=0.0)
    for k in (2, 4, 7, 11):
        assert_mean_close(blocks[:, k - 1], want[k - 1], z=4.0)
    rps, _ = expected_regret("rps", means, eps, res.checkpoints)
    mean_gap = (means - means.min()).mean()
    np.testing.assert_allclose(exact, (15 * rps + res.checkpoints * mean_gap) / 16, rtol=1e-13)
