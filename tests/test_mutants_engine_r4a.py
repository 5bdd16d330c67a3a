"""Guards found by a fourth mutation sample of the exact engine (``make mutation GROUPS=engine``,
docs/testing.md) in its numerics: the survival-factor products of numerics._powers and their
error bound pinned term by term, Loader's Binomial pmf in chunks (binomial._pmf), the windows
of binomial._supports when the first width does not suffice, and the Gauss-Kronrod stopping
rule of the report-noisy-min law (laplace._laplace)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

U = 2.0**-53
E80 = Fraction(math.exp(-80.0))  # the kernel cut e^-A of numerics, A = 80


def _powers_by_hand(lf, ratio, ns, db, c_r):
    """numerics._powers' documented formula in exact rationals: lf clamped at -1e4, tot =
    sum_h n_h lf_h, eps_h = 2 (db_h + c_r U) ratio_h + 2 e^-A + 4 U, Lg_g = tot - lf_g and
    rel_g = sum_h n_h eps_h - eps_g + 4 U (|tot| + |lf_g| + 2) + db_g + c_r U, g >= 1."""
    u = Fraction(U)
    lf = [[max(Fraction(v), Fraction(-10000)) for v in row] for row in lf]
    G, K = len(lf), len(lf[0])
    fns = [Fraction(v) for v in ns]
    tot = [sum(fns[h] * lf[h][k] for h in range(G)) for k in range(K)]
    eps = [
        [
            2 * (Fraction(db[h]) + c_r * u) * Fraction(ratio[h][k]) + 2 * E80 + 4 * u
            for k in range(K)
        ]
        for h in range(G)
    ]
    etot = [sum(fns[h] * eps[h][k] for h in range(G)) for k in range(K)]
    Lg = [[tot[k] - lf[g][k] for k in range(K)] for g in range(1, G)]
    rel = [
        [
            etot[k]
            - eps[g][k]
            + 4 * u * (abs(tot[k]) + abs(lf[g][k]) + 2)
            + Fraction(db[g])
            + c_r * u
            for k in range(K)
        ]
        for g in range(1, G)
    ]
    return Lg, rel


@pytest.mark.parametrize(
    ("lf", "ratio", "ns", "db", "c_r"),
    [
        # three groups of 1, 2 and 3 actions at two nodes, every input term of the bound alive
        (
            [[-0.25, -1.5], [-2.0, -0.125], [-0.5, -3.0]],
            [[0.5, 1.0], [0.25, 0.75], [1.0, 0.0625]],
            [1.0, 2.0, 3.0],
            [3e-12, 1e-12, 2e-12],
            100.0,
        ),
        # exact inputs (db = 0, c_r = 0): the bound is the rounding terms alone; a log below
        # -1e4 counts as -1e4 (lf_1 = -10000.5: |tot| = 10002, |lf_1| = 1e4)
        ([[-1.0, -2.0], [-2.0, -10000.5]], [[0.0, 0.0], [0.0, 0.0]], [1.0, 1.0], [0.0, 0.0], 0.0),
    ],
)
def test_powers_values_and_bound_follow_the_documented_formula(lf, ratio, ns, db, c_r):
    """_powers' log-products and relative error bound against its documented formula worked
    out in exact rationals (_powers_by_hand). The outputs are a few float sums and products of
    the inputs: within 1e-14 relative (Lg) and 1e-13 relative (rel, about ten roundings of
    terms of one sign)."""
    from privdtol.engine.exact.numerics import _powers

    Lg, rel = _powers(np.array(lf), np.array(ratio), np.array(ns), np.array(db), c_r)
    want_lg, want_rel = _powers_by_hand(lf, ratio, ns, db, c_r)
    assert Lg.shape == rel.shape == (len(ns) - 1, 2)
    for g in range(len(ns) - 1):
        for k in range(2):
            assert abs(Fraction(float(Lg[g, k])) - want_lg[g][k]) <= abs(want_lg[g][k]) * Fraction(
                1, 10**14
            )
            assert abs(Fraction(float(rel[g, k])) - want_rel[g][k]) <= want_rel[g][k] * Fraction(
                1, 10**13
            )


def test_powers_sets_products_below_e_to_the_minus_650_to_zero():
    """A log-product Lg_g = tot - lf_g below -650 becomes -inf (its exponential, < 1e-282, is
    set to 0); -650 itself is kept. Groups of one action each: Lg_1 = lf_0, exact here."""
    from privdtol.engine.exact.numerics import _powers

    lf = np.array([[-650.0, -650.5, -649.75], [-1.0, -1.0, -1.0]])
    Lg, _ = _powers(lf, np.zeros((2, 3)), np.array([1.0, 1.0]), np.zeros(2), 0.0)
    assert Lg.tolist() == [[-650.0, -np.inf, -649.75]]


def test_powers_kernel_cut_term_is_two_e_to_the_minus_a():
    """eps_h = 2 (db_h + c_r U) ratio_h + 2 e^-A + 4 U, summed left to right. With db = 0,
    c_r = 1 the first term is X = 2 U ratio (exact); half an ulp of 4 U = 2^-51 is 2^-104.
    Node 0: X = 2^-104 - 4.5e-35, so X + 2 e^-A (e^-80 = 1.8e-35) stays below the half ulp and
    eps = 4 U exactly (3 e^-A would cross it). Node 1: X = 2^-104 - 3e-35, X + 2 e^-A is above
    it and eps = 4 U + 2^-103 (- 2 e^-A would stay below). The best group of n_0 = 2^20
    actions scales the difference to one ulp of rel_1 = n_0 eps_0 + n_1 eps_1 - eps_1 + 4 U
    (0 + 0 + 2) + U, all exact in floats for lf = 0 and ratio_1 = 0."""
    from privdtol.engine.exact.numerics import _powers

    x = np.array([2.0**-104 - 4.5e-35, 2.0**-104 - 3e-35])
    assert (x / (2 * U) * (2 * U) == x).all()
    ratio = np.array([x / (2 * U), [0.0, 0.0]])
    _, rel = _powers(np.zeros((2, 2)), ratio, np.array([2.0**20, 1.0]), np.zeros(2), 1.0)
    eps0 = np.array([4 * U, 4 * U + 2.0**-103])
    assert rel[0].tolist() == (2.0**20 * eps0 + 9 * U).tolist()


def _binom_exact(m: int, mu: float, k: int) -> Fraction:
    p = Fraction(mu)
    return Fraction(math.comb(m, k)) * p**k * (1 - p) ** (m - k) if 0 <= k <= m else Fraction(0)


@pytest.mark.parametrize("shape", [(4, 4096), (5, 6554)])
def test_pmf_in_chunks_matches_exact_rationals_at_every_point(shape):
    """_pmf at PMF_CHUNK = 2^14 points (one pass) and at 32770 points (three passes of at
    most 2^14, the last of 2): Binomial(30, mu) at k = 0..32 (0 beyond m = 30), mu alternating
    0.3 / 0.7 from point to point, in a 2-d shape that the result keeps. Every value is within
    its own relative bound of the exact rational pmf (math.comb and fractions; its float is
    within U of it), and the bound is below 1e-12 (Loader's formula at m = 30: at most a few
    thousand U, the far tails' 40 U |k - m mu| the largest term)."""
    from privdtol.engine.exact.binomial import PMF_CHUNK, _pmf

    n = shape[0] * shape[1]
    assert n == PMF_CHUNK or n > 2 * PMF_CHUNK
    ks = np.arange(n) % 33
    mus = np.where(np.arange(n) % 2 == 0, 0.3, 0.7)
    table = {(k, mu): _binom_exact(30, mu, k) for k in range(33) for mu in (0.3, 0.7)}
    want = np.array([float(table[k, mu]) for k, mu in zip(ks.tolist(), mus.tolist(), strict=True)])
    b, e = _pmf(ks.reshape(shape).astype(float), 30, mus.reshape(shape))
    assert b.shape == e.shape == shape
    b, e = b.ravel(), e.ravel()
    assert (b[ks > 30] == 0).all() and (want[ks <= 30] > 0).all()
    assert (np.abs(b - want) <= (e + U) * want).all()
    assert e.max() < 1e-12


@pytest.mark.parametrize("n1", [1, 3])
def test_laplace_refines_pieces_until_the_gauss_kronrod_estimate_is_tight(n1):
    """Report-noisy-min law of a best group of one action, pmf p0 = (0.3, 0.4, 0.3), and a
    group of n1 actions, pmf p1 = (0.1, 0.3, 0.6), on the atoms 0, 1, 2 with sharp noise
    Laplace(b = 0.05) (exact pmfs: db = 0, c_rec = 0): between atoms the integrand moves by
    e^(1/b) = e^20, so one Gauss-Kronrod (7, 15) pass is off by far more than 1e-13 and the
    pieces must be bisected until each estimate |K15 - G7| <= max(10 GK_TOL |K15|, floor),
    GK_TOL = 1e-13, floor = GK_TOL (P_1 + 1/n_1) / (initial pieces). P_1 = int f_1 S_0
    S_1^(n1 - 1) dy (per action) against scipy quadrature split at the atoms (1e-13 relative,
    tests/test_mutants_engine_r3b.py): within the returned bound plus the reference's 1e-13;
    that bound, the pieces' estimates (sum 10 GK_TOL P_1 <= 3e-13 plus floors of <= 1e-13 per
    initial piece) and rounding, stays below 2e-12 (a 10x looser rule leaves 1e-11)."""
    from test_mutants_engine_r3b import _laplace_sf, _quad

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


def _window_by_hand(m: int, mu: float, tail_max: float):
    """binomial._supports' documented window: lo, hi = m mu -+ (z sd + 30) (floor/ceil, within
    [0, m]), sd = sqrt(m mu (1 - mu)), for z = 10.5 x 1.05^i, i = 0, 1, ..., the first whose
    exact outside mass (math.comb and fractions) is below tail_max."""
    p = Fraction(mu)
    pm = [Fraction(math.comb(m, k)) * p**k * (1 - p) ** (m - k) for k in range(m + 1)]
    sd, z = math.sqrt(m * mu * (1 - mu)), 10.5
    for _ in range(20):
        lo = max(0, math.floor(m * mu - z * sd - 30))
        hi = min(m, math.ceil(m * mu + z * sd + 30))
        tail = sum(pm[:lo]) + sum(pm[hi + 1 :])
        if tail < tail_max:
            return lo, hi, tail
        z *= 1.05
    raise AssertionError("no window")


def test_supports_widen_by_five_percent_until_the_outside_mass_is_small(monkeypatch):
    """_supports at m = 500 > SMALL_M = 400 with a tolerance per group: mu = 0 and 1 are point
    masses at 0 and m (outside mass 0); mu = 1/2 needs tail < 1e-60, reached at z = 10.5 x
    1.05^5 (window 70..430, mass 5.2e-65; 1.3e-59 at z = 10.5 x 1.05^4), mu = 1/4 needs tail
    < 1e-40, reached at z = 10.5 x 1.05^2 (window 0..268, mass 5.9e-43). Windows against
    _window_by_hand, masses within 1e-12 relative (scipy's binomial cdf/sf). scipy.stats.binom
    is wrapped to refuse a 30th evaluation: a window that never widens would loop for ever."""
    import scipy.stats

    from privdtol.engine.exact.binomial import _supports

    real, calls = scipy.stats.binom, []

    class Counted:
        def cdf(self, *a):
            calls.append(1)
            if len(calls) > 30:
                raise RuntimeError("the window does not widen")
            return real.cdf(*a)

        def sf(self, *a):
            return real.sf(*a)

    monkeypatch.setattr(scipy.stats, "binom", Counted())
    tol = [1e-10, 1e-60, 1e-10, 1e-40]
    got = _supports(500, [0.0, 0.5, 1.0, 0.25], np.array(tol))
    assert got[0] == (0, 0, 0.0) and got[2] == (500, 500, 0.0)
    for (lo, hi, tail), mu, t in zip(got[1::2], [0.5, 0.25], tol[1::2], strict=True):
        want_lo, want_hi, want_tail = _window_by_hand(500, mu, t)
        assert (lo, hi) == (want_lo, want_hi)
        assert abs(Fraction(tail) - want_tail) <= want_tail * Fraction(1, 10**12)
    assert [w[:2] for w in got[1::2]] == [(70, 430), (0, 268)]


def test_supports_at_small_m_are_the_whole_range():
    """At m <= SMALL_M = 400 the window of 0 < mu < 1 is all of 0..m with outside mass 0 (no
    tail is computed); mu = 0 and mu = 1 stay point masses at 0 and m."""
    from privdtol.engine.exact.binomial import _supports

    assert _supports(400, [0.3, 0.0, 1.0, 0.999], 1e-22) == [
        (0, 400, 0.0),
        (0, 0, 0.0),
        (400, 400, 0.0),
        (0, 400, 0.0),
    ]


def test_pmf_windows_walk_from_each_runs_mode_with_a_linear_bound():
    """_pmf_windows for Binomial(200, 0.3) on 0..149 and Binomial(200, 0.9) on 150..200: runs
    of RUN = 64 points from each window's start; each run's anchor is its point nearest the
    mode floor(201 mu) (60 and 180): 60 in 0..63, the starts 64 and 128 of the runs above it,
    180 in 150..200 (one run). A point i steps from its anchor a has bound e_a + (6 i + 4) U,
    e_a Loader's bound (_pmf) at the anchor (within 1e-14 relative: one addition), and every
    value is within its bound of the exact rational pmf."""
    from privdtol.engine.exact.binomial import _pmf, _pmf_windows

    b, e = _pmf_windows(200, np.array([0.3, 0.9]), [0, 150], [150, 51])
    ks = list(range(150)) + list(range(150, 201))
    mus = [0.3] * 150 + [0.9] * 51
    anchors = [60 if k < 64 else 64 if k < 128 else 128 for k in range(150)] + [180] * 51
    assert b.shape == e.shape == (201,)
    _, ea = _pmf(np.array([60.0, 64.0, 128.0, 180.0]), 200, np.array([0.3, 0.3, 0.3, 0.9]))
    e_at = dict(zip([(60, 0.3), (64, 0.3), (128, 0.3), (180, 0.9)], ea.tolist(), strict=True))
    for i, (k, mu, a) in enumerate(zip(ks, mus, anchors, strict=True)):
        assert e[i] == pytest.approx(e_at[a, mu] + (6 * abs(k - a) + 4) * U, rel=1e-14, abs=0)
        want = _binom_exact(200, mu, k)
        assert abs(Fraction(float(b[i])) - want) <= Fraction(float(e[i])) * want
