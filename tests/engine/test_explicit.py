"""Tests of :mod:`privdtol.engine.explicit`: the per-round engine (charged regret from the
explicit selection law, realised regret from the actions drawn) on replayed loss matrices worked
out by hand, for round algorithms (FTL, Decreasing Hedge) and block algorithms, across chunks of
rounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.engine_laws import LOSSES

from privdtol.algorithms import make_algorithm
from privdtol.engine import explicit
from privdtol.engine.explicit import _round_chunks, simulate_chunk_explicit
from privdtol.environments.replay import ReplayLosses


@pytest.mark.parametrize(
    ("name", "eps", "want"),
    [
        # rps at eps = 1 on LOSSES: Reg_3 = 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8))
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


def test_round_chunks_split_a_block_into_chunks_of_the_element_budget():
    """width = max(1, 2^21 // max(1, n K)): n K = 2^22 gives width 1 (three chunks of one
    round), n K = 8 gives 2^18 rounds per chunk, n K = 1 the whole block in one chunk."""
    assert list(_round_chunks(1 << 21, 2, 3)) == [(0, 1), (1, 1), (2, 1)]
    assert list(_round_chunks(2, 4, (1 << 18) + 1)) == [(0, 1 << 18), (1 << 18, 1)]
    assert list(_round_chunks(1, 1, 5)) == [(0, 5)]
    assert list(_round_chunks(3, 0, 2)) == [(0, 2)]
    assert list(_round_chunks(1, 1, 0)) == []


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


#: a 15 x 2 loss matrix whose leader changes: column sums 5 and 10, means (1/3, 2/3), gaps
#: (0, 1/3); blocks B_0 = {1}, B_1 = {2, 3}, B_2 = {4..7}, B_3 = {8..15}
ROWS = [0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0]  # X_t = (ROWS[t-1], 1 - ROWS[t-1])


MATRIX = np.array([[a, 1 - a] for a in ROWS], dtype=float)


GAP = 1.0 / 3.0


BLOCKS = [(1, 1), (2, 3), (4, 7), (8, 15)]


def _run(name, eps, n, monkeypatch, chunk=None, horizon=15):
    """simulate_chunk_explicit on the replayed matrix; ``chunk`` the rounds per chunk."""
    if chunk is not None:
        monkeypatch.setattr(explicit, "ROUND_CHUNK_ELEMENTS", chunk * n * 2)
    alg = make_algorithm(name, eps)
    env = ReplayLosses(MATRIX[:horizon])
    return simulate_chunk_explicit(alg, env, horizon, n, np.random.default_rng(4), None)


def _loss_before(t):
    """L_(t-1) of the matrix, by a plain loop."""
    L0 = sum(ROWS[: t - 1])
    return L0, (t - 1) - L0


@pytest.mark.parametrize("chunk", [None, 2, 1])
def test_ftl_explicit_regret_on_a_replayed_matrix(monkeypatch, chunk):
    """FTL plays uniformly over the leaders of L_(t-1).  By hand: t = 1 tie (1/2 · 1/3), t = 2
    leader 0, t = 3 tie, t = 4 leader 1 (1/3), t = 5 tie, t = 6, 7 leader 0, and from L_7 =
    (3, 4) on action 0 leads: per block GAP/2, GAP/2, 3 GAP/2, 0.
    Charged regret per block: the sum of law · gaps; realized: the gaps of the actions drawn,
    deterministic (leader) rounds contributing exactly their gap, whatever the chunking."""
    rb, real, actions, explicit_law = _run("ftl", None, 3, monkeypatch, chunk)
    expected, sure = [], []
    for a, b in BLOCKS:
        total, floor = 0.0, 0.0
        for t in range(a, b + 1):
            L0, L1 = _loss_before(t)
            p1 = 0.5 if L0 == L1 else float(L1 < L0)
            total += p1 * GAP
            floor += GAP if L1 < L0 else 0.0
        expected.append(total)
        sure.append(floor)
    assert expected == pytest.approx([GAP / 2, GAP / 2, 1.5 * GAP, 0.0], rel=1e-15)
    np.testing.assert_allclose(rb, np.tile(expected, (3, 1)), rtol=1e-13, atol=0)
    assert np.all(actions == -1) and explicit_law is True
    assert rb.shape == real.shape == actions.shape == (3, 4)
    for r in range(4):  # at least the rounds with a unique leader 1, at most those plus ties
        assert np.all(real[:, r] >= sure[r] - 1e-12)
        assert np.all(real[:, r] <= sure[r] + 2 * (expected[r] - sure[r]) + 1e-12)
    assert real[:, 2].min() >= GAP - 1e-12  # t = 4 (leader 1) is in the first chunk of B_2


def test_hedge_explicit_charged_regret_is_the_decreasing_hedge_law(monkeypatch):
    """Decreasing Hedge: p_t(1) = 1 / (1 + exp(eta_t (L1 - L0))), eta_t = 2 sqrt(ln 2 / t),
    evaluated with math at every t of the replayed matrix; with chunks of 2 rounds (B_2, B_3
    split) the times and L_(t-1) must still run on across chunks and blocks."""
    rb, real, actions, explicit_law = _run("hedge", None, 2, monkeypatch, chunk=2)
    expected = []
    for a, b in BLOCKS:
        total = 0.0
        for t in range(a, b + 1):
            L0, L1 = _loss_before(t)
            eta = 2.0 * math.sqrt(math.log(2) / t)
            total += GAP / (1.0 + math.exp(eta * (L1 - L0)))
        expected.append(total)
    np.testing.assert_allclose(rb, np.tile(expected, (2, 1)), rtol=1e-12, atol=0)
    assert np.all(actions == -1) and explicit_law is True
    counts = real / GAP  # the number of times action 1 was played in each block
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert np.all(counts >= 0) and np.all(counts <= [1, 2, 4, 8])


def test_realized_regret_adds_up_over_every_chunk_of_a_block(monkeypatch):
    """With one round per chunk, block r's realized regret sums 2^r draws: over 2000 runs its
    mean matches the charged regret (a martingale: variance <= sum_t p_t (1 - p_t) gap^2 per
    run, bounded here by 5 standard errors); keeping only the last chunk would leave one draw."""
    n = 2000
    rb, real, _, _ = _run("hedge", None, n, monkeypatch, chunk=1)
    var = np.zeros(4)
    for r, (a, b) in enumerate(BLOCKS):
        for t in range(a, b + 1):
            L0, L1 = _loss_before(t)
            p = 1.0 / (1.0 + math.exp(2.0 * math.sqrt(math.log(2) / t) * (L1 - L0)))
            var[r] += p * (1 - p) * GAP**2
    tol = 5 * np.sqrt(var / n)
    assert np.all(np.abs(real.mean(axis=0) - rb[0]) <= tol)


@pytest.mark.parametrize("chunk", [None, 2])
def test_block_algorithm_explicit_regret_follows_the_block_sums(monkeypatch, chunk):
    """rps_full_prefix (M_r = 2^r, eta = min(eps/2, 1/8) = 1/8 at eps = 1): A_0 uniform, then
    A_(r+1) ~ softmax(-eta S_r) with S_r block r's column sums (B_0: (0, 1), B_1: (2, 0), B_2:
    (1, 3)); block r is charged 2^r law · gaps and realizes 2^r gaps[A_r]."""
    rb, real, actions, explicit_law = _run("rps_full_prefix", 1.0, 3, monkeypatch, chunk)
    laws = [0.5]
    for S0, S1 in [(0, 1), (2, 0), (1, 3)]:
        laws.append(1.0 / (1.0 + math.exp(0.125 * (S1 - S0))))
    lengths = np.array([1, 2, 4, 8])
    np.testing.assert_allclose(rb, np.tile(lengths * GAP * np.array(laws), (3, 1)), rtol=1e-13)
    assert explicit_law is True and actions.dtype == np.int64
    assert set(np.unique(actions)) <= {0, 1}
    np.testing.assert_allclose(real, lengths * np.array([0.0, GAP])[actions], rtol=1e-15)


def test_block_algorithm_with_laplace_noise_charges_the_action_played(monkeypatch):
    """rnm_ftnl has no explicit selection law: the law charged after block 0 is the point mass
    at the action drawn, so charged and realized regret agree from block 1 on, and the flag is
    False.  A horizon of 10 cuts B_3 to 3 rounds and replays the first 10 rows: column sums 4
    and 6, gaps (0, 0.2); block 0 (uniform A_0) is charged 0.2 / 2."""
    rb, real, actions, explicit_law = _run("rnm_ftnl", 1.0, 4, monkeypatch, horizon=10)
    assert explicit_law is False
    np.testing.assert_allclose(rb[:, 0], 0.1, rtol=1e-15)
    np.testing.assert_allclose(rb[:, 1:], real[:, 1:], rtol=1e-15)
    np.testing.assert_allclose(real, np.array([1, 2, 4, 3]) * np.array([0.0, 0.2])[actions])
