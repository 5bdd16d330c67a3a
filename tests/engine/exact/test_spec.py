"""Tests of :mod:`privdtol.engine.exact.spec`: an exact cell's instance (groups of equal means,
the rule's temperature or Laplace scale, refusals), the key its laws are shared under, and the
Chernoff bounds and sums that prune groups and end the block loop."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from support.engine_laws import U

from privdtol.engine.exact import block_law
from privdtol.engine.exact.spec import _Spec
from privdtol.environments import (
    instance_means,
)


@pytest.mark.parametrize(
    "algorithm, gap, eps, m",
    [
        ("rps", 2.0**-16, 8.0, 1 << 36),  # optimal theta ~ 2 gap, far below eta / 800
        ("rps_uncapped", 2.0**-10, 8.0, 1 << 24),  # eta = 4: the same, at a larger gap
        ("rnm_ftnl", 2.0**-10, 8.0, 1 << 24),  # Laplace scale 1/4: theta < 4
    ],
)
def test_chernoff_bounds_are_tight_at_small_gaps(algorithm, gap, eps, m):
    """The per-group Chernoff bound (which ends the block loop and the M-average) is about
    exp(-m gap^2 / (2 var)), var = 1/2 at means 1/2 -+ gap/2, even where the optimal theta lies
    below the first step of a linear theta grid (a bound stuck at 1 there would make rps at
    gap 2^-16 and rps_uncapped at eps = 8 run for hours)."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec(algorithm, [0.5 - gap / 2, 0.5 + gap / 2], eps, "bernoulli")
    assert spec.chernoff(m)[1] <= np.exp(-0.9 * m * gap * gap)


@pytest.mark.parametrize("algorithm", ["rps", "rps_uncapped", "rnm_ftnl"])
def test_chernoff_bounds_bound_the_exact_law(algorithm):
    """Validity: the bound at the block's smallest prefix is >= the exact law of the block."""
    from privdtol.engine.exact.spec import _Spec

    means = [0.45, 0.5, 0.55]
    spec = _Spec(algorithm, means, 4.0, "bernoulli")
    for r in range(1, 9):
        P, err = block_law(algorithm, means, 4.0, r)
        cb = spec.chernoff(spec.m_range(r)[0])[spec.inv]
        assert (P - err <= cb).all()


@pytest.mark.parametrize("algorithm", ["rps", "rnm_ftnl"])
def test_chernoff_sums_bound_the_summed_laws(algorithm):
    """The geometric Chernoff sum (the error of groups the M-average bounds instead of
    interpolating) bounds the exact sum of the laws over m and is at most n times the bound at
    the first m."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec(algorithm, [0.4, 0.5, 0.6], 4.0, "bernoulli")
    for a, b in ((1, 40), (33, 64), (200, 260)):
        P, err = spec.laws(np.arange(a, b + 1))
        cs = spec.chernoff_sum(a, b)
        assert ((P - err).sum(axis=0) <= cs).all()
        assert (cs <= (b - a + 1) * spec.chernoff(a) * (1 + 1e-12)).all()
    assert spec.chernoff_sum(200, 260)[2] < 0.7 * 61 * spec.chernoff(200)[2]  # geometric decay


def test_laplace_chernoff_bound_is_the_minimum_over_its_400_point_grid():
    """The Laplace rule's Chernoff bound at m rounds: min over theta of
    ((1 - mu_g + mu_g e^-theta)(1 - mu_0 + mu_0 e^theta))^m (1 - theta^2 b^2)^-2, over
    theta b in {k/401 : k = 1..400} (400 interior points of [0, 1]) and the 600-point geometric
    grid 1e-12..1 below 0.999; rnm_ftnl at eps = 1 (b = 2), means (0.3, 0.6). Tolerance: the
    exponent's rounding, 16 U times its size."""
    from privdtol.engine.exact.spec import _Spec

    b, mu0, mu1 = 2.0, 0.3, 0.6
    geo = [10.0 ** (-12 + 12 * j / 599) for j in range(600)]
    grid = [k / 401 for k in range(1, 401)] + [t for t in geo if t < 0.999]
    spec = _Spec("rnm_ftnl", [mu0, mu1], 1.0, "bernoulli")
    for m in (6, 50, 400, 3000):
        expo = min(
            m * math.log((1 - mu1 + mu1 * math.exp(-t / b)) * (1 - mu0 + mu0 * math.exp(t / b)))
            - 2 * math.log1p(-(t**2))
            for t in grid
        )
        got = spec.chernoff(m)
        assert got[0] == 1.0
        assert got[1] == pytest.approx(math.exp(min(expo, 0.0)), rel=16 * U * (abs(expo) + 1))


