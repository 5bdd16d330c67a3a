"""Tests of :mod:`privdtol.engine.fast`: the Monte Carlo engine that draws whole blocks (the
Rao-Blackwellised or realised block estimator), its choice of engine per cell, its chunks of
runs and their streams, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest
from support.engine_laws import LOSSES, RPS_REPLAY_REGRET_3
from support.exact_k2 import _walk_expectations, round_regret_k2, rps_regret_k2
from support.stats import assert_mean_close, assert_means_equal

from privdtol.algorithms import ALGORITHMS, make_algorithm
from privdtol.core import clock
from privdtol.engine.fast import simulate
from privdtol.environments import (
    BernoulliProduct,
    BetaLosses,
    CorrelatedBernoulli,
    standard_means,
)
from privdtol.errors import InputError


def test_auto_mode_simulates_inexact_sums_round_by_round():
    """Beta losses have no exact block sums: small cells run the explicit per-round engine;
    Bernoulli block sums are exact, so a block algorithm takes the fast engine at any size;
    a round algorithm runs explicitly up to T runs K = 2^24, then fast."""
    from privdtol.engine.fast import resolve_mode
    from privdtol.environments.bernoulli import BernoulliProduct
    from privdtol.environments.beta import BetaLosses

    rps, hedge = make_algorithm("rps", 1.0), make_algorithm("hedge", None)
    beta, bern = BetaLosses([0.4, 0.5]), BernoulliProduct([0.4, 0.5])
    assert resolve_mode(rps, beta, 1023, 100, "auto") == "explicit"
    assert resolve_mode(rps, bern, 1023, 100, "auto") == "fast"
    assert resolve_mode(hedge, bern, 2**19, 16, "auto") == "explicit"  # 2^19 x 16 x 2 = 2^24
    assert resolve_mode(hedge, bern, 2**19 + 1, 16, "auto") == "fast"
    assert resolve_mode(rps, beta, 2**19, 16, "auto") == "explicit"
    assert resolve_mode(rps, beta, 2**19 + 1, 16, "auto") == "fast"
    assert resolve_mode(rps, bern, 1023, 100, "explicit") == "explicit"


def test_fast_engine_names_its_estimator_and_keeps_actions_on_request():
    """rps's laws are explicit: the Rao-Blackwellised block estimator; rnm_ftnl's Laplace noise
    has none: the realised one."""
    from privdtol.engine.fast import simulate
    from privdtol.environments.bernoulli import BernoulliProduct

    env = BernoulliProduct([0.25, 0.5])
    rps = simulate(make_algorithm("rps", 1.0), env, 7, 3, {"test": "rb"}, mode="fast")
    assert rps.estimator == "block_rb" and rps.actions is None
    rnm = simulate(
        make_algorithm("rnm_ftnl", 1.0), env, 7, 3, {"test": "re"}, mode="fast", keep_actions=True
    )
    assert rnm.estimator == "block_realized" and rnm.actions.shape == (3, 3)


@pytest.mark.parametrize(("mode", "runs"), [("fast", 2), ("fast", 1), ("explicit", 1)])
def test_simulate_replays_the_loss_file_from_round_one(mode, runs):
    """rps at eps = 1 (eta = 1/8) replaying LOSSES to T = 3, with two runs or one (a valid
    cell, runs >= 1) in either engine: A_0 uniform on B_0 = {1} (regret (1/3)/2 = 1/6), A_1
    drawn from softmax(-eta S) of the first M_0 = 1 round's losses, row 1 = (0, 1), on
    B_1 = {2, 3}: Reg_3 = 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8)) (Rao-Blackwellised charges,
    exact up to a few roundings)."""
    from privdtol.environments.replay import ReplayLosses

    res = simulate(
        make_algorithm("rps", 1.0), ReplayLosses(LOSSES), 3, runs, {"test": "window"}, mode=mode
    )
    assert res.checkpoints.tolist() == [1, 3]
    assert res.regret.shape == (runs, 2) and res.info == {"mode": mode, "chunks": 1}
    np.testing.assert_allclose(res.regret, [[1 / 6, RPS_REPLAY_REGRET_3]] * runs, rtol=1e-14)


def test_simulate_names_the_rounds_of_a_short_loss_file():
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses

    env = ReplayLosses(np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(InputError) as err:
        simulate(make_algorithm("rps", 1.0), env, 4, 1, {"test": "short"}, mode="fast")
    assert str(err.value) == (
        "horizon: 4 exceeds the 3 rounds of the loss file (allowed: horizon <= 3)"
    )


@pytest.mark.parametrize("runs", [0, 1.5])
def test_simulate_refuses_a_bad_number_of_runs(runs):
    """Zero or fractional runs: the one-line InputError naming the field ``runs``."""
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses

    with pytest.raises(InputError) as err:
        simulate(make_algorithm("rps", 1.0), ReplayLosses(LOSSES), 3, runs, {"test": "bad"})
    assert str(err.value) == f"runs: got {runs} (allowed: integers >= 1)"


def test_progress_bar_counts_blocks_and_is_off_unless_asked():
    from privdtol.engine.fast import _progress

    assert _progress(4, False) is None
    bar = _progress(4, True)
    try:
        assert (bar.unit, bar.total, bar.leave) == ("block", 4, False)
    finally:
        bar.close()


ENV = BernoulliProduct(np.array([0.35, 0.5, 0.55, 0.9]))


def test_realized_regret_is_block_length_times_gap_of_played_action():
    alg = make_algorithm("rps", 1.0)
    res = simulate(alg, ENV, 1023, 20, {"t": 1}, keep_actions=True)
    charges = clock.block_lengths(1023) * ENV.gaps[res.actions]
    np.testing.assert_allclose(res.regret_realized, np.cumsum(charges, axis=1))


@pytest.mark.parametrize("algorithm", ["rps", "hedge"])
def test_each_chunk_of_runs_draws_from_its_own_stream(monkeypatch, algorithm):
    """The runs of a cell are simulated in chunks of CHUNK_ELEMENTS / K runs, each chunk from
    its own spawned stream: with chunks of 2 runs, six runs are three chunks whose draws differ
    (one shared stream would repeat runs 0-1 in runs 2-3 and 4-5 exactly)."""
    from privdtol.engine import fast
    from privdtol.environments import BernoulliProduct

    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", 4)
    alg = make_algorithm(algorithm, 1.0 if algorithm == "rps" else None)
    res = fast.simulate(alg, BernoulliProduct([0.25, 0.75]), 255, 6, {"t": 1}, mode="fast")
    assert res.info["chunks"] == 3
    real = res.regret_realized
    for a, b in ((0, 2), (0, 4), (2, 4)):
        assert not np.array_equal(real[a : a + 2], real[b : b + 2])


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
