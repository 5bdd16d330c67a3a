"""Tests of :mod:`privdtol.engine.exact.laplace`: the report-noisy-min law (Laplace(2/eps) noise,
``rnm_ftnl`` and ``wu_wang``) on Binomial lattices and on atoms, against closed forms and scipy
quadrature, with its documented error bound and Gauss-Kronrod refinement."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate
from support.engine_laws import U

from privdtol.engine.exact.spec import _Spec
from privdtol.environments import instance_means


def quadrature_p_best(K: int, eps: float, mu1: float = 0.25, mu: float = 0.75) -> float:
    """P(argmin_j (S_j - Z_j) = best) after one round (S_j ~ Bernoulli), Z_j Laplace(2/eps),
    by scipy's adaptive quadrature of f_best(v) P(V > v)^(K - 1) over v = S - Z, with
    breakpoints around v = -b ln K where the integrand sits.  Shares no code with the engine."""
    b = 2 / eps

    def sf(x):  # P(W > x), W Laplace(b)
        return 1 - 0.5 * np.exp(x / b) if x < 0 else 0.5 * np.exp(-x / b)

    def pdf(x):
        return np.exp(-abs(x) / b) / (2 * b)

    def f(v):
        dens = (1 - mu1) * pdf(v) + mu1 * pdf(v - 1)
        return dens * ((1 - mu) * sf(v) + mu * sf(v - 1)) ** (K - 1)

    c = -b * np.log(K)
    pts = [c - 20 * b, c - 5 * b, c, c + 5 * b, 0.0, 1.0, 1 + 20 * b]
    total = sum(
        integrate.quad(f, lo, hi, limit=400, epsabs=1e-16, epsrel=1e-10)[0]
        for lo, hi in itertools.pairwise(pts)
    )
    return total + integrate.quad(f, -np.inf, pts[0])[0] + integrate.quad(f, pts[-1], np.inf)[0]


def exact_p_best(K: int, eps: float) -> tuple[float, float]:
    spec = _Spec("rnm_ftnl", instance_means(K, 0.5, None, "standard"), eps, "bernoulli")
    P, err = spec.law(1)
    return float(P[0]), float(err[0])


@pytest.mark.parametrize(
    "K, eps, expected",
    [(1 << 13, 2**-5, 1.2304e-4), (1 << 14, 2**-5, 6.1514e-5), (1 << 16, 2**-5, 1.5378e-5)],
)
def test_exact_laplace_law_matches_the_quadrature_at_large_k(K, eps, expected):
    """One round, P(best) about 1/K: the quadrature's value pinned, the engine's within 1e-6
    of it, its error bound small (not the trivial bound 1)."""
    q = quadrature_p_best(K, eps)
    assert q == pytest.approx(expected, rel=1e-3)
    p, err = exact_p_best(K, eps)
    assert p == pytest.approx(q, rel=1e-6)
    assert err < 1e-5 * p  # its bound: an absolute floor of about 1e-13 K per group


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


def _laplace_cdf(x: float, b: float) -> float:
    return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)


def _laplace_sf(x: float, b: float) -> float:
    return 1 - 0.5 * math.exp(x / b) if x < 0 else 0.5 * math.exp(-x / b)


def _quad(f, lo: float, hi: float, kinks) -> float:
    """int_lo^hi f, split at the kinks (the atoms), each piece to 1e-13 relative."""
    edges = [lo, *sorted(k for k in kinks if lo < k < hi), hi]
    return math.fsum(
        integrate.quad(f, a, c, epsabs=0, epsrel=1e-13, limit=200)[0]
        for a, c in itertools.pairwise(edges)
    )


@pytest.mark.parametrize(
    ("ys", "b", "p1", "n1"),
    [
        ([0.0, 1.0, 2.0], 2.0, [0.1, 0.3, 0.6], 1),  # unit gaps: the lfilter recursion
        ([0.0, 1.5, 3.0], 1.0, [0.1, 0.3, 0.6], 1),  # other gaps: the explicit loop
        ([0.0, 1.0, 2.0, 3.0], 1.5, [0.0, 0.3, 0.4, 0.3], 2),  # two actions in group 1
    ],
)
def test_laplace_error_bound_charges_each_pmf_error_to_its_survival_factors(ys, b, p1, n1):
    """Report-noisy-min law of a best group (one action, pmf p0 = (0.3, 0.4, 0.3, 0...)) and
    a group of n1 actions (pmf p1) on the atoms ys, Laplace(b) noise, the pmfs given with
    relative errors db = (1e-4, 3e-5).

    Documented bound (laplace.py, numerics._powers): P_1 = int f_1 S_0 S_1^(n1 - 1) dy, f_1
    the density of Y_1 + Z and S_h = P(Y_h + Z > y) = 1 - F_h; the error of S_h is relative
    to min(F_h, S_h), i.e. ratio = min(1, F_h / (1 - F_h)) of S_h, charged 2 db_h per factor,
    and f_1 carries db_1. Up to the last atom y_N that gives db_1 (P_1 - R)
    + 2 db_0 int f_1 S_1^(n1 - 1) min(F_0, S_0) + 2 (n1 - 1) db_1 int f_1 S_0 S_1^(n1 - 2)
    min(F_1, S_1); beyond it (closed form, R = int_(y_N)^inf f_1 S_0 S_1^(n1 - 1))
    2 (1 + n1) db_1 R. Each pmf is symmetric about an atom, so F_h = 1/2 exactly there: the
    kinks of min(F_h, S_h) sit on piece boundaries and Gauss-Kronrod integrates the bound to
    ~1e-13 relative. The rest of the bound is rounding, c_r U per factor with c_r = 8 +
    (256 + N/256 + 4) + 8 < 277: within 10 c_r U. The best group's error is n1 times the
    other's plus 4 U (and 1e-130 per action, lost in the sum)."""
    from privdtol.engine.exact.laplace import _laplace

    p0 = [0.3, 0.4, 0.3] + [0.0] * (len(ys) - 3)
    db0, db1 = 1e-4, 3e-5

    def cdf(p, y):
        return math.fsum(q * _laplace_cdf(y - a, b) for q, a in zip(p, ys, strict=True))

    def sf(p, y):
        return math.fsum(q * _laplace_sf(y - a, b) for q, a in zip(p, ys, strict=True))

    def dens1(y):
        return math.fsum(
            q * math.exp(-abs(y - a) / b) / (2 * b) for q, a in zip(p1, ys, strict=True)
        )

    def win(y):
        return dens1(y) * sf(p0, y) * sf(p1, y) ** (n1 - 1)

    def charge0(y):
        return dens1(y) * sf(p1, y) ** (n1 - 1) * min(cdf(p0, y), sf(p0, y))

    def charge1(y):
        return dens1(y) * sf(p0, y) * sf(p1, y) ** (n1 - 2) * min(cdf(p1, y), sf(p1, y))

    y_n = ys[-1]
    p_win = _quad(win, -math.inf, math.inf, ys)
    right = _quad(win, y_n, math.inf, ys)
    want = db1 * (p_win - right) + 2 * db0 * _quad(charge0, -math.inf, y_n, ys)
    if n1 > 1:
        want += 2 * (n1 - 1) * db1 * _quad(charge1, -math.inf, y_n, ys)
    want += 2 * (1 + n1) * db1 * right
    assert 1e-5 < want < 1e-4

    P, err = _laplace(
        np.array(ys), np.array([p0, p1]), np.array([db0, db1]), np.array([1.0, n1]), b, 8
    )
    c_r = 8 + (256 + len(ys) / 256 + 4) + 8
    assert abs(err[1] - want) <= 10 * c_r * U
    assert err[0] == n1 * err[1] + 4 * U
    assert abs(P[1] - p_win) <= err[1]
    assert P[0] == 1 - n1 * P[1]


