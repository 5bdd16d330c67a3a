"""Tests of :mod:`privdtol.engine.exact.spec`."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.engine.exact import block_law
from privdtol.engine.exact import spec as spec_module
from privdtol.engine.exact.spec import _Spec

# --- from tests/test_exact.py


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
    below the first step of a linear theta grid; a bound stuck at 1 there made rps at gap
    2^-16 and rps_uncapped at eps = 8 run for hours (issue 11's stalled paper cells)."""
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


# --- from tests/test_exact_numerics.py


@pytest.mark.parametrize("algorithm", ["rps", "rps_uncapped"])
def test_windowed_law_matches_brute_force_at_k2(algorithm):
    """The law from m = 401 rounds (windowed supports, m > SMALL_M) against the sum over all
    402^2 pairs of Binomial sums; rps_uncapped at eps = 1 (eta = 1/2) has two node offsets per
    lattice point (their node positions are not sorted: a kept-node filter that assumed so
    halved this law)."""
    from scipy.stats import binom

    means, eps, m = np.array([0.4, 0.6]), 1.0, 401
    spec = spec_module._Spec(algorithm, means, eps, "bernoulli")
    P, err = spec.law(m)
    k = np.arange(m + 1)
    s = np.stack(np.meshgrid(k, k, indexing="ij"), axis=-1).reshape(-1, 2).astype(float)
    prob = np.outer(binom.pmf(k, m, means[0]), binom.pmf(k, m, means[1])).ravel()
    want = prob @ make_algorithm(algorithm, eps).law(s, 9)
    # (the brute-force sum of 402^2 positive terms: relative rounding well below 1e-11)
    assert abs(P[1] - want[1]) <= err[1] + 1e-11 * want[1]


# --- from tests/test_mutants_engine_bounds.py

U = 2.0**-53


def _laplace_diff_sf(d: float, b: float) -> float:
    """P(Z_0 - Z_1 > d) for Z_0, Z_1 i.i.d. Laplace(b): the difference has density
    (1 + |x|/b) e^(-|x|/b) / (4b), whose tail beyond d >= 0 is (2 + d/b) e^(-d/b) / 4."""
    t = (2 + abs(d) / b) * math.exp(-abs(d) / b) / 4
    return t if d >= 0 else 1 - t


def test_laplace_law_on_a_binomial_lattice_matches_the_closed_form():
    """rnm_ftnl (report-noisy-min, Laplace(2/eps) noise, Hu et al.) at eps = 1 after m = 6
    Bernoulli rounds, means (0.3, 0.6): block sums on the lattice 0..6 (the engine's AR(1)
    recursion of the Laplace cdf's exponential parts). Action 1 wins iff Z_0 - Z_1 > Y_1 - Y_0,
    summed over the exact Binomial pmfs; the engine's value is within its error bound of it,
    and its Chernoff bound lies above it."""
    from privdtol.engine.exact.spec import _Spec

    m, b = 6, 2.0
    pmf = [
        [math.comb(m, k) * mu**k * (1 - mu) ** (m - k) for k in range(m + 1)] for mu in (0.3, 0.6)
    ]
    exact = math.fsum(
        pmf[0][y0] * pmf[1][y1] * _laplace_diff_sf(y1 - y0, b)
        for y0 in range(m + 1)
        for y1 in range(m + 1)
    )
    spec = _Spec("rnm_ftnl", [0.3, 0.6], 1.0, "bernoulli")
    assert spec.b == b
    P, err = spec.law(m)
    assert 0.1 < exact < 0.4
    for g, want in ((0, 1 - exact), (1, exact)):
        assert abs(P[g] - want) <= err[g] + 64 * U  # 64 U: the closed form's own rounding
        assert err[g] <= 1e-10
    assert spec.chernoff(m)[1] >= exact


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


# --- from tests/test_mutants_engine_fresh.py


