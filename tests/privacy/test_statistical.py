"""Tests of :mod:`privdtol.privacy.statistical`: the statistical audit of a block algorithm
run in the simulator on neighbouring loss matrices, and its Clopper-Pearson bounds on the
privacy loss (checked on randomized response, whose loss is exactly eps)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privdtol.algorithms import ALGORITHMS
from privdtol.core.seeding import generator
from privdtol.errors import InputError
from privdtol.privacy import statistical
from privdtol.privacy.statistical import audit_statistical, loss_bounds


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


def test_statistical_audit_refuses_a_round_algorithm_and_names_its_verdict():
    with pytest.raises(InputError) as err:
        statistical.audit_statistical(ALGORITHMS["hedge"](None), runs=10)
    assert str(err.value) == "algorithm: hedge is not a block algorithm (allowed: block algorithms)"
    res = statistical.audit_statistical("rps", 1.0, K=2, block=1, runs=10)
    assert (res.violation, res.verdict) == (False, "no violation detected at this power")


LEVEL = 0.025


CASES = [(0, 10), (1, 10), (3, 10), (9, 10), (10, 10), (0, 1), (1, 1), (7, 20)]


@pytest.mark.parametrize(("k", "n"), CASES)
def test_clopper_pearson_is_the_textbook_pair_of_beta_quantiles(k, n):
    """Clopper & Pearson (1934): lower = Beta(k, n - k + 1).ppf(level) (0 at k = 0), upper =
    Beta(k + 1, n - k).ppf(1 - level) (1 at k = n)."""
    lower = 0.0 if k == 0 else stats.beta.ppf(LEVEL, k, n - k + 1)
    upper = 1.0 if k == n else stats.beta.ppf(1 - LEVEL, k + 1, n - k)
    lo, up = statistical.clopper_pearson(np.array([k]), n, LEVEL)
    assert lo[0] == pytest.approx(lower, rel=1e-12, abs=1e-300)
    assert up[0] == pytest.approx(upper, rel=1e-12)


@pytest.mark.parametrize(("k", "n"), [(k, n) for k, n in CASES if 0 < k < n])
def test_clopper_pearson_bounds_are_where_the_binomial_tails_equal_the_level(k, n):
    """The definition: the lower bound is the p with P(X >= k | p) = level, the upper bound
    the p with P(X <= k | p) = level, X ~ Binomial(n, p)."""
    lo, up = statistical.clopper_pearson(np.array([k]), n, LEVEL)
    assert stats.binom.sf(k - 1, n, lo[0]) == pytest.approx(LEVEL, rel=1e-9)
    assert stats.binom.cdf(k, n, up[0]) == pytest.approx(LEVEL, rel=1e-9)


def test_clopper_pearson_at_the_ends_in_closed_form():
    """k = n: P(X >= n | p) = p^n, so lower = level^(1/n); k = 0: P(X <= 0 | p) = (1 - p)^n,
    so upper = 1 - level^(1/n); the other side is the trivial 1 or 0."""
    lo, up = statistical.clopper_pearson(np.array([0, 20]), 20, 0.05)
    np.testing.assert_allclose(lo, [0.0, 0.05 ** (1 / 20)], rtol=1e-12)
    np.testing.assert_allclose(up, [1 - 0.05 ** (1 / 20), 1.0], rtol=1e-12)


def test_the_statistical_audit_refuses_the_data_chosen_prefix():
    with pytest.raises(InputError) as err:
        statistical.audit_statistical("rps_data_prefix", 1.0, K=2, block=1, runs=10)
    assert str(err.value) == (
        "method: rps_data_prefix cannot run in the simulator (its prefix depends on the data) "
        "(allowed: exact, sequence)"
    )
    assert err.value.field == "method"


@pytest.mark.parametrize("runs", [5, 9, 10.5, 20000.5])
def test_the_statistical_audit_refuses_too_few_or_fractional_runs(runs):
    with pytest.raises(InputError) as err:
        statistical.audit_statistical("rps", 1.0, K=2, block=1, runs=runs)
    assert str(err.value) == f"runs: got {runs} (allowed: integers >= 10)"


@pytest.mark.parametrize(
    ("name", "law"), [("rps", "softmax_mixture"), ("rnm_ftnl", "laplace_quadrature")]
)
def test_the_statistical_audit_names_its_law_and_witness(name, law):
    """block 4 (r = 2): the changed row is row 3 (time 4), from (0, 1) to (1, 0); the event
    audited is the first action after it, A_3."""
    res = statistical.audit_statistical(name, 1.0, K=2, block=4, runs=10)
    assert res.law == law
    assert res.event in (0, 1)
    assert res.witness_text == f"time 4 (block 2): (0, 1) -> (1, 0); event A_3 = {res.event}"


def test_the_statistical_audit_runs_20000_times_by_default():
    assert audit_statistical("rps", 1.0, K=2, block=1).runs == 20000


def randomized_response_counts(eps, n, seed):
    """Randomized response on one bit: report it with prob e^eps / (1 + e^eps); the counts of
    the output under input 0 and input 1 -- a mechanism whose privacy loss is exactly eps."""
    rng = generator({"test": "rr", "eps": eps, "n": n, "seed": seed})
    keep = np.exp(eps) / (1 + np.exp(eps))
    out0 = (rng.random(n) >= keep).astype(int)
    out1 = (rng.random(n) < keep).astype(int)
    return np.bincount(out0, minlength=2), np.bincount(out1, minlength=2)


def test_clopper_pearson_covers_randomized_response():
    eps = 1.0
    misses = 0
    for seed in range(20):
        c0, c1 = randomized_response_counts(eps, 2000, seed)
        b = loss_bounds(c0, c1, alpha=0.05)
        misses += not (b["lower"] <= eps <= b["upper"])
    assert misses <= 3  # simultaneous 95% bounds (Bonferroni: conservative)


def test_statistical_audit_detects_understated_epsilon():
    c0, c1 = randomized_response_counts(1.0, 20000, 0)
    b = loss_bounds(c0, c1, alpha=0.05)
    assert b["lower"] > 0.5  # a claim of eps = 0.5 is refuted
    assert b["lower"] <= 1.0 <= b["upper"]


def test_statistical_audit_of_replayed_runs():
    res = audit_statistical("rnm_ftnl", 0.5, K=2, block=16, runs=20000)
    assert not res.violation and res.loss_lower <= res.exact_loss <= res.loss_upper
    bad = audit_statistical("rps_eta_eps", 0.5, K=4, block=8, runs=20000)
    assert bad.violation and bad.loss_lower > 0.5
