"""Every selection law against its exact law (chi-square on samples with fixed seeds)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import P_MIN, chisquare_against
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import softmax

from privdtol.algorithms import ALGORITHMS, laplace_noisy_min_law, make_algorithm, random_prefix
from privdtol.algorithms.base import sample_from
from privdtol.errors import InputError

N = 40_000
SUMS = np.array([3.0, 4.0, 5.0, 9.0, 4.5])


def _draws(alg, sums, r=3, n=N, seed=1):
    rng = np.random.default_rng(seed)
    actions, law = alg.select(rng, np.tile(sums, (n, 1)), r)
    return actions, law


@pytest.mark.parametrize(
    "name,eta",
    [("rps", 0.125), ("rps_full_prefix", 0.125), ("rps_uncapped", 0.6), ("wu_wang_gumbel", 0.6)],
)
def test_softmax_selection_matches_exact_law(name, eta):
    alg = make_algorithm(name, 1.2)
    actions, law = _draws(alg, SUMS)
    exact = np.exp(-eta * SUMS) / np.exp(-eta * SUMS).sum()
    np.testing.assert_allclose(law[0], exact, rtol=1e-12)
    assert chisquare_against(actions, exact, SUMS.size) > P_MIN


@pytest.mark.parametrize("name", ["rnm_ftnl", "wu_wang"])
def test_laplace_noisy_min_matches_quadrature(name):
    alg = make_algorithm(name, 0.8)
    actions, law = _draws(alg, SUMS)
    assert law is None
    exact = laplace_noisy_min_law(SUMS, 2 / 0.8)
    assert chisquare_against(actions, exact, SUMS.size) > P_MIN


def test_laplace_quadrature_two_actions_closed_form():
    # P(S1 - Z1 < S2 - Z2) with Z1 - Z2 Laplace-difference: closed form for d = S2 - S1 >= 0
    b, d = 1.5, 2.0
    closed = 1 - 0.5 * np.exp(-d / b) * (1 + d / (2 * b)) / 1.0
    law = laplace_noisy_min_law(np.array([0.0, d]), b)
    np.testing.assert_allclose(law[0], closed, rtol=1e-8)


def test_eta_is_capped_for_rps_only():
    assert make_algorithm("rps", 10).eta == 1 / 8
    assert make_algorithm("rps", 0.1).eta == 0.05
    assert make_algorithm("rps_uncapped", 10).eta == 5


@pytest.mark.parametrize("r", [0, 1, 4, 7])
def test_random_prefix_is_uniform_on_second_half(r):
    m = random_prefix(np.random.default_rng(r), r, 30_000)
    if r == 0:
        assert np.all(m == 1)
        return
    lo, hi = (1 << (r - 1)) + 1, 1 << r
    assert m.min() >= lo and m.max() <= hi
    width = hi - lo + 1
    assert chisquare_against(m - lo, np.full(width, 1 / width), width) > P_MIN


def test_full_prefix_reads_whole_block():
    alg = make_algorithm("rps_full_prefix", 1.0)
    assert np.all(alg.prefix_lengths(np.random.default_rng(0), 5, 10) == 32)


def test_ftl_law_uniform_over_leaders():
    law = ALGORITHMS["ftl"]().law(np.array([[2.0, 1.0, 1.0, 3.0]]), 5)
    np.testing.assert_array_equal(law[0], [0, 0.5, 0.5, 0])


def test_hedge_law_and_rate():
    alg = ALGORITHMS["hedge"]()
    L = np.array([[2.0, 1.0, 4.0]])
    eta = 2 * np.sqrt(np.log(3) / 7)
    np.testing.assert_allclose(alg.law(L, 7)[0], softmax(-eta * L[0]), rtol=1e-12)


def test_sample_from_matches_law():
    probs = np.array([0.1, 0.0, 0.6, 0.3])
    draws = sample_from(np.random.default_rng(5), np.tile(probs, (N, 1)))
    assert chisquare_against(draws, probs, 4) > P_MIN
    assert not np.any(draws == 1)


@settings(max_examples=60, deadline=None)
@given(arrays(float, (3, 6), elements=st.floats(0, 2.0**40)), st.floats(1e-6, 10))
def test_softmax_law_agrees_with_scipy_and_never_overflows(sums, eta):
    law = make_algorithm("rps", 2 * eta).law(sums, 0)
    assert np.all(np.isfinite(law))
    np.testing.assert_allclose(law.sum(axis=1), 1, rtol=1e-12)
    np.testing.assert_allclose(law, softmax(-min(eta, 1 / 8) * sums, axis=1), atol=1e-12)


def test_private_algorithms_need_positive_epsilon():
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(InputError, match="epsilon"):
            make_algorithm("rps", bad)
    with pytest.raises(InputError, match="algorithm"):
        make_algorithm("nope", 1.0)
