"""Guards found by mutation testing of ``privdtol.privacy`` (``make mutation GROUPS=privacy``,
docs/testing.md): the audit grid's one-line input errors, word for word, and the statistical
audit's pair of neighbouring loss matrices written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.errors import InputError
from privdtol.privacy import audit_grid, statistical


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        (
            {"nope": 1},
            "privacy.nope: unknown key (allowed: seed, epsilons, K, blocks, algorithms, "
            "negative_controls, exact, sequence, statistical)",
        ),
        ({"exact": 3}, "privacy.exact: got 3 (allowed: a mapping)"),
        (
            {"exact": {"bad": 1}},
            "privacy.exact.bad: unknown key (allowed: n_random, max_steps, laplace_max_K)",
        ),
        ({"epsilons": [0.5, -1]}, "privacy.epsilons: got -1 (allowed: numbers > 0)"),
    ],
)
def test_merge_grid_refuses_in_one_line(grid, message):
    with pytest.raises(InputError) as err:
        audit_grid.merge_grid(grid)
    assert str(err.value) == message


def test_neighbouring_matrices_by_hand():
    """block 2 (r = 1): T = 4 * 2 - 1 = 7 rows; block r is rows 1-2; with lead 1 row 2 is all
    zeros; x' changes row 1 from (0, 1, 1) to (1, 0, 0)."""
    x, xp, row, r = statistical.neighbouring_matrices(3, 2, lead=1)
    expected = np.array(
        [[0, 1, 1], [0, 1, 1], [0, 0, 0], [0, 1, 1], [0, 1, 1], [0, 1, 1], [0, 1, 1]]
    )
    np.testing.assert_array_equal(x, expected)
    assert (row, r) == (1, 1)
    changed = expected.copy()
    changed[1] = [1, 0, 0]
    np.testing.assert_array_equal(xp, changed)


@pytest.mark.parametrize(("x", "y"), [([0, 0], [3, 4]), ([1, 2], [3, 4, 5])])
def test_loss_bounds_refuses_an_empty_or_mismatched_sample(x, y):
    with pytest.raises(InputError) as err:
        statistical.loss_bounds(x, y)
    assert str(err.value) == "runs: empty sample or mismatched outcome sets (allowed: runs >= 1)"


def test_loss_bounds_reports_the_sample_sizes():
    out = statistical.loss_bounds([3, 7], [6, 4])
    assert (out["runs_x"], out["runs_y"]) == (10, 10)
    assert out["point"] == pytest.approx(np.log(2))  # max(log(0.6/0.3), log(0.7/0.4))


def test_exact_verdict_at_the_lemma3_bound_and_over_eps():
    """rps at eps = 1: Lemma 3's bound is 2 eta = 1/4; a loss exactly at bound + TOL is within
    it, a loss over eps is a violation, named so."""
    from privdtol.privacy import mechanisms, result

    alg = mechanisms.make_audited("rps", 1.0)
    edge = result.exact_verdict(alg, 0.25 + result.TOL)
    assert edge["within_selection_bound"] is True and edge["violation"] is False
    assert edge["verdict"] == "within eps"
    over = result.exact_verdict(alg, 1.5)
    assert (over["violation"], over["verdict"]) == (True, "violation")
    assert over["within_selection_bound"] is False


def test_audit_stream_keys_and_law_kinds():
    from privdtol.privacy import mechanisms
    from privdtol.privacy.exact_selection import SelectionAudit

    alg = mechanisms.make_audited("rps", 1.0)
    assert SelectionAudit.stream_key(alg, K=4) == {
        "audit": "exact_selection",
        "algorithm": "rps",
        "epsilon": 1.0,
        "K": 4,
    }
    assert mechanisms.law_kind(alg) == "softmax_mixture"
    assert mechanisms.law_kind(mechanisms.make_audited("rps_full_prefix", 1.0)) == ("softmax_point")
    with pytest.raises(InputError) as err:
        mechanisms.block_index(3)
    assert str(err.value) == "block: got 3 (allowed: powers of two 1, 2, 4, ..., 1024)"


def test_audit_messages_word_for_word():
    from privdtol.privacy import mechanisms

    with pytest.raises(InputError) as err:
        mechanisms.make_audited("ftl", 1.0)
    assert str(err.value) == (
        "algorithm: 'ftl' is not an auditable (private) algorithm (allowed: rps, rnm_ftnl, "
        "wu_wang, wu_wang_gumbel, rps_full_prefix, rps_uncapped, uniform, rps_eta_logk, "
        "rps_eta_sq, rps_short_prefix, rps_eta_eps, rps_data_prefix)"
    )
    with pytest.raises(InputError) as err:
        mechanisms.block_index(2048)
    assert str(err.value) == "block: got 2048 (allowed: powers of two 1, 2, 4, ..., 1024)"
    alg = mechanisms.make_audited("rps", 1.0)
    with pytest.raises(InputError) as err:
        mechanisms.log_selection_law(alg, np.zeros((3, 2)), 1)
    assert str(err.value) == "block: dataset of 3 rows for block r=1 (allowed: 2 rows)"