def test_laplace_law_on_unequally_spaced_atoms_matches_quadrature():
    """rnm_ftnl (Laplace(2/eps) noise, eps = 1: b = 2) on deterministic losses (0.2, 0.5, 0.6)
    after m = 4 rounds: atoms 0.8, 2.0, 2.4, spaced 1.2 and 0.4 (the engine's general
    recursion, each step with its own e^(-gap/b)). P(g wins) = int f(w) prod_(h != g)
    SF(y_g - y_h + w) dw, W ~ Laplace(b) (scipy.stats), by quadrature between the kinks."""
    from scipy import integrate, stats

    from privdtol.engine.exact.spec import _Spec

    means, m, b = [0.2, 0.5, 0.6], 4, 2.0
    y = [m * u for u in means]
    lap = stats.laplace(scale=b)

    def win(g):
        def f(w):
            return lap.pdf(w) * math.prod(lap.sf(y[g] - y[h] + w) for h in range(3) if h != g)

        pts = sorted({0.0} | {y[h] - y[g] for h in range(3)})
        edges = zip([-np.inf, *pts], [*pts, np.inf], strict=True)
        return math.fsum(integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-13)[0] for lo, hi in edges)

    spec = _Spec("rnm_ftnl", means, 1.0, "deterministic")
    assert spec.b == b
    P, err = spec.law(m)
    for g in range(3):
        want = win(g)
        assert abs(P[g] - want) <= err[g] + 1e-14  # 1e-14: the quadrature's own error
        assert err[g] <= 1e-12
    assert 0.5 < P[0] < 0.52 and 0.26 < P[1] < 0.28 and 0.21 < P[2] < 0.22


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


@pytest.mark.parametrize(
    ("epsilon", "m"),
    [
        (8.0, 20),  # eta = 4: 10 node offsets, no cached dense matrix (one built per offset)
        (4.0, 2000),  # eta = 2: 727 > 600 lattice points kept, short kernel: per-row np.convolve
        (2.0, 2000),  # eta = 1: 727 points, block-Toeplitz GEMM over 3 offsets x 3 kernels
        (0.25, 2000),  # eta = 1/8: polyphase (nodes every 3 points), block-Toeplitz GEMM
    ],
)
def test_softmax_law_on_a_binomial_lattice_matches_brute_force(epsilon, m):
    """rps_uncapped (eta = eps/2) after m Bernoulli rounds, means (0.4, 0.5): P(A = 1) =
    sum_d P(S_1 - S_0 = d) / (1 + e^(eta d)), S_0 ~ Bin(m, 0.4), S_1 ~ Bin(m, 0.5) (scipy.stats
    pmfs, the law of the difference by direct convolution); the engine's value is within its
    error bound of it (plus 64 U of the brute force's own rounding)."""
    from scipy import stats

    from privdtol.engine.exact.spec import _Spec

    eta, k = epsilon / 2, np.arange(m + 1)
    p0, p1 = stats.binom.pmf(k, m, 0.4), stats.binom.pmf(k, m, 0.5)
    pd = np.convolve(p1, p0[::-1])  # P(S1 - S0 = d), d = -m..m
    d = np.arange(-m, m + 1)
    want = math.fsum(pd * np.exp(-np.logaddexp(0.0, eta * d)))
    spec = _Spec("rps_uncapped", [0.4, 0.5], epsilon, "bernoulli")
    assert spec.eta == eta
    P, err = spec.law(m)
    for g, v in ((0, 1 - want), (1, want)):
        assert abs(P[g] - v) <= err[g] + 64 * 2.0**-53
        assert err[g] <= 1e-9


# --- from tests/test_mutants_engine_r3b.py


def test_law_key_is_the_same_for_integer_and_float_means():
    """Means read from a config as integers (0, 1) are the same instance as (0.0, 1.0): the
    key of the selection laws (``_Spec.law_key``, which lets cells share their laws) holds
    the means as floats, whatever their type on input."""
    from privdtol.engine.exact.spec import _Spec

    ints = _Spec("rnm_ftnl", [0, 1], 1.0, "deterministic")
    floats = _Spec("rnm_ftnl", [0.0, 1.0], 1.0, "deterministic")
    assert ints.law_key() == floats.law_key()
    assert ints.mu.tobytes() == np.array([0.0, 1.0]).tobytes()


# --- from tests/test_mutants_engine_r4c.py


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


# --- from tests/test_mutants_engine_round2.py


def test_spec_names_a_tied_best_action():
    from privdtol.engine.exact.spec import _Spec

    with pytest.raises(ValueError, match=r"^means: no unique best action$"):
        _Spec("rps", [0.2, 0.2, 0.5], 1.0, "bernoulli")


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
