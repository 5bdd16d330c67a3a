"""Tests of :mod:`privdtol.privacy.audit_controls`: the audit-only negative controls of the
privacy audits, rps with eta = eps and rps with a prefix chosen from the data (the leader's
margin), which the audits must catch."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.algorithms import ALGORITHMS
from privdtol.core.seeding import generator
from privdtol.privacy.audit_controls import (
    AUDIT_ONLY,
    DataDependentPrefix,
    EtaEqualsEps,
    data_chosen_prefix,
    leader_margin,
    prefix_support,
)


def test_prefix_support_by_hand():
    """supp(M_r): {1} for r = 0, {2} for r = 1, {5, 6, 7, 8} for r = 3 (Section 4)."""
    for r, support in [(0, [1]), (1, [2]), (3, [5, 6, 7, 8])]:
        got = prefix_support(r)
        np.testing.assert_array_equal(got, support)
        assert got.dtype == np.int64


def test_leader_margin_by_hand():
    """Second-smallest minus smallest along the last axis, ties giving 0."""
    np.testing.assert_array_equal(leader_margin([[3, 1, 2], [0, 0, 5], [4, 9, 7]]), [1, 0, 3])
    np.testing.assert_array_equal(leader_margin([[[2, 0.5]]]), [[1.5]])


#: block r = 2 (4 rounds, K = 2): prefix sums L(0..4) of three datasets; supp(M_2) = {3, 4}
CUM = np.array(
    [
        np.cumsum([[0, 0], [0, 1], [0, 1], [0, 1], [1, 0]], axis=0),  # margins 3, 2 -> m = 3
        np.zeros((5, 2)),  # margins 0, 0: the tie goes to the smallest m = 3
        np.cumsum([[0, 0], [0, 1], [0, 1], [0, 1], [0, 1]], axis=0),  # margins 3, 4 -> m = 4
    ],
    dtype=float,
)


def test_data_chosen_prefix_maximises_the_leader_margin():
    np.testing.assert_array_equal(data_chosen_prefix(CUM, 2), [3, 3, 4])
    # any number of leading indices: the maximum is over the support, the last axis
    np.testing.assert_array_equal(data_chosen_prefix(CUM[None], 2), [[3, 3, 4]])
    np.testing.assert_array_equal(data_chosen_prefix(CUM[0], 2), 3)


def test_data_dependent_prefix_needs_the_window_sums():
    alg = DataDependentPrefix(1.0)
    rng = np.random.default_rng(0)
    with pytest.raises(RuntimeError) as err:
        alg.prefix_lengths(rng, 2, 3)
    assert str(err.value) == (
        "rps_data_prefix is an audit-only negative control: its prefix depends on the data "
        "(pass sums_for), see privdtol.privacy"
    )
    got = alg.prefix_lengths(rng, 2, 3, sums_for=lambda m: CUM[np.arange(3), m])
    np.testing.assert_array_equal(got, [3, 3, 4])


def test_eta_equals_eps_has_neither_the_half_nor_the_cap():
    """eta = eps (rps would have min(eps/2, 1/8): 1/8 at eps = 0.5 and 3)."""
    for eps in (0.1, 0.5, 3.0):
        assert EtaEqualsEps(eps).eta == eps


def test_negative_controls_are_audit_only():
    """The two controls are registered for the audits only, not among the algorithms; the
    data-dependent one refuses to draw a prefix without the data."""
    assert set(AUDIT_ONLY) == {"rps_eta_eps", "rps_data_prefix"}
    assert not set(AUDIT_ONLY) & set(ALGORITHMS)
    with pytest.raises(RuntimeError):
        AUDIT_ONLY["rps_data_prefix"](0.5).prefix_lengths(generator({}), 3, 4)


def test_leader_margin_of_float32_and_integer_sums_is_float64():
    """1e8 - 1 = 99999999 exactly in float64; in float32 (spacing 8 at 1e8) it rounds to 1e8."""
    margin = leader_margin(np.array([[1e8, 1.0]], dtype=np.float32))
    assert margin.dtype == np.float64
    assert margin.tolist() == [99999999.0]
    margin = leader_margin(np.array([[3, 1, 2], [5, 5, 0]]))
    assert margin.dtype == np.float64
    assert margin.tolist() == [1.0, 5.0]