def test_resampled_algorithms_are_audited_on_binary_data():
    """Wu & Wang's two variants read Bernoulli-resampled losses; the others read [0,1]^K."""
    from privdtol.privacy import mechanisms

    resampled = {
        n
        for n in mechanisms.AUDITABLE
        if mechanisms.uses_resampling(mechanisms.make_audited(n, 1.0))
    }
    assert resampled == {"wu_wang", "wu_wang_gumbel"}


def test_statistical_audit_refuses_a_round_algorithm_and_names_its_verdict():
    from privdtol.algorithms import ALGORITHMS

    with pytest.raises(InputError) as err:
        statistical.audit_statistical(ALGORITHMS["hedge"](None), runs=10)
    assert str(err.value) == "algorithm: hedge is not a block algorithm (allowed: block algorithms)"
    res = statistical.audit_statistical("rps", 1.0, K=2, block=1, runs=10)
    assert (res.violation, res.verdict) == (False, "no violation detected at this power")


def test_witness_description_by_hand():
    from privdtol.privacy.exact_selection import Witness

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
    from privdtol.privacy.exact_selection import audit_selection

    rps = audit_selection("rps", 1.0, K=2, block=1, n_random=0, max_steps=1)
    assert rps.pairs_evaluated == 48 + 4
    assert rps.loss == pytest.approx(0.125, rel=1e-12)
    rnm = audit_selection("rnm_ftnl", 1.0, K=2, block=1, n_random=0, max_steps=1)
    assert rnm.pairs_evaluated == 12 + 4
    c = 0.625 * np.exp(-0.5)
    assert rnm.loss == pytest.approx(np.log((1 - c) / c), rel=1e-9)
    assert rnm.stage_loss["extremes"] == pytest.approx(rnm.loss, rel=1e-12)


def test_whole_sequence_audit_of_three_rounds_by_hand():
    """T = 3 (R = 2): only block 0's selection reads data, so the sequence loss and the
    per-block maximum are both rps's eta = 1/8 at eps = 1; 1 witness pair + 2 random pairs."""
    from privdtol.privacy.whole_sequence import audit_sequence

    res = audit_sequence("rps", 1.0, K=2, horizon=3, n_random=2)
    assert res.loss == pytest.approx(0.125, rel=1e-12)
    assert res.per_block_max == pytest.approx(0.125, rel=1e-12)
    assert res.pairs_evaluated == 3


def test_grid_notes_its_progress_and_passes_the_sequence_budget():
    """The smallest grid: rps at eps = 1, K = 2, block 1, T = 3 with 1 random pair."""
    notes = []
    df = audit_grid.run_grid(
        {
            "algorithms": ["rps"],
            "negative_controls": [],
            "epsilons": [1.0],
            "K": [2],
            "blocks": [1],
            "exact": {"n_random": 0, "max_steps": 1},
            "sequence": {"K": [2], "horizon": 3, "n_random": 1},
            "statistical": {"algorithms": []},
        },
        progress=notes.append,
    )
    assert notes == ["exact_selection rps eps=1.0 K=2 block=1", "whole_sequence rps eps=1.0 K=2"]
    assert df["pairs_evaluated"].tolist() == [52, 2]


def test_a_witness_found_by_the_random_stage_names_its_changed_row():
    """rps_data_prefix, K = 3, block 4: the random stage beats the analytic extremes; the
    witness it reports differs from its neighbour in the named row only."""
    from privdtol.privacy.exact_selection import audit_selection

    res = audit_selection("rps_data_prefix", 1.0, K=3, block=4, n_random=200, max_steps=0)
    assert res.stage_loss["random"] > res.stage_loss["extremes"]
    d, dp = np.asarray(res.witness.d), np.asarray(res.witness.d_prime)
    changed = np.flatnonzero((d != dp).any(axis=1))
    assert changed.tolist() == [res.witness.row]


def test_sequence_audit_keys_its_stream_by_every_size(monkeypatch):
    """The stream of the random sequences is keyed by the audit, the algorithm, eps, K, T and
    the seed (privdtol.core.seeding): audits at another K draw from another stream."""
    from privdtol.privacy import whole_sequence

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
