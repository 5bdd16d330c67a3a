"""Guards found by mutation testing of the exact engine's error bounds, grids and cost model
(``make mutation GROUPS=engine``, docs/testing.md): each test sits at the edge of what one line
guards, against values computed independently (exact rationals, closed forms, brute force)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

U = 2.0**-53


def _det_rps(means):
    """rps at eps = 1 (eta = min(1/2, 1/8) = 1/8) on deterministic losses: its Chernoff bound
    on group g is exactly min over theta <= eta of e^(-theta m Delta_g) = e^(-m Delta_g / 8)."""
    from privdtol.engine.exact.spec import _Spec

    return _Spec("rps", means, 1.0, "deterministic")


@pytest.mark.parametrize(("factor", "free"), [(1.1, True), (0.9, False)])
def test_cut_free_flags_half_the_chernoff_sum_against_the_tolerance(factor, free):
    """A group is flagged on [lo, h] when weight x Chernoff sum / 2 > tol (h - lo + 1) and
    predicted to lose its value at h when its Chernoff bound there is < 1e-20. Means (1/4, 3/4):
    weight 1/2, bound e^(-m/16); at h = 900, e^(-56.25) = 3.7e-25 < 1e-20. The tolerance is
    set 10% on either side of the edge: 1.1 x (the halved sum) is not flagged (cut-free)."""
    from privdtol.engine.exact.averaging import _Averager

    spec = _det_rps([0.25, 0.75])
    avg = _Averager(spec, 4096, spec.ns * spec.delta)
    lo, h = 800, 900
    csum = math.fsum(math.exp(-m / 16) for m in range(lo, h + 1))
    avg.tol = factor * (0.5 * csum / 2) / (h - lo + 1)
    assert avg._cut_free(h, lo) is free
    # a group whose bound at h (e^(-18.75) = 7e-9) keeps its value is never a reason to cut
    avg.tol = 0.0
    assert avg._cut_free(300, 200) is True


def test_normalise_bounds_the_relative_error_of_perturbed_pmf_values():
    """Binomial(6, 3/10) pmf values, each given within a relative 1e-6 (perturbed by 0.9e-6:
    up, and down at k = 5), plus a value of 1e-200 with error 1/2 that is zeroed (< 1e-150)
    and so must not count: after renormalisation every value's relative error against the
    exact pmf (rationals) is within the bound, which is about 2 x 1e-6, not 2 x 0.5."""
    from privdtol.engine.exact.binomial import _normalise

    p = [math.comb(6, k) * Fraction(3, 10) ** k * Fraction(7, 10) ** (6 - k) for k in range(7)]
    up = [1 if k != 5 else -1 for k in range(7)]
    b = [float(pk * (1 + Fraction(9, 10**7) * s)) for pk, s in zip(p, up, strict=True)]
    b = np.array([[*b, 1e-200]])
    e = np.array([[*[1e-6] * 7, 0.5]])
    bn, db = _normalise(b, e)
    assert bn[0, 7] == 0.0
    true = max(abs(Fraction(float(x)) - pk) / pk for x, pk in zip(bn[0, :7], p, strict=True))
    assert float(true) > 1.7e-6  # the perturbation really moves the values this far
    assert float(true) <= db[0] <= 2.5e-6


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


def test_log_w_error_bound_covers_the_left_end_at_large_mean_weight():
    """E[log Z_m] of rps (eps = 1, eta = 1/8) with means (0.4, 0.95) (gap 0.55 > 4 eta: large)
    at m = 2^14: Z = 1 + e^(-eta (S_1 - S_0)), so 0 <= E[log Z] <= E e^(-eta (S_1 - S_0)) =
    ((1 - 0.95 (1 - e^-eta)) (1 + 0.4 (e^eta - 1)))^m = e^-1089 (log(1 + x) <= x). There
    E W ~ e^30 (the best action's own weight): the trapezoid's left end, ~e^-45 (1 + E W)
    per unit, is the largest term of the bound, which must still hold."""
    from privdtol.engine.exact.potential import expected_log_z

    m, eta = 1 << 14, 0.125
    log_upper = m * (math.log(1 - 0.95 * -math.expm1(-eta)) + math.log1p(0.4 * math.expm1(eta)))
    assert log_upper < -1000
    value, err = expected_log_z("rps", [0.4, 0.95], 1.0, [m])
    assert err[0] >= abs(value[0]) + math.exp(log_upper)
    assert err[0] <= 1e-4


#: rps on deterministic losses (1/4, 3/4) at eps = 1: eta = 1/8, Delta = 1/2, kernel 86/eta =
#: 688 lattice points > 300, so 300 + 0.01 x 688; sd = sqrt(1/4 x 3/4); 6 laws per block
_KERNEL, _SD = 300 + 0.01 * 688, math.sqrt(3) / 4


def _block_work(r: int) -> float:
    """The planner's work of block r >= 1: A_r reads at least m = min M_(r-1) rounds (1 for
    r = 1, 2^(r-2) + 1 after), 2 groups (e^(-m/16) >= 1e-40 up to m = 1473): 6 laws x 2 groups
    x (21 sd sqrt(m) + 60 + kernel) + 2000."""
    m = 1 if r == 1 else (1 << (r - 2)) + 1
    return 6 * 2 * (21 * _SD * math.sqrt(m) + 60 + _KERNEL) + 2000


@pytest.mark.parametrize(
    ("horizon", "blocks"), [(40, 5), (2**10, 10), (2**11, 11), (2**12, 11), (2**20, 11)]
)
def test_cost_units_sums_the_work_of_the_blocks_computed(horizon, blocks):
    """Blocks 1..R-1 (R = bit length of T) up to the first r whose Chernoff tail
    sum_(r' >= r) 2^r' Delta e^(-min M_(r'-1)/16) is below 1e-16 of the regret bounded so far
    (>= Delta/2 = 1/4): r = 12 (tail ~2^11 e^-64 = 3e-25), not r = 11 (2^10 e^-32 = 1e-11):
    so T = 2^12 and T = 2^20 cost what T = 2^11 costs (blocks 1..11)."""
    from privdtol.engine.exact import cost_units

    want = math.fsum(_block_work(r) for r in range(1, blocks + 1))
    got = cost_units("rps", [0.25, 0.75], 1.0, horizon, "deterministic")
    assert got == pytest.approx(want, rel=1e-13)
