"""Tests of :mod:`privdtol.privacy.exact_selection`: the exact audit of one selection, the
supremum of the privacy loss over neighbouring block data searched by analytic extremes,
random pairs and local moves, against Lemma 3's bound 2 eta and the closed forms at K = 2."""

from __future__ import annotations

import numpy as np
import pytest
from support.laws import ConstantRng

from privdtol.privacy import exact_selection, log_selection_law, make_audited, mechanisms
from privdtol.privacy.audit_controls import AUDIT_ONLY
from privdtol.privacy.exact_selection import Witness, audit_selection


def test_witness_description_by_hand():
    w = Witness([[0, 1], [0.5, 1]], [[1, 0], [0.5, 1]], 0, 1, -0.5, -0.625)
    assert w.describe() == (
        "row 0: (0,1) -> (1,0); action 1: log P = -0.5 vs -0.625; d = [01;(0.5)1], d' = [10;(0.5)1]"
    )


def test_exact_audit_of_two_actions_after_one_round():
    """Block 1, K = 2, no random stage, one local step.  Stage 1 offers 4 base patterns x 12
    ordered pairs of distinct {0,1}^2 vectors = 48 pairs; one local step from the best pair
    moves each of the 2 entries of d's and of d''s single row: 4 pairs.  rps (eta = 1/8 at
    eps = 1): the softmax of (0, 1) against (1, 0) differs by exactly eta.  rnm_ftnl (Laplace
    scale 2 at eps = 1): its law depends on the sums only, so stage 1 keeps the 12 distinct
    pairs of sums; P(1 | S = (0, 1)) = c = (1 + 1/4) e^(-1/2) / 2 (the tail of a difference
    of two Laplace(2) variables at 1), and its loss is log((1 - c) / c)."""
    rps = audit_selection("rps", 1.0, K=2, block=1, n_random=0, max_steps=1)
    assert rps.pairs_evaluated == 48 + 4
    assert rps.loss == pytest.approx(0.125, rel=1e-12)
    rnm = audit_selection("rnm_ftnl", 1.0, K=2, block=1, n_random=0, max_steps=1)
    assert rnm.pairs_evaluated == 12 + 4
    c = 0.625 * np.exp(-0.5)
    assert rnm.loss == pytest.approx(np.log((1 - c) / c), rel=1e-9)
    assert rnm.stage_loss["extremes"] == pytest.approx(rnm.loss, rel=1e-12)


def test_a_witness_found_by_the_random_stage_names_its_changed_row():
    """rps_data_prefix, K = 3, block 4: the random stage beats the analytic extremes; the
    witness it reports differs from its neighbour in the named row only."""
    res = audit_selection("rps_data_prefix", 1.0, K=3, block=4, n_random=200, max_steps=0)
    assert res.stage_loss["random"] > res.stage_loss["extremes"]
    d, dp = np.asarray(res.witness.d), np.asarray(res.witness.d_prime)
    changed = np.flatnonzero((d != dp).any(axis=1))
    assert changed.tolist() == [res.witness.row]


def test_the_random_stage_coin_puts_an_exact_half_in_the_upper_half():
    """numpy's uniform draws are multiples of 2^-53 in [0, 1); ``u < 1/2`` is true for exactly
    half of them, so a draw of exactly 1/2 is a "no": with every draw 1/2 the candidates are
    the Bernoulli(1/2) ones, all zeros (1/2 < 1/2 is false), and so is the changed row."""
    D, Dp, rows = exact_selection.random_pairs(ConstantRng(0.5), K=3, r=1, count=4, continuous=True)
    np.testing.assert_array_equal(D, np.zeros((4, 2, 3)))
    np.testing.assert_array_equal(Dp, np.zeros((4, 2, 3)))
    np.testing.assert_array_equal(rows, [0, 0, 0, 0])


def test_random_pairs_differ_in_their_changed_row_only():
    rng = np.random.default_rng(11)
    D, Dp, rows = exact_selection.random_pairs(rng, K=3, r=2, count=50, continuous=True)
    assert D.shape == Dp.shape == (50, 4, 3)
    other = np.ones((50, 4), dtype=bool)
    other[np.arange(50), rows] = False
    np.testing.assert_array_equal(D[other], Dp[other])


def test_local_moves_by_hand():
    """n = 2 rows, K = 1, changed row 0: d = (0; 0.5), d' = (1; 0.5).  Moves in order: d''s
    changed entry to 0, d's changed entry to 1, the shared entry to 0, then to 1, and the
    changed row swapped to row 1."""
    d, dp = np.array([[0.0], [0.5]]), np.array([[1.0], [0.5]])
    D, Dp, rows = exact_selection.local_moves(d, dp, 0)
    np.testing.assert_array_equal(
        D, [[[0.0], [0.5]], [[1.0], [0.5]], [[0.0], [0.0]], [[0.0], [1.0]], [[0.5], [0.0]]]
    )
    np.testing.assert_array_equal(
        Dp, [[[0.0], [0.5]], [[1.0], [0.5]], [[1.0], [0.0]], [[1.0], [1.0]], [[0.5], [1.0]]]
    )
    np.testing.assert_array_equal(rows, [0, 0, 0, 0, 1])


