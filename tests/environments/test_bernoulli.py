"""Tests of :mod:`privdtol.environments.bernoulli`: independent Bernoulli losses, and the regret
simulated on them by the fast and explicit engines, against each other and against the exact
K = 2 regret."""

from __future__ import annotations

import numpy as np
import pytest
from support.exact_k2 import _walk_expectations, round_regret_k2, rps_regret_k2
from support.stats import assert_mean_close, assert_means_equal

from privdtol.algorithms import ALGORITHMS, make_algorithm
from privdtol.engine.fast import simulate
from privdtol.environments import (
    BernoulliProduct,
    BetaLosses,
    CorrelatedBernoulli,
    standard_means,
)
from privdtol.errors import InputError


@pytest.mark.parametrize("means", [[0.5], [0.2, 0.2, 0.5], [-0.1, 0.5], [0.1, 1.01]])
def test_bad_means(means):
    with pytest.raises(InputError, match="means"):
        BernoulliProduct(np.array(means))


ENV = BernoulliProduct(np.array([0.35, 0.5, 0.55, 0.9]))


def _sim(name, env, horizon, runs, mode, eps=0.7, tag=0):
    alg = make_algorithm(name, eps if ALGORITHMS[name].private else None)
    return simulate(alg, env, horizon, runs, {"test": name, "mode": mode, "tag": tag}, mode=mode)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_fast_engine_matches_explicit_per_round(name):
    fast = _sim(name, ENV, 511, 3000, "fast")
    slow = _sim(name, ENV, 511, 3000, "explicit")
    assert slow.estimator == "per_round"
    for k in (2, 5, 9):  # checkpoints T = 3, 31, 511
        assert_means_equal(fast.regret[:, k - 1], slow.regret[:, k - 1])
        assert_means_equal(fast.regret_realized[:, k - 1], slow.regret_realized[:, k - 1])


@pytest.mark.parametrize(
    "env", [CorrelatedBernoulli(ENV.means, 0.8), BetaLosses(ENV.means, 2.0)], ids=lambda e: e.name
)
@pytest.mark.parametrize("name", ["rps", "wu_wang_gumbel", "ftl", "ftl_egreedy", "rps_eta_logk"])
def test_fast_engine_matches_explicit_on_dependent_and_beta_losses(env, name):
    fast = _sim(name, env, 255, 3000, "fast")
    slow = _sim(name, env, 255, 3000, "explicit")
    assert_means_equal(fast.regret[:, -1], slow.regret[:, -1])


@pytest.mark.parametrize("prefix,name", [("random", "rps"), ("full", "rps_full_prefix")])
def test_rps_k2_regret_matches_exact_pmf_computation(prefix, name):
    mu1, mu2, eps = 0.4, 0.6, 1.0
    exact = rps_regret_k2(mu1, mu2, min(eps / 2, 1 / 8), 14, prefix=prefix)
    res = _sim(name, BernoulliProduct(np.array([mu1, mu2])), (1 << 14) - 1, 20_000, "fast", eps)
    assert res.estimator == "block_rb"
    for k in (3, 8, 14):
        assert_mean_close(res.regret[:, k - 1], exact[k - 1])
        assert_mean_close(res.regret_realized[:, k - 1], exact[k - 1])


@pytest.mark.parametrize("name", ["ftl", "hedge"])
@pytest.mark.parametrize("mode", ["fast", "explicit"])
def test_round_algorithms_k2_regret_matches_exact(name, mode):
    mu1, mu2 = 0.45, 0.6
    exact = round_regret_k2(mu1, mu2, 10, name)
    res = _sim(name, BernoulliProduct(np.array([mu1, mu2])), 1023, 6000, mode)
    assert res.estimator == ("uniform_round" if mode == "fast" else "per_round")
    for k in (4, 10):
        assert_mean_close(res.regret[:, k - 1], exact[k - 1])