@pytest.mark.parametrize("n1", [1, 3])
def test_laplace_refines_pieces_until_the_gauss_kronrod_estimate_is_tight(n1):
    """Report-noisy-min law of a best group of one action, pmf p0 = (0.3, 0.4, 0.3), and a
    group of n1 actions, pmf p1 = (0.1, 0.3, 0.6), on the atoms 0, 1, 2 with sharp noise
    Laplace(b = 0.05) (exact pmfs: db = 0, c_rec = 0): between atoms the integrand moves by
    e^(1/b) = e^20, so one Gauss-Kronrod (7, 15) pass is off by far more than 1e-13 and the
    pieces must be bisected until each estimate |K15 - G7| <= max(10 GK_TOL |K15|, floor),
    GK_TOL = 1e-13, floor = GK_TOL (P_1 + 1/n_1) / (initial pieces). P_1 = int f_1 S_0
    S_1^(n1 - 1) dy (per action) against scipy quadrature split at the atoms (1e-13 relative,
    _quad): within the returned bound plus the reference's 1e-13;
    that bound, the pieces' estimates (sum 10 GK_TOL P_1 <= 3e-13 plus floors of <= 1e-13 per
    initial piece) and rounding, stays below 2e-12 (a 10x looser rule leaves 1e-11)."""

    from privdtol.engine.exact.laplace import _laplace

    ys, b, p0, p1 = [0.0, 1.0, 2.0], 0.05, [0.3, 0.4, 0.3], [0.1, 0.3, 0.6]

    def sf(p, y):
        return math.fsum(q * _laplace_sf(y - a, b) for q, a in zip(p, ys, strict=True))

    def win(y):
        dens = math.fsum(
            q * math.exp(-abs(y - a) / b) / (2 * b) for q, a in zip(p1, ys, strict=True)
        )
        return dens * sf(p0, y) * sf(p1, y) ** (n1 - 1)

    ref = _quad(win, -math.inf, math.inf, ys)
    P, err = _laplace(np.array(ys), np.array([p0, p1]), np.zeros(2), np.array([1.0, n1]), b, 0)
    assert abs(P[1] - ref) <= err[1] + 1e-13 * ref
    assert 0 < err[1] < 2e-12
    assert P[0] == 1 - n1 * P[1]
