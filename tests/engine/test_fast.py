"""Tests of :mod:`privdtol.engine.fast`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.core import clock
from privdtol.engine.exact import expected_regret
from privdtol.engine.fast import simulate
from privdtol.environments import BernoulliProduct

# --- from tests/test_exact.py

CONTROLS = ("rps_eta_logk", "rps_eta_sq", "rps_short_prefix")


@pytest.mark.parametrize("algorithm", CONTROLS)
def test_rps_family_controls_match_monte_carlo(algorithm):
    """The negative controls against the fast Monte Carlo engine (4 standard errors)."""
    from support.stats import assert_mean_close

    from privdtol.engine.fast import simulate
    from privdtol.environments import BernoulliProduct

    means, eps, k_max = np.array([0.35, 0.5, 0.55, 0.9]), 0.3, 12
    res = simulate(
        make_algorithm(algorithm, eps),
        BernoulliProduct(means),
        (1 << k_max) - 1,
        4000,
        {"test": "exact-controls", "algorithm": algorithm},
        mode="fast",
    )
    got, err = expected_regret(algorithm, means, eps, res.checkpoints)
    assert (err <= 1e-8 * got).all()
    for k in (3, 8, 12):
        assert_mean_close(res.regret[:, k - 1], got[k - 1], z=4.0)


# --- from tests/test_mutants_engine.py


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


def test_run_table_records_eps_and_eta_of_each_algorithm():
    """rps at eps = 1: eta = min(1/2, 1/8) = 1/8; ftl is not private: no eps, no eta."""
    from privdtol.engine.fast import simulate
    from privdtol.engine.run_tables import run_table
    from privdtol.environments.bernoulli import BernoulliProduct

    env = BernoulliProduct([0.25, 0.5])
    for name, eps, eta in (("rps", 1.0, 0.125), ("ftl", None, None)):
        alg = make_algorithm(name, eps)
        res = simulate(alg, env, 3, 2, {"test": name}, mode="fast")
        tab = run_table(res, alg, env)
        assert tab["horizon"].tolist() == [1, 3, 1, 3]
        assert tab["gap"].tolist() == [0.25] * 4 and tab["mu_best"].tolist() == [0.25] * 4
        assert tab["epsilon"].dtype == np.float64 and tab["eta"].dtype == np.float64
        if eps is None:
            assert tab["epsilon"].isna().all() and tab["eta"].isna().all()
        else:
            assert tab["epsilon"].tolist() == [eps] * 4 and tab["eta"].tolist() == [eta] * 4


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


# --- from tests/test_mutants_engine_fresh.py


def test_fast_engine_reads_each_window_from_round_one_of_the_loss_file():
    """rps at eps = 1 (eta = 1/8) replaying the 3 x 2 loss matrix [[0, 1], [0, 1], [1, 0]]
    (means (1/3, 2/3), gap 1/3) to T = 3: A_0 uniform on B_0 = {1} (regret 1/6), A_1 drawn from
    softmax(-eta S) of the first M_0 = 1 round's losses, row 1 = (0, 1), on B_1 = {2, 3}:
    Reg_3 = 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8)), exactly (Rao-Blackwellised charges)."""
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses

    env = ReplayLosses(np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]))
    res = simulate(make_algorithm("rps", 1.0), env, 3, 2, {"test": "window"}, mode="fast")
    x = math.exp(-0.125)
    want = 1 / 6 + 2 * (1 / 3) * x / (1 + x)
    assert res.checkpoints.tolist() == [1, 3]
    np.testing.assert_allclose(res.regret, [[1 / 6, want]] * 2, rtol=1e-14)


def test_simulate_names_the_rounds_of_a_short_loss_file():
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses
    from privdtol.errors import InputError

    env = ReplayLosses(np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(InputError) as err:
        simulate(make_algorithm("rps", 1.0), env, 4, 1, {"test": "short"}, mode="fast")
    assert str(err.value) == (
        "horizon: 4 exceeds the 3 rounds of the loss file (allowed: horizon <= 3)"
    )


def test_progress_bar_counts_blocks_and_is_off_unless_asked():
    from privdtol.engine.fast import _progress

    assert _progress(4, False) is None
    bar = _progress(4, True)
    try:
        assert (bar.unit, bar.total, bar.leave) == ("block", 4, False)
    finally:
        bar.close()


def test_actions_table_has_one_row_per_run_and_block():
    from privdtol.engine.fast import SimResult
    from privdtol.engine.run_tables import actions_table

    acts = np.array([[0, 1, 1], [1, 0, 2]])
    res = SimResult(np.array([1, 3]), np.zeros((2, 2)), np.zeros((2, 2)), "block_rb", acts)
    tab = actions_table(res)
    assert list(tab.columns) == ["run", "block", "action"]
    assert tab["run"].tolist() == [0, 0, 0, 1, 1, 1]
    assert tab["block"].tolist() == [0, 1, 2, 0, 1, 2]
    assert tab["action"].tolist() == [0, 1, 1, 1, 0, 2]


# --- from tests/test_mutants_engine_r3c.py

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


# --- from tests/test_simulate.py

ENV = BernoulliProduct(np.array([0.35, 0.5, 0.55, 0.9]))


def test_realized_regret_is_block_length_times_gap_of_played_action():
    alg = make_algorithm("rps", 1.0)
    res = simulate(alg, ENV, 1023, 20, {"t": 1}, keep_actions=True)
    charges = clock.block_lengths(1023) * ENV.gaps[res.actions]
    np.testing.assert_allclose(res.regret_realized, np.cumsum(charges, axis=1))


# --- from tests/test_tolerances.py


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