@pytest.mark.parametrize("gap,eps", [(0.05, 1.0), (0.2, 0.05), (0.5, 0.5)])
def test_rps_is_horizon_free(gap, eps):
    env = BernoulliProduct(standard_means(8, gap))
    res = _sim("rps", env, (1 << 30) - 1, 2000, "fast", eps)
    later = res.regret[:, 29] - res.regret[:, 19]  # Reg_(2^30 - 1) - Reg_(2^20 - 1), paired
    assert_mean_close(later, 0.0)
    assert later.mean() <= 1e-3 * res.regret[:, 19].mean()


def test_extreme_parameters_stay_finite():
    env = BernoulliProduct(standard_means(1 << 16, 0.01))
    res = _sim("rps", env, 1 << 40, 3, "fast", eps=1e-4)
    assert res.regret.shape == (3, 41)
    assert np.all(np.isfinite(res.regret)) and np.all(res.regret >= 0)
    assert np.all(res.regret[:, -1] <= env.gaps.max() * (1 << 40))


def test_same_parameters_same_bytes_and_chunking_is_seeded_by_parameters():
    a = _sim("rps", ENV, 4095, 300, "fast", tag=7)
    b = _sim("rps", ENV, 4095, 300, "fast", tag=7)
    c = _sim("rps", ENV, 4095, 300, "fast", tag=8)
    assert a.regret.tobytes() == b.regret.tobytes()
    assert a.regret.tobytes() != c.regret.tobytes()


@pytest.mark.parametrize(
    "env",
    [ENV, CorrelatedBernoulli(ENV.means, 0.8), BetaLosses(ENV.means, 2.0)],
    ids=lambda e: e.name,
)
@pytest.mark.parametrize("horizon", [100, (1 << 12) - 1])
def test_uniform_regret_is_exactly_T_times_mean_gap(env, horizon):
    res = _sim("uniform", env, horizon, 7, "fast")
    assert res.estimator == "block_rb"
    expected = res.checkpoints * env.gaps.mean()
    np.testing.assert_allclose(res.regret, np.tile(expected, (7, 1)), rtol=1e-13)


def test_uniform_regret_is_linear_up_to_2_to_the_30():
    env = BernoulliProduct(standard_means(16, 0.25))
    res = _sim("uniform", env, (1 << 30) - 1, 3, "fast")
    np.testing.assert_allclose(res.regret[:, -1], ((1 << 30) - 1) * env.gaps.mean(), rtol=1e-13)


def _ftl_egreedy_regret_k2(mu1, mu2, k_max):
    """Exact Reg_T of ftl_egreedy for K = 2 at T = 2^k - 1: P(I_t = 2) =
    eps_t / 2 + (1 - eps_t) P_FTL(I_t = 2), the FTL part from the exact walk pmf."""
    T = (1 << k_max) - 1
    (p2,) = _walk_expectations(mu1, mu2, T - 1, [lambda d, m: (d < 0) + 0.5 * (d == 0)])
    t = np.arange(1, T + 1)
    eps = np.minimum(1.0, 2 / t)
    per_round = (mu2 - mu1) * (eps / 2 + (1 - eps) * p2)
    return np.cumsum(per_round)[(1 << np.arange(1, k_max + 1)) - 2]


@pytest.mark.parametrize("mode", ["fast", "explicit"])
def test_ftl_egreedy_k2_regret_matches_exact(mode):
    mu1, mu2 = 0.45, 0.6
    exact = _ftl_egreedy_regret_k2(mu1, mu2, 10)
    res = _sim("ftl_egreedy", BernoulliProduct(np.array([mu1, mu2])), 1023, 6000, mode)
    assert res.estimator == ("uniform_round" if mode == "fast" else "per_round")
    for k in (4, 10):
        assert_mean_close(res.regret[:, k - 1], exact[k - 1])


def test_rps_eta_sq_k2_regret_matches_exact():
    mu1, mu2, eps = 0.4, 0.6, 0.3
    exact = rps_regret_k2(mu1, mu2, eps**2 / 2, 14)
    res = _sim(
        "rps_eta_sq", BernoulliProduct(np.array([mu1, mu2])), (1 << 14) - 1, 20_000, "fast", eps
    )
    assert res.estimator == "block_rb"
    for k in (3, 8, 14):
        assert_mean_close(res.regret[:, k - 1], exact[k - 1])
