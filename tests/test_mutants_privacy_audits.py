"""Guards found by a second, random sample of mutation testing of ``privdtol.privacy``
(docs/testing.md "Mutation testing"): the exact audit's search (batches, random candidates,
local moves and when the local search stops) and the whole-sequence audit's data and witness,
written out by hand (claim C1, Proposition 1 / Lemma 3)."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.errors import InputError
from privdtol.privacy import exact_selection, mechanisms, whole_sequence


class ConstantRng:
    """A stand-in for a numpy Generator whose every uniform draw is ``u``, every integer the
    lowest allowed and every beta draw 0.3: the coins of the audits are read at one value."""

    def __init__(self, u):
        self.u = u

    def random(self, size=None):
        return self.u if size is None else np.full(size, self.u)

    def integers(self, low, high=None, size=None):
        return low if size is None else np.full(size, low)

    def beta(self, a, b, size=None):
        return np.full(size, 0.3)


# ------------------------------------------------------------------ exact, one selection


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


# ------------------------------------------------------------------ whole sequence

LOG_P_X = np.log(0.5) - np.log1p(np.exp(-0.125))  # P(A_0 = 0) P(A_1 = 0 | x_1 = (0, 1))
LOG_P_XP = np.log(0.5) - np.log1p(np.exp(0.125))  # the same under x_1 = (1, 0)


def test_the_sequence_witness_by_hand():
    """rps at eps = 1, K = 2, T = 3: the worst pair changes time 1 (block 0) from (0, 1) to
    (1, 0); the block actions (0, 0) have log-probability log(1/2) - log(1 + e^(-1/8)) under x
    and log(1/2) - log(1 + e^(1/8)) under x'."""
    res = whole_sequence.audit_sequence("rps", 1.0, K=2, horizon=3, n_random=2)
    assert (res.witness_time, res.witness_block) == (1, 0)
    assert res.witness_text == (
        "time 1 (block 0): (0.0, 1.0) -> (1.0, 0.0); "
        f"block actions (0, 0): log P = {LOG_P_X:.6g} vs {LOG_P_XP:.6g}"
    )


@pytest.mark.parametrize(
    ("name", "scope"), [("rps", "[0,1]^K"), ("wu_wang_gumbel", "{0,1}^K"), ("wu_wang", "{0,1}^K")]
)
def test_the_sequence_audit_names_its_data_scope(name, scope):
    """Wu & Wang's variants read Bernoulli-resampled losses: their audit uses {0,1} data."""
    res = whole_sequence.audit_sequence(name, 1.0, K=2, horizon=3, n_random=1)
    assert res.data_scope == scope


def test_a_random_sequence_pair_changes_its_row_to_fair_coins(monkeypatch):
    """Every uniform draw 3/4 (see ConstantRng): the background is all zeros (3/4 < 3/4 is
    false), the changed time is 1, the continuous branch is not taken (3/4 >= 1/2) and the
    replacement vector is (3/4 < 1/2, 3/4 < 1/2) = (0, 0)."""
    monkeypatch.setattr(whole_sequence, "generator", lambda key: ConstantRng(0.75))
    seen, real = [], whole_sequence.sequence_log_law
    monkeypatch.setattr(
        whole_sequence, "sequence_log_law", lambda alg, x: seen.append(x.copy()) or real(alg, x)
    )
    whole_sequence.audit_sequence("rps", 1.0, K=2, horizon=3, n_random=1)
    witness_x, witness_xp, x, xp = seen
    np.testing.assert_array_equal(witness_x, [[0, 1], [0, 0], [0, 0]])
    np.testing.assert_array_equal(witness_xp, [[1, 0], [0, 0], [0, 0]])
    np.testing.assert_array_equal(x, np.zeros((3, 2)))
    np.testing.assert_array_equal(xp, np.zeros((3, 2)))


def test_the_sequence_audit_refuses_one_action():
    with pytest.raises(InputError) as err:
        whole_sequence.audit_sequence("rps", 1.0, K=1, horizon=3)
    assert str(err.value) == "K: got 1 (allowed: integers >= 2)"
