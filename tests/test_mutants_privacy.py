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
