"""Tests of :mod:`privdtol.algorithms.rnm_ftnl`: Hu et al.'s report-noisy-min, argmin_j (S_j -
Z_j) with Z ~ Laplace(2/eps), and its selection law by quadrature."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.laws import noisy_min_pair_law

from privdtol.algorithms import laplace_noisy_min_law
from privdtol.algorithms.rnm_ftnl import ReportNoisyMin
from privdtol.privacy.mechanisms import laplace_noisy_min_logprob


@pytest.mark.parametrize(("d", "b"), [(2.0, 1.5), (2.0, 2.0), (1.0, 0.5), (6.0, 4.0)])
def test_noisy_min_law_of_two_actions_is_the_laplace_difference_tail(d, b):
    """argmin_j (S_j - Z_j) with S = (0, d) picks action 1 iff Z_1 - Z_0 > d."""
    np.testing.assert_allclose(
        laplace_noisy_min_law(np.array([0.0, d]), b), noisy_min_pair_law(d, b), rtol=1e-9, atol=0
    )


def test_noisy_min_law_of_a_batch_is_row_by_row():
    """S = (0, 2) and (2, 0) at scale 2: P = (1 - 0.75/e, 0.75/e) and its mirror."""
    p1 = 0.75 / math.e
    law = laplace_noisy_min_law(np.array([[0.0, 2.0], [2.0, 0.0]]), 2.0)
    np.testing.assert_allclose(law, [[1 - p1, p1], [p1, 1 - p1]], rtol=1e-9, atol=0)


@pytest.mark.parametrize(("sums", "scale"), [([0.0, 3.0, 5.0], 4.0), ([0.0, 1.0, 2.0, 7.0], 1.0)])
def test_noisy_min_law_of_more_actions_matches_the_privacy_quadrature(sums, scale):
    """Against the audits' piecewise Gauss-Legendre quadrature (privdtol.privacy.mechanisms),
    an independent evaluation accurate to rounding, within this one's absolute 1e-13."""
    reference = np.exp(laplace_noisy_min_logprob(np.array(sums), scale))
    np.testing.assert_allclose(
        laplace_noisy_min_law(np.array(sums), scale), reference, rtol=0, atol=1e-12
    )


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


def test_noisy_min_law_of_two_sums_far_from_zero():
    """Sums (1e6, 1e6 + 1), scale 1: the integrands' kinks are at z = 0 and z = -1, +1."""
    law = laplace_noisy_min_law(np.array([1e6, 1e6 + 1]), 1.0)
    np.testing.assert_allclose(law, noisy_min_pair_law(1.0, 1.0), rtol=0, atol=1e-9)


def test_noisy_min_law_of_float32_sums_is_float64_accurate():
    """Sums (10000, 10000.5) in float32 (both exact): float32 arithmetic in the integrand
    would shift z by up to ~5e-4 and the law by ~3e-9."""
    law = laplace_noisy_min_law(np.array([1e4, 1e4 + 0.5], dtype=np.float32), 1.0)
    np.testing.assert_allclose(law, noisy_min_pair_law(0.5, 1.0), rtol=0, atol=1e-11)


@pytest.mark.parametrize(
    ("sums", "scale"),
    [([0.0, 12.0, 0.0, 4.0, 7.0], 0.5), ([4.0, 8.0, 11.0, 14.0, 7.0, 11.0], 2.0)],
)
def test_noisy_min_law_meets_its_quadrature_tolerances(sums, scale):
    """With epsabs = 1e-13 and epsrel = 1e-10 the law agrees with the log-space
    Gauss-Legendre law (accurate to rounding relative to each P(j)) to 1e-14 absolute and, for
    these sums, 1e-9 relative (its smallest entries are ~1e-11)."""
    law = laplace_noisy_min_law(np.array(sums), scale)
    ref = np.exp(laplace_noisy_min_logprob(np.array(sums), scale))
    assert np.abs(law - ref).max() < 1e-14
    np.testing.assert_allclose(law, ref, rtol=1e-9, atol=0)


def test_report_noisy_min_subtracts_the_laplace_noise():
    """Hu et al.: A = argmin_j (S_j - Z_j), Z ~ Laplace(0, 2/eps) (scale 2 at eps = 1), drawn
    from the generator in one (n_runs, K) call; with zero sums that is argmax_j Z_j."""
    sums = np.zeros((500, 3))
    actions, law = ReportNoisyMin(1.0).select(np.random.default_rng(5), sums, 2)
    noise = np.random.default_rng(5).laplace(0.0, 2.0, size=(500, 3))
    assert law is None
    np.testing.assert_array_equal(actions, noise.argmax(axis=1))


def test_report_noisy_min_noise_is_centred_at_zero():
    """At eps = 1e18 the noise scale is 2e-18: Z_j = 0 + tiny keeps the two actions apart
    (each wins half the runs; 0.05 is 4.5 standard errors at 2000 runs), while 1 + tiny would
    round to exactly 1.0 and tie every run (argmin: action 0)."""
    actions, _ = ReportNoisyMin(1e18).select(np.random.default_rng(7), np.zeros((2000, 2)), 0)
    assert abs(actions.mean() - 0.5) < 0.05
