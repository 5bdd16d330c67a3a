"""Guards found by fresh mutation samples of ``privdtol.algorithms`` and of
``privdtol.analysis.stats`` (issue 24, docs/testing.md "Mutation testing"): inversion sampling at
a uniform exactly on a CDF step, Decreasing Hedge with more runs than actions, the noisy-min
law's renormalisation, the softmax law of integer and float32 sums, the ``logk_fit`` floor of a
zero standard error and ``offset_power_fit`` on a law of tiny values.  Expected values are
written out by hand."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from privdtol.algorithms import laplace_noisy_min_law, sample_from, softmax_law
from privdtol.algorithms.hedge import DecreasingHedge
from privdtol.analysis import stats


class _FixedUniforms:
    """A stand-in generator whose ``random(n)`` returns the given uniforms."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=float)

    def random(self, n):
        assert n == self.values.size
        return self.values


def test_sample_from_puts_a_uniform_on_a_cdf_step_into_the_next_action():
    """Inversion with u in [0, 1): action j owns [cdf_(j-1), cdf_j), so u = 0 never picks an
    action of probability 0 and u = 1/2 with cdf (0, 1/2, 1) picks action 2."""
    probs = np.tile([0.0, 0.5, 0.5], (4, 1))
    draws = sample_from(_FixedUniforms([0.0, 0.25, 0.5, 0.75]), probs)
    np.testing.assert_array_equal(draws, [1, 1, 2, 2])
    # unnormalised weights (0, 2, 2): u is scaled by the row total 4, steps at 0 and 2
    draws = sample_from(_FixedUniforms([0.0, 0.5]), np.tile([0.0, 2.0, 2.0], (2, 1)))
    np.testing.assert_array_equal(draws, [1, 2])


def test_decreasing_hedge_with_more_runs_than_actions():
    """K = 2, t = 4: eta_4 = 2 sqrt(ln 2 / 4) = sqrt(ln 2), the same for each of 3 runs;
    P(action 1) = 1 / (1 + e^(eta (L_1 - L_0)))."""
    eta = math.sqrt(math.log(2))
    law = DecreasingHedge().law(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), 4)
    p = 1 / (1 + math.exp(eta))
    np.testing.assert_allclose(law, [[1 - p, p], [p, 1 - p], [0.5, 0.5]], rtol=1e-12)
    one = DecreasingHedge().law(np.array([[0.0, 1.0]]), 4)
    np.testing.assert_allclose(one, [[1 - p, p]], rtol=1e-12)


@pytest.mark.parametrize(
    ("sums", "scale"),
    [
        ([1.0, 6.0, 5.0, 1.0, 5.0, 3.0, 1.0, 6.0], 1.0),
        ([3.0, 9.0, 1.0, 6.0, 13.0, 8.0, 11.0, 4.0], 2.5),
    ],
)
def test_noisy_min_law_is_normalised_to_rounding(sums, scale):
    """At K = 8 the K quadratures sum to 1 only within ~1e-14 (their tolerance is 1e-13); the
    law divides by that sum, so its entries add up to 1 within K rounding errors (< 4e-15)."""
    law = laplace_noisy_min_law(np.array(sums), scale)
    assert abs(float(law.sum()) - 1.0) < 4e-15
    # the tied smallest sums share the largest probability
    low = np.flatnonzero(np.array(sums) == min(sums))
    assert np.ptp(law[low]) < 1e-12 and law.argmax() in low


def test_softmax_law_of_integer_counts_and_float32_sums_is_float64():
    """softmax(-eta L) of L = (0, 1): P(action 1) = e^-eta / (1 + e^-eta)."""
    law = softmax_law(np.array([[0, 1], [2, 2]]), 1)  # integer loss counts, integer eta
    p = math.exp(-1) / (1 + math.exp(-1))
    assert law.dtype == np.float64
    np.testing.assert_allclose(law, [[1 - p, p], [0.5, 0.5]], rtol=1e-15)
    law = softmax_law(np.array([[0.0, 1.0]], dtype=np.float32), 0.1)
    p = math.exp(-0.1) / (1 + math.exp(-0.1))
    assert law.dtype == np.float64
    np.testing.assert_allclose(law, [[1 - p, p]], rtol=1e-14)


def test_logk_fit_floors_a_zero_standard_error_at_1e_9_below_a_mean_of_1():
    """se = 0 and every |mean| < 1: sigma = 1e-9 for every cell, so the WLS is ordinary least
    squares.  f = ln K = (0, 1, 2), mean = (0.1, 0.2, 0.4): a = 0.15, b = 0.7/3 - 0.15 = 1/12,
    residuals (1/60, -1/30, 1/60), chi2 = (1/600) / 1e-18; X'X = [[5, 3], [3, 3]] has inverse
    [[3, -3], [-3, 5]] / 6, so se_a = 1e-9 sqrt(1/2) and se_b = 1e-9 sqrt(5/6)."""
    K = np.exp([0.0, 1.0, 2.0])
    fit = stats.logk_fit(K, [0.1, 0.2, 0.4], [0.0, 0.0, 0.0], "log K")
    assert fit["a"] == pytest.approx(0.15, rel=1e-9)
    assert fit["b"] == pytest.approx(1 / 12, rel=1e-9)
    assert fit["chi2"] == pytest.approx(1e18 / 600, rel=1e-6)
    assert fit["se_a"] == pytest.approx(1e-9 * math.sqrt(0.5), rel=1e-9)
    assert fit["se_b"] == pytest.approx(1e-9 * math.sqrt(5 / 6), rel=1e-9)
    # above a mean of 1 the floor is relative: means (2, 4, 8) get sigma = 1e-9 |mean|
    big = stats.logk_fit(K, [2.0, 4.0, 8.0], [0.0, 0.0, 0.0], "log K")
    w = 1 / (1e-9 * np.array([2.0, 4.0, 8.0])) ** 2
    f = np.array([0.0, 1.0, 2.0])
    S, Sf, Sff = w.sum(), (w * f).sum(), (w * f * f).sum()
    assert big["se_a"] == pytest.approx(math.sqrt(S / (S * Sff - Sf**2)), rel=1e-9)


def test_offset_power_fit_recovers_a_law_of_tiny_values():
    """x = 1e-6 · 2^(k/2), k = 0..4, y = 1000 x^2 (1e-9 .. 1.6e-8): A = 1000, p = 2, B = 0.
    Each start puts A x^p at max y at the largest x (log A = log max y - p log max x)."""
    x = 1e-6 * 2.0 ** (np.arange(5) / 2)
    y = 1000.0 * x**2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fit = stats.offset_power_fit(x, y)
    assert fit["A"] == pytest.approx(1000.0, rel=1e-6)
    assert fit["p"] == pytest.approx(2.0, rel=1e-6)
    assert abs(fit["B"]) < 1e-6 * y.min()
