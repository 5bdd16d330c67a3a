"""Tests of :mod:`privdtol.privacy.whole_sequence`: the exact law of the whole action sequence
(which factorizes over the blocks, Proposition 1) and the audit of its privacy loss over
neighbouring loss sequences, with its witness."""

from __future__ import annotations

import numpy as np
import pytest
from support.laws import ConstantRng

from privdtol.algorithms import make_algorithm
from privdtol.core.seeding import generator
from privdtol.errors import InputError
from privdtol.privacy import log_selection_law, make_audited, whole_sequence
from privdtol.privacy.audit_controls import AUDIT_ONLY
from privdtol.privacy.whole_sequence import audit_sequence, sequence_log_law


def test_whole_sequence_audit_of_three_rounds_by_hand():
    """T = 3 (R = 2): only block 0's selection reads data, so the sequence loss and the
    per-block maximum are both rps's eta = 1/8 at eps = 1; 1 witness pair + 2 random pairs."""
    res = audit_sequence("rps", 1.0, K=2, horizon=3, n_random=2)
    assert res.loss == pytest.approx(0.125, rel=1e-12)
    assert res.per_block_max == pytest.approx(0.125, rel=1e-12)
    assert res.pairs_evaluated == 3


def test_sequence_audit_keys_its_stream_by_every_size(monkeypatch):
    """The stream of the random sequences is keyed by the audit, the algorithm, eps, K, T and
    the seed (privdtol.core.seeding): audits at another K draw from another stream."""
    keys, real = [], whole_sequence.generator
    monkeypatch.setattr(whole_sequence, "generator", lambda key: keys.append(key) or real(key))
    whole_sequence.audit_sequence("rps", 1.0, K=2, horizon=3, seed=5, n_random=1)
    assert keys == [
        {
            "audit": "whole_sequence",
            "algorithm": "rps",
            "epsilon": 1.0,
            "K": 2,
            "horizon": 3,
            "seed": 5,
        }
    ]


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
    """Every uniform draw 3/4 (see support.laws.ConstantRng): the background is all zeros
    (3/4 < 3/4 is false), the changed time is 1, the continuous branch is not taken
    (3/4 >= 1/2) and the replacement vector is (3/4 < 1/2, 3/4 < 1/2) = (0, 0)."""
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


@pytest.mark.parametrize("name", ["rps", "rps_uncapped", "wu_wang_gumbel"])
def test_whole_sequence_never_exceeds_per_block_bound(name):
    res = audit_sequence(name, 0.5, K=3, horizon=31, n_random=5)
    assert res.loss <= res.bound_selection + 1e-9 and not res.violation
    assert res.factorization_gap < 1e-9


@pytest.mark.parametrize("name", list(AUDIT_ONLY))
def test_whole_sequence_catches_negative_controls(name):
    res = audit_sequence(name, 0.5, K=3, horizon=63, n_random=2)
    assert res.violation and res.loss > 0.5


def test_sequence_law_is_a_probability_and_factorizes():
    alg = make_audited("rps", 1.0)
    x = (generator({"test": "seq"}).random((15, 3)) < 0.4).astype(float)
    logp = sequence_log_law(alg, x)
    assert logp.shape == (3,) * 4
    assert np.exp(logp).sum() == pytest.approx(1.0, abs=1e-12)
    # marginal of A_3 is the block-2 selection law (Proposition 1's factorisation)
    marg = np.exp(logp).sum(axis=(0, 1, 2))
    assert np.allclose(marg, np.exp(log_selection_law(alg, x[3:7], 2)), atol=1e-13)


def test_the_sequence_law_refuses_more_than_2_to_the_20_sequences():
    """rps at T = 127 (R = 7): the prefix supports of blocks 1..5 have 1, 2, 4, 8, 16 points,
    so 2^10 combinations; at K = 3 that is 2^10 * 3^7 = 2239488 > 2^20 sequences."""
    with pytest.raises(InputError, match="1024 prefix combinations x 3"):
        sequence_log_law(make_algorithm("rps", 1.0), np.zeros((127, 3)))