def test_local_moves_of_one_row_set_each_entry_to_zero_and_to_one():
    """One row, K = 2, d = (0, 1), d' = (1, 0): each entry of d and of d' moves to the value it
    does not have."""
    d, dp = np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])
    D, Dp, rows = exact_selection.local_moves(d, dp, 0)
    np.testing.assert_array_equal(D, [[[0, 1]], [[1, 1]], [[0, 0]], [[0, 1]]])
    np.testing.assert_array_equal(Dp, [[[0, 0]], [[1, 0]], [[1, 0]], [[1, 1]]])
    np.testing.assert_array_equal(rows, [0, 0, 0, 0])


def test_the_best_pair_is_offered_in_batches_each_counted_once():
    """BATCH + 1 = 2049 identical pairs of one round, except the last: (0, 1) -> (1, 0), loss
    eta = 1/8 for rps at eps = 1.  Every pair is evaluated once; the last one, alone in the
    second batch, is the best."""
    assert exact_selection.BATCH == 2048
    n = 2049
    D, Dp = np.zeros((n, 1, 2)), np.zeros((n, 1, 2))
    D[-1, 0], Dp[-1, 0] = [0.0, 1.0], [1.0, 0.0]
    best = exact_selection._Best()
    loss = best.offer(mechanisms.make_audited("rps", 1.0), 0, D, Dp, np.zeros(n, dtype=int))
    assert best.count == n
    assert loss == pytest.approx(0.125, rel=1e-12)
    np.testing.assert_array_equal(best.pair[0], [[0.0, 1.0]])
    np.testing.assert_array_equal(best.pair[1], [[1.0, 0.0]])


def test_the_local_search_stops_at_the_first_step_that_does_not_improve():
    """rps, K = 2, block 1: the 48 analytic extremes already reach the supremum eta = 1/8; the
    first local step (4 moves) finds nothing better, so the search stops there, whatever
    max_steps allows: 48 + 4 pairs, not 48 + 3 * 4."""
    res = exact_selection.audit_selection("rps", 1.0, K=2, block=1, n_random=0, max_steps=3)
    assert res.pairs_evaluated == 52
    assert res.stage_loss["local"] == pytest.approx(0.125, rel=1e-12)


def closed_form_block1(K, eta):
    """Block of one round: d = (0, 1, ..., 1), d' = (1, 0, ..., 0); action 0's ratio."""
    return np.log((1 + (K - 1) * np.exp(eta)) / (1 + (K - 1) * np.exp(-eta)))


@pytest.mark.parametrize("K", [3, 5])
def test_block1_general_k_closed_form(K):
    eta = 0.125
    res = audit_selection("rps", 0.5, K=K, block=1, n_random=500)
    assert res.loss == pytest.approx(closed_form_block1(K, eta), abs=1e-12)


@pytest.mark.parametrize("name", ["rps", "rps_full_prefix", "rps_uncapped", "wu_wang_gumbel"])
def test_private_softmax_selections_within_two_eta(name):
    res = audit_selection(name, 0.5, K=4, block=16, n_random=500, max_steps=20)
    assert res.within_selection_bound and not res.violation
    assert res.loss > 0.8 * res.bound_selection  # the search gets close to the supremum


@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_k2_block1_hand_computed(eps):
    """K = 2, block 0 (M_0 = 1): d = (0,1), d' = (1,0) gives P(0|d)/P(0|d') = e^eta, a loss of
    exactly eta; for K = 2 and one round no pair does better (only L_1 - L_0 in [-1, 1]
    matters), so the supremum is eta -- half of Lemma 3's 2 eta, which K = 2 cannot reach."""
    alg = make_audited("rps", eps)
    lp = log_selection_law(alg, np.array([[0.0, 1.0]]), 0)
    lq = log_selection_law(alg, np.array([[1.0, 0.0]]), 0)
    assert np.max(np.abs(lp - lq)) == pytest.approx(alg.eta, abs=1e-14)
    res = audit_selection("rps", eps, K=2, block=1)
    assert res.loss == pytest.approx(alg.eta, abs=1e-12)
    assert res.within_selection_bound and not res.violation


@pytest.mark.parametrize("name", list(AUDIT_ONLY))
def test_negative_controls_are_caught_with_witness(name):
    res = audit_selection(name, 0.5, K=4, block=16, n_random=500, max_steps=20)
    assert res.violation and res.loss > 0.5
    d, dp = np.asarray(res.witness.d), np.asarray(res.witness.d_prime)
    differs = np.flatnonzero(np.any(d != dp, axis=1))
    assert differs.tolist() == [res.witness.row]  # a neighbouring pair
    alg = make_audited(name, 0.5)
    recomputed = np.max(np.abs(log_selection_law(alg, d, 4) - log_selection_law(alg, dp, 4)))
    assert recomputed == pytest.approx(res.loss, rel=1e-12)