def test_chernoff_sum_is_a_geometric_sum_computed_without_warnings():
    """rps at eps = 1 (eta = 1/8) on deterministic losses (1/4, 3/4): group 1's Chernoff bound
    at m rounds is e^(-m/16), so its sum over m = a..b is e^(-a/16) (1 - e^(-n/16)) /
    (1 - e^(-1/16)), n = b - a + 1; the best group's is n. The best group's exponent is 0,
    whose geometric ratio 0/0 is replaced: no floating-point warning may escape."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec("rps", [0.25, 0.75], 1.0, "deterministic")
    for a, b in ((3, 10), (1, 1), (100, 400)):
        n = b - a + 1
        want = math.exp(-a / 16) * -math.expm1(-n / 16) / -math.expm1(-1 / 16)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = spec.chernoff_sum(a, b)
        assert got[0] == n
        assert got[1] == pytest.approx(min(want, n), rel=1e-13)


def test_chernoff_sum_of_an_exponent_below_1e300_is_n_times_the_bound_at_a():
    """rps (eta = 1/8) on Bernoulli means (0, 5e-300): group 1's per-round exponent,
    min over theta <= eta of log(1 + 5e-300 (e^(-theta) - 1)), is 5e-300 (e^(-1/8) - 1)
    ~ -5.9e-301, too small for the geometric ratio: the sum over m = a..a+n-1 is bounded by
    n e^(a x). At a = 10^303, a x = 5000 (e^(-1/8) - 1) ~ -587.5; the best group's sum is n."""
    spec = _Spec("rps", [0.0, 5e-300], 1.0, "bernoulli")
    bound = math.exp(5000 * math.expm1(-0.125))
    for n in (1, 10):
        got = spec.chernoff_sum(10**303, 10**303 + n - 1)
        assert got[0] == n
        assert got[1] == pytest.approx(n * bound, rel=1e-12)


def test_law_key_is_the_same_for_integer_and_float_means():
    """Means read from a config as integers (0, 1) are the same instance as (0.0, 1.0): the
    key of the selection laws (``_Spec.law_key``, which lets cells share their laws) holds
    the means as floats, whatever their type on input."""
    from privdtol.engine.exact.spec import _Spec

    ints = _Spec("rnm_ftnl", [0, 1], 1.0, "deterministic")
    floats = _Spec("rnm_ftnl", [0.0, 1.0], 1.0, "deterministic")
    assert ints.law_key() == floats.law_key()
    assert ints.mu.tobytes() == np.array([0.0, 1.0]).tobytes()


MEANS8 = [0.25, 0.5, 0.75, 0.75, 0.5, 0.5, 1.0, 0.5]


@pytest.mark.parametrize(
    ("algorithm", "softmax", "scale", "det", "random_prefix"),
    [
        ("rps", True, 0.125, True, True),  # eta = min(eps/2, 1/8)
        ("rps_full_prefix", True, 0.125, True, False),
        ("rps_uncapped", True, 0.25, True, True),  # eta = eps/2
        ("rps_eta_logk", True, 0.125 / 3, True, True),  # min(eps/2, 1/8) / log2(8)
        ("rps_eta_sq", True, 0.125, True, True),  # eps^2/2
        ("rps_short_prefix", True, 0.125, True, False),
        ("wu_wang_gumbel", True, 0.25, False, False),  # Gumbel(2/eps): eps/2, resampled
        ("rnm_ftnl", False, 4.0, True, False),  # Laplace(2/eps) on atoms
        ("wu_wang", False, 4.0, False, False),  # resampled losses: never atoms
    ],
)
def test_spec_groups_equal_means_and_reads_the_rule_of_each_algorithm(
    algorithm, softmax, scale, det, random_prefix
):
    """K = 8 deterministic means with groups 0.25 (best, 1), 0.5 (4), 0.75 (2), 1 (1) at
    eps = 1/2: the sorted group means, float sizes, gaps, K and each action's group; the
    rule's temperature or Laplace scale (the other None), atoms unless resampled, the random
    prefix of the RPS family. A softmax's per-round exponent on atoms is -eta Delta (theta =
    eta, the grid's end), with no penalty; Laplace's penalty is -2 log(1 - (theta b)^2) on
    its theta grid (theta b from 1e-12 to 400/401)."""
    spec = _Spec(algorithm, MEANS8, 0.5, "deterministic")
    assert spec.mu.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert spec.ns.dtype == np.float64 and spec.ns.tolist() == [1.0, 4.0, 2.0, 1.0]
    assert spec.delta.tolist() == [0.0, 0.25, 0.5, 0.75] and spec.K == 8
    assert spec.inv.tolist() == [0, 1, 2, 2, 1, 1, 3, 1]
    assert (spec.softmax, spec.det, spec.random_prefix) == (softmax, det, random_prefix)
    if softmax:
        assert spec.eta == pytest.approx(scale, rel=1e-15) and spec.b is None
        if det:
            np.testing.assert_allclose(spec.lmgf[:, 0], -scale * spec.delta, rtol=1e-15)
        assert spec.lmgf.shape == (4, 1) and spec.pen.tolist() == [0.0]
    else:
        assert spec.b == scale and spec.eta is None
        # theta b: 400 interior points of [0, 1] and 599 geometric ones in [1e-12, 0.999)
        assert spec.pen.shape == (999,) and spec.lmgf.shape == (4, 999)
        assert spec.pen.min() == pytest.approx(-2 * math.log1p(-(1e-12**2)), rel=1e-12)
        assert spec.pen.max() == pytest.approx(-2 * math.log1p(-((400 / 401) ** 2)), rel=1e-12)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("hedge", [0.2, 0.5], 1.0, "bernoulli"), "unsupported algorithm/env 'hedge'/'bernoulli'"),
        (("rps", [0.2, 0.5], 1.0, "gaussian"), "unsupported algorithm/env 'rps'/'gaussian'"),
        (("rps", [0.5], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [[0.2, 0.5]], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [-0.01, 0.5], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [0.2, 1.01], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [0.2, 0.5], 0.0, "bernoulli"), "epsilon must be a finite number > 0"),
        (("rps", [0.2, 0.5], math.inf, "bernoulli"), "epsilon must be a finite number > 0"),
        (("rps", [0.2, 0.5], math.nan, "bernoulli"), "epsilon must be a finite number > 0"),
        (("rps", [0.2, 0.2, 0.5], 1.0, "bernoulli"), "means: no unique best action"),
    ],
)
def test_spec_refuses_each_invalid_instance_with_its_message(args, message):
    """Each refusal of an exact cell, with its exact sentence; the ends 0 and 1 of the means
    and a tiny eps are allowed, and a softmax's eta override replaces its temperature."""
    with pytest.raises(ValueError) as err:
        _Spec(*args)
    assert str(err.value) == message
    assert _Spec("rps", [0.0, 1.0], 1e-9, "bernoulli").eta == 0.5e-9
    assert _Spec("rps", [0.0, 1.0], 1.0, "bernoulli", eta=0.01).eta == 0.01


