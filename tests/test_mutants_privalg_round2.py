"""Guards found by the second fresh mutation samples of ``privdtol.privacy`` and
``privdtol.algorithms`` (issue 24, docs/testing.md "Mutation testing"): the privacy grid's
Laplace-only K cap, its statistical ``runs`` and the columns of an empty grid; the default
``runs`` of the statistical audit; ``logsumexp`` and ``leader_margin`` of float32 and integer
input; the whole-sequence size guard; inversion sampling when ``u`` rounds up to a subnormal
row total; the noisy-min law far from zero, of float32 sums and at its quadrature tolerances;
report-noisy-min's sign and its noise location.  Expected values are written out by hand or come
from closed forms (the difference of two Laplace variables) or from the independent log-space
Gauss-Legendre law :func:`privdtol.privacy.mechanisms.laplace_noisy_min_logprob`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privdtol.algorithms import laplace_noisy_min_law, make_algorithm, sample_from
from privdtol.algorithms.negative_controls import leader_margin
from privdtol.algorithms.rnm_ftnl import ReportNoisyMin
from privdtol.errors import InputError
from privdtol.privacy import audit_grid
from privdtol.privacy.mechanisms import laplace_noisy_min_logprob, logsumexp
from privdtol.privacy.statistical import audit_statistical
from privdtol.privacy.whole_sequence import sequence_log_law

#: a grid with every audit switched off; tests switch on the part they need
_NOTHING = {
    "algorithms": [],
    "negative_controls": [],
    "epsilons": [1.0],
    "K": [2],
    "blocks": [1],
    "exact": {"n_random": 0, "max_steps": 1},
    "sequence": {"K": []},
    "statistical": {"algorithms": []},
}


def test_the_grid_caps_K_for_laplace_algorithms_only():
    """laplace_max_K = 4 < K = 8: the exact audit of rnm_ftnl (K quadratures per law) is
    skipped, that of rps (closed-form softmax) is not."""
    grid = {**_NOTHING, "algorithms": ["rps", "rnm_ftnl"], "K": [8]}
    grid["exact"] = {"n_random": 0, "max_steps": 1, "laplace_max_K": 4}
    df = audit_grid.run_grid(grid)
    assert df[["audit", "algorithm"]].values.tolist() == [["exact_selection", "rps"]]
    assert df["K"].tolist() == [8]


def test_an_empty_grid_is_an_empty_table_with_the_privacy_columns():
    df = audit_grid.run_grid(_NOTHING)
    assert len(df) == 0
    assert list(df.columns) == audit_grid.COLUMNS


def test_the_grid_passes_its_statistical_runs():
    grid = {**_NOTHING, "statistical": {"algorithms": ["rps"], "K": [2], "block": 1, "runs": 10}}
    df = audit_grid.run_grid(grid)
    assert df["audit"].tolist() == ["statistical"]
    assert df["runs"].tolist() == [10]


def test_the_statistical_audit_runs_20000_times_by_default():
    assert audit_statistical("rps", 1.0, K=2, block=1).runs == 20000


def test_logsumexp_of_float32_input_is_computed_in_float64():
    """log(e^0 + e^0) = ln 2 to float64 rounding (float32 would be off by ~1e-8)."""
    out = logsumexp(np.zeros(2, dtype=np.float32))
    assert out.dtype == np.float64
    assert abs(float(out) - math.log(2)) < 1e-15


def test_leader_margin_of_float32_and_integer_sums_is_float64():
    """1e8 - 1 = 99999999 exactly in float64; in float32 (spacing 8 at 1e8) it rounds to 1e8."""
    margin = leader_margin(np.array([[1e8, 1.0]], dtype=np.float32))
    assert margin.dtype == np.float64
    assert margin.tolist() == [99999999.0]
    margin = leader_margin(np.array([[3, 1, 2], [5, 5, 0]]))
    assert margin.dtype == np.float64
    assert margin.tolist() == [1.0, 5.0]


def test_the_sequence_law_refuses_more_than_2_to_the_20_sequences():
    """rps at T = 127 (R = 7): the prefix supports of blocks 1..5 have 1, 2, 4, 8, 16 points,
    so 2^10 combinations; at K = 3 that is 2^10 * 3^7 = 2239488 > 2^20 sequences."""
    with pytest.raises(InputError, match="1024 prefix combinations x 3"):
        sequence_log_law(make_algorithm("rps", 1.0), np.zeros((127, 3)))


def test_sample_from_keeps_a_draw_in_range_when_u_rounds_up_to_the_row_total():
    """Weights (0, 5e-324): u = U * 5e-324 rounds to 0 or to 5e-324 itself (no float lies
    between); at u = 5e-324 every cdf entry is <= u, and the last action is the only one of
    positive weight."""
    probs = np.tile([0.0, 5e-324], (200, 1))
    draws = sample_from(np.random.default_rng(0), probs)
    assert draws.tolist() == [1] * 200


def _two_action_law(d: float, b: float) -> list[float]:
    """(P(0), P(1)) of argmin_j (S_j - Z_j), S_1 - S_0 = d >= 0, Z_j i.i.d. Laplace(b):
    P(1) = P(Z_1 - Z_0 > d) = e^(-d/b) (2 + d/b) / 4 (difference of two Laplace variables)."""
    p1 = math.exp(-d / b) * (2 + d / b) / 4
    return [1 - p1, p1]


def test_noisy_min_law_of_two_sums_far_from_zero():
    """Sums (1e6, 1e6 + 1), scale 1: the integrands' kinks are at z = 0 and z = -1, +1."""
    law = laplace_noisy_min_law(np.array([1e6, 1e6 + 1]), 1.0)
    np.testing.assert_allclose(law, _two_action_law(1.0, 1.0), rtol=0, atol=1e-9)


def test_noisy_min_law_of_float32_sums_is_float64_accurate():
    """Sums (10000, 10000.5) in float32 (both exact): float32 arithmetic in the integrand
    would shift z by up to ~5e-4 and the law by ~3e-9."""
    law = laplace_noisy_min_law(np.array([1e4, 1e4 + 0.5], dtype=np.float32), 1.0)
    np.testing.assert_allclose(law, _two_action_law(0.5, 1.0), rtol=0, atol=1e-11)


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
