"""Guards found by mutation testing of ``privdtol.algorithms`` (``make mutation GROUPS=algorithms``,
docs/testing.md): the registry's and eps's one-line errors word for word, the inversion sampler
on unnormalised weights, the random prefix at block 0, the noisy-min law against the closed form
of a difference of two Laplace variables, and the audit-only negative controls by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privdtol.algorithms import (
    ALGORITHMS,
    laplace_noisy_min_law,
    make_algorithm,
    random_prefix,
    sample_from,
)
from privdtol.algorithms.base import check_epsilon
from privdtol.algorithms.negative_controls import (
    AUDIT_ONLY,
    DataDependentPrefix,
    EtaEqualsEps,
    data_chosen_prefix,
    leader_margin,
    prefix_support,
)
from privdtol.errors import InputError


def test_make_algorithm_names_the_field_and_lists_the_registry_in_order():
    with pytest.raises(InputError) as err:
        make_algorithm("nope", 1.0)
    assert str(err.value) == (
        "algorithm: unknown algorithm 'nope' (allowed: rps, rnm_ftnl, wu_wang, wu_wang_gumbel, "
        "rps_full_prefix, rps_uncapped, ftl, hedge, uniform, ftl_egreedy, rps_eta_logk, "
        "rps_eta_sq, rps_short_prefix)"
    )
    assert err.value.field == "algorithm"


@pytest.mark.parametrize("eps", [-1.0, 0.0, math.inf, math.nan])
def test_check_epsilon_refuses_in_one_line(eps):
    with pytest.raises(InputError) as err:
        check_epsilon(eps)
    assert str(err.value) == f"epsilon: got {eps} (allowed: a finite number > 0)"


def test_sample_from_accepts_unnormalised_weights():
    """Row weights (1, 3): P(1) = 3/4; (2, 0, 2): never 1, halves on 0 and 2.  40000 draws:
    standard error sqrt(3/16 / 40000) = 0.0022, tolerance 5 standard errors."""
    rng = np.random.default_rng(20261201)
    n = 40000
    draws = sample_from(rng, np.tile([1.0, 3.0], (n, 1)))
    assert abs(draws.mean() - 0.75) < 5 * math.sqrt(0.75 * 0.25 / n)
    draws = sample_from(rng, np.tile([2.0, 0.0, 2.0], (n, 1)))
    assert not (draws == 1).any()
    assert abs((draws == 2).mean() - 0.5) < 5 * math.sqrt(0.25 / n)


def test_random_prefix_indexes_prefix_sums_at_every_block():
    """M_0 = 1 and M_2 in {3, 4} (Section 4), as integers that index an array of prefix sums."""
    rng = np.random.default_rng(7)
    cum = np.arange(10.0) * 10
    np.testing.assert_array_equal(cum[random_prefix(rng, 0, 3)], [10.0, 10.0, 10.0])
    m = random_prefix(rng, 2, 200)
    assert set(cum[m].tolist()) == {30.0, 40.0}


def _two_laplace_tail(d: float, b: float) -> float:
    """P(Z_1 - Z_0 > d) for Z_0, Z_1 i.i.d. Laplace(b), d >= 0: the difference has density
    (1 + |x|/b) e^(-|x|/b) / (4b), whose tail is (1 + d/(2b)) e^(-d/b) / 2."""
    return 0.5 * (1 + d / (2 * b)) * math.exp(-d / b)


@pytest.mark.parametrize(("d", "b"), [(2.0, 2.0), (1.0, 0.5), (6.0, 4.0)])
def test_noisy_min_law_of_two_actions_is_the_laplace_difference_tail(d, b):
    """argmin_j (S_j - Z_j) with S = (0, d) picks action 1 iff Z_1 - Z_0 > d."""
    p1 = _two_laplace_tail(d, b)
    np.testing.assert_allclose(
        laplace_noisy_min_law(np.array([0.0, d]), b), [1 - p1, p1], rtol=1e-9, atol=0
    )


def test_noisy_min_law_of_a_batch_is_row_by_row():
    """S = (0, 2) and (2, 0) at scale 2: P = (1 - 0.75/e, 0.75/e) and its mirror."""
    p1 = 0.75 / math.e
    law = laplace_noisy_min_law(np.array([[0.0, 2.0], [2.0, 0.0]]), 2.0)
    np.testing.assert_allclose(law, [[1 - p1, p1], [p1, 1 - p1]], rtol=1e-9, atol=0)


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
    assert set(AUDIT_ONLY) == {"rps_eta_eps", "rps_data_prefix"}
    assert not set(AUDIT_ONLY) & set(ALGORITHMS)


@pytest.mark.parametrize(("sums", "scale"), [([0.0, 3.0, 5.0], 4.0), ([0.0, 1.0, 2.0, 7.0], 1.0)])
def test_noisy_min_law_of_more_actions_matches_the_privacy_quadrature(sums, scale):
    """Against the audits' piecewise Gauss-Legendre quadrature (privdtol.privacy.mechanisms),
    an independent evaluation accurate to rounding, within this one's absolute 1e-13."""
    from privdtol.privacy.mechanisms import laplace_noisy_min_logprob

    reference = np.exp(laplace_noisy_min_logprob(np.array(sums), scale))
    np.testing.assert_allclose(
        laplace_noisy_min_law(np.array(sums), scale), reference, rtol=0, atol=1e-12
    )


def test_a_non_private_algorithm_keeps_the_eps_it_is_given():
    """ftl is not private: no eps is needed, and one given is kept as a float (not checked)."""
    assert ALGORITHMS["ftl"]().epsilon is None
    assert ALGORITHMS["ftl"](2).epsilon == 2.0
    assert isinstance(ALGORITHMS["ftl"](2).epsilon, float)