def test_spec_refuses_an_eta_override_of_a_laplace_rule():
    """report-noisy-min has a noise scale, no temperature to override."""
    with pytest.raises(ValueError) as err:
        _Spec("rnm_ftnl", [0.2, 0.5], 1.0, "bernoulli", eta=0.1)
    assert str(err.value) == "'rnm_ftnl' is not a softmax rule: no eta to override"


@pytest.mark.parametrize("algorithm", ["rnm_ftnl", "rps"])
def test_law_with_every_other_group_pruned_is_the_best_action(algorithm):
    """m = 5000 Bernoulli rounds, means (0.1, 0.9): the other group's Chernoff bound is below
    PRUNE = 1e-40, so it is dropped and the law is all on the best action (group 0)."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec(algorithm, [0.1, 0.9], 1.0, "bernoulli")
    assert not spec.kept(5000)[1]
    P, err = spec.law(5000)
    assert P.tolist() == [1.0, 0.0]
    assert 0 <= err[1] < 1e-40


MEANS = instance_means(8, 1 / 8, None, "standard")


def key(algorithm, eps, env="bernoulli", means=MEANS):
    return _Spec(algorithm, means, eps, env).law_key()


def test_the_key_separates_instances():
    other = instance_means(8, 1 / 16, None, "standard")
    assert key("rps", 1.0) != key("rps", 1.0, means=other)
    assert key("rps", 1.0) != key("rps", 1.0, means=instance_means(9, 1 / 8, None, "standard"))


@pytest.mark.parametrize(
    "algorithm, means, ms",
    [
        ("rps", [0.3, 0.3 + 2**-6, 0.6, 0.9], [*range(1, 65), 200, 400]),  # m <= 400
        ("rps", [0.3, 0.3 + 2**-6, 0.6, 0.7, 0.7], [401, 1000, 5000, 13078, 90000]),
        ("rps", [0.25, 0.5, 0.75], [500, 2000]),  # mirrored groups: mirrored windows
        ("wu_wang_gumbel", [0.1, 0.1 + 2**-10, 0.5], [3000, 2**20]),
        ("rnm_ftnl", [0.2, 0.2 + 2**-6, 0.95], [1, 64, 700, 40000]),
    ],
)
def test_laws_of_many_m_are_one_pmf_call_per_m_bit_for_bit(monkeypatch, algorithm, means, ms):
    """_Spec.laws computes the Binomial windows and pmfs of all its m in a few batches
    (binomial._supports_many, _pmf_windows_many); with both replaced by one call per m (the
    computation before the batches), every law and every error bound is the same to the last
    bit, and each law is law(m)'s."""
    from privdtol.engine.exact import binomial, spec

    s = _Spec(algorithm, means, 1.0, "bernoulli")
    P, E = s.laws(ms)
    monkeypatch.setattr(spec, "_pmf_windows_many", lambda c: [binomial._pmf_windows(*x) for x in c])
    monkeypatch.setattr(spec, "_supports_many", lambda c: [binomial._supports(*x) for x in c])
    P1, E1 = s.laws(ms)
    assert np.array_equal(P, P1) and np.array_equal(E, E1)
    for i, m in enumerate(ms):
        if m > 400 or not s.softmax:  # law(m) is laws' own path beyond SMALL_M
            p, e = s.law(m)
            assert np.array_equal(P[i], p) and np.array_equal(E[i], e)
