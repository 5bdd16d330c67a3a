"""Tests of :mod:`privdtol.engine.exact.binomial`: Binomial pmfs by Loader's formula and the
ratio recurrence on windows, their renormalisation and supports, each value within its stated
relative error bound of the exact rational pmf."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from support.engine_laws import U

from privdtol.engine.exact.binomial import _pmf, _pmf_windows, _supports


def _binom_exact(m: int, mu: float, k: int) -> Fraction:
    """The Binomial(m, mu) pmf at k in exact rationals (mu taken as the exact double)."""
    p = Fraction(mu)
    return Fraction(math.comb(m, k)) * p**k * (1 - p) ** (m - k) if 0 <= k <= m else Fraction(0)


def _relative_errors(values, m, mus, ks):
    """|value - exact| / exact for each point with an exact pmf >= 1e-150 (else nan)."""
    out = np.full(len(ks), np.nan)
    for i, (v, mu, k) in enumerate(zip(values, mus, ks, strict=True)):
        exact = _binom_exact(m, float(mu), int(k))
        if exact and exact > Fraction(1, 10**150):
            out[i] = float(abs(Fraction(float(v)) - exact) / exact)
    return out


@pytest.mark.parametrize("m", [20, 401, 700])
def test_windowed_pmfs_are_within_their_bounds_of_exact_rationals(m):
    """The ratio recurrence from each run's largest point (Loader's formula there) meets its
    stated bound everywhere, including means at 0 and 1 and very close to 1."""
    mus = np.array([0.0, 0.001, 0.3, 0.484, 0.5, 0.77, 0.999, 0.99952605, 1.0])
    sup = _supports(m, mus, 1e-22)
    los, lens = [s[0] for s in sup], [s[1] - s[0] + 1 for s in sup]
    b, e = _pmf_windows(m, mus, los, lens)
    ks = np.concatenate([np.arange(lo, lo + n) for lo, n in zip(los, lens, strict=True)])
    mm = np.repeat(mus, lens)
    pick = np.arange(0, ks.size, max(1, ks.size // 300))
    rel = _relative_errors(b[pick], m, mm[pick], ks[pick])
    ok = np.isnan(rel) | (rel <= e[pick])
    assert ok.all(), (ks[pick][~ok], mm[pick][~ok], rel[~ok], e[pick][~ok])
    assert np.nanmax(rel) > 0  # the comparison is not vacuous


def test_loader_bound_covers_the_rounded_mean_near_one():
    """Loader's formula with M = m mu rounded: at mu = 0.999, m = 100 its bound must cover the
    rounding of m (1 - mu) (error 5.8e-14 at k = 99, against 1.3e-14 without that term)."""
    m, ks = 100, np.arange(60, 101)
    b, e = _pmf(ks.astype(float), m, np.full(ks.size, 0.999))
    rel = _relative_errors(b, m, np.full(ks.size, 0.999), ks)
    assert (np.isnan(rel) | (rel <= e)).all()


@pytest.mark.parametrize("m", [2**20, 2**31 + 7, 2**42])
def test_windows_at_large_m_are_narrow_with_a_finite_outside_mass(m):
    mus = [0.5, 0.25, 0.5 - 2**-16]
    for mu, (lo, hi, tail) in zip(mus, _supports(m, mus, 1e-20), strict=True):
        sd = math.sqrt(m * mu * (1 - mu))
        assert 0 < tail < 1e-20
        assert 9 * sd < m * mu - lo < 12 * sd + 31 and 9 * sd < hi - m * mu < 12 * sd + 31
        # both tails beyond z = (hi - m mu) / sd standard deviations: about 2 Phi(-z)
        z = (hi - m * mu) / sd
        normal = math.erfc(z / math.sqrt(2))
        assert 0.5 * normal < tail < 2 * normal


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


def test_binomial_pmf_edges_carry_the_documented_bound():
    """Binomial(6, 1/4) by Loader's formula with edge points (so not every point is inner):
    at k = 0 and k = m the log-pmf is m log(1 - mu) and m log(mu), with absolute error
    6 U (|edge| + 1), so the value's relative bound is 2 x that + 4 U: 12 U (6 log(4/3) + 1)
    + 4 U = 36.7 U and 12 U (6 log 4 + 1) + 4 U = 115.8 U (to their own rounding, 1e-12
    relative). Beyond m the pmf is 0 with bound 4 U. Every value is within its bound of the
    exact rational pmf (0.75^6, C(6, 3)/4^6 and 4^-6)."""
    from privdtol.engine.exact.binomial import _pmf

    m, mu = 6, 0.25
    b, e = _pmf(np.array([0.0, 3.0, 6.0, 7.0]), m, mu)
    want_e = [
        12 * U * (abs(m * math.log1p(-mu)) + 1) + 4 * U,
        12 * U * (abs(m * math.log(mu)) + 1) + 4 * U,
    ]
    assert e[[0, 2]] == pytest.approx(want_e, rel=1e-12, abs=0)
    assert b[3] == 0.0 and e[3] == 4 * U
    for v, err, k in zip(b[:3], e[:3], (0, 3, 6), strict=True):
        exact = _binom_exact(m, mu, k)
        assert abs(Fraction(float(v)) - exact) <= Fraction(float(err)) * exact
    assert e[1] < 1e-13


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
    _window_by_hand, masses within 1e-12 relative (scipy's binomial cdf/sf). The outside
    masses (binomial._outside) are wrapped to refuse a 30th evaluation: a window that never
    widens would loop for ever."""
    from privdtol.engine.exact import binomial
    from privdtol.engine.exact.binomial import _supports

    real, calls = binomial._outside, []

    def counted(*a):
        calls.append(1)
        if len(calls) > 30:
            raise RuntimeError("the window does not widen")
        return real(*a)

    monkeypatch.setattr(binomial, "_outside", counted)
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


def test_pmf_windows_walk_down_whole_runs_below_the_mode():
    """Binomial(1000, 1/2) on 300..699, runs of RUN = 64 points from 300: 300..363, 364..427
    and 428..491 lie wholly below the mode floor(1001/2) = 500 (anchored at their last point:
    only the walk down), 492..555 holds it (anchor 500), 556..619 and 620..683 lie above
    (anchored at their first point: only the walk up), 684..699 is a shorter run above; each
    value within its bound e_a + (6 |k - a| + 4) U of the exact rational pmf."""
    from privdtol.engine.exact.binomial import _pmf, _pmf_windows

    b, e = _pmf_windows(1000, np.array([0.5]), [300], [400])
    ks = range(300, 700)
    anchors = [363, 427, 491, 500, 556, 620, 684]
    _, ea = _pmf(np.array(anchors, dtype=float), 1000, np.full(7, 0.5))
    for i, k in enumerate(ks):
        a = anchors[(k - 300) // 64]
        assert e[i] == pytest.approx(ea[(k - 300) // 64] + (6 * abs(k - a) + 4) * U, rel=1e-14)
        want = _binom_exact(1000, 0.5, k)
        assert abs(Fraction(float(b[i])) - want) <= Fraction(float(e[i])) * want


def test_pmf_windows_is_exact_and_quiet_at_the_degenerate_means():
    """Binomial(5, mu) on windows: mu = 1/2 on {0..5} (C(5, k) / 32, exact in binary), mu = 1
    on {3..5} (0, 0, 1) and mu = 0 on {0..2} (1, 0, 0). rho = mu / (1 - mu) divides by zero at
    mu = 1 (and the walk down from the anchor at mu = 0): handled on purpose, so no
    RuntimeWarning may escape. Every value is within its relative error bound of the exact
    pmf (zero where the pmf is zero)."""
    from privdtol.engine.exact.binomial import _pmf_windows

    want = [Fraction(math.comb(5, k), 32) for k in range(6)] + [0, 0, 1] + [1, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            b, e = _pmf_windows(5, np.array([0.5, 1.0, 0.0]), [0, 3, 0], [6, 3, 3])
    assert b.shape == e.shape == (12,)
    for got, err, w in zip(b, e, want, strict=True):
        assert abs(Fraction(float(got)) - w) <= Fraction(float(err)) * w
    assert (e >= 0).all() and e.max() < 1e-13


def _calls(rng):
    """_pmf_windows calls as the engine makes them: whole ranges at m <= SMALL_M, windows
    from _supports beyond (narrow and wide ones, so that the series lengths of _bd0 differ
    from call to call), degenerate means, mirrored means, and one call of more than
    PMF_CHUNK Loader points (2^31 + 7 rounds: computed alone, in chunks)."""
    from privdtol.engine.exact.binomial import _supports

    out = []
    for m in [1, 2, 5, 64, 300, 400, 401, 5000, 70000, 2**24, 2**31 + 7]:
        mus = np.sort(rng.random(4))
        if m in (5, 401):
            mus[[0, 3]] = 0.0, 1.0
        if m == 300:
            mus[2] = 1 - mus[1]
        if m <= 400:
            los, lens = np.zeros(4, np.int64), np.full(4, m + 1)
        else:
            sup = _supports(m, mus, 1e-22)
            los = np.array([a for a, _, _ in sup])
            lens = np.array([b - a + 1 for a, b, _ in sup])
        out.append((m, mus, los, lens))
    return out


def test_pmf_windows_many_is_one_call_per_window_set_bit_for_bit():
    """_pmf_windows_many (the laws of many prefixes m at once) gives exactly what one
    _pmf_windows call per m gives, every value and every bound, whatever the order of the
    calls and however they fall into its passes of PMF_CHUNK Loader points."""
    from privdtol.engine.exact.binomial import PMF_CHUNK, RUN, _pmf_windows_many

    calls = _calls(np.random.default_rng(1))
    assert max(int((-(-c[3] // RUN)).sum()) for c in calls) > PMF_CHUNK  # one call alone
    want = [_pmf_windows(*c) for c in calls]
    for order in (range(len(calls)), range(len(calls) - 1, -1, -1)):
        order = list(order)
        got = _pmf_windows_many([calls[i] for i in order])
        for i, (b, e) in zip(order, got, strict=True):
            assert np.array_equal(b, want[i][0]) and np.array_equal(e, want[i][1])


def test_bd0_series_length_is_each_parts_own():
    """_bd0 with parts: each part's values are those of a call on its points alone (its own
    series length: here 3 terms for |v| <= 3e-4 and 8 for |v| near 0.07), bit for bit, far
    points (|v| >= 0.1) included."""
    from privdtol.engine.exact.binomial import _bd0, _terms

    x = np.array([100.0, 100.1, 50.0, 58.0, 30.0, 100.0])
    M = np.array([100.05, 100.0, 55.0, 50.0, 70.0, 99.95])
    part = np.array([0, 0, 1, 1, 1, 0])
    s, e = _bd0(x, M, x - M, part)
    for p in (0, 1):
        sel = part == p
        sp, ep = _bd0(x[sel], M[sel], (x - M)[sel])
        assert np.array_equal(s[sel], sp) and np.array_equal(e[sel], ep)
    assert (_terms(2.5e-4), _terms(8 / 108)) == (3, 8)


def test_supports_many_is_one_call_per_m():
    """_supports_many widens every window in _supports' steps: the same windows and outside
    masses as one _supports call per m, with per-group tolerances."""
    from privdtol.engine.exact.binomial import _supports_many

    rng = np.random.default_rng(2)
    calls = [
        (m, rng.random(3), np.array([1e-22, 1e-40, 1e-60]))
        for m in (10, 401, 500, 9000, 2**20, 2**33)
    ]
    calls.append((700, np.array([0.0, 0.5, 1.0]), 1e-22))
    assert _supports_many(calls) == [_supports(*c) for c in calls]


def test_outside_mass_is_scipy_stats_binomial_exactly():
    """binomial._outside (the ufuncs behind scipy.stats.binom) equals binom.cdf(lo - 1) +
    binom.sf(hi), each only inside [0, m), to the last bit, up to m = 2^40."""
    from scipy.stats import binom

    from privdtol.engine.exact.binomial import _outside

    rng = np.random.default_rng(3)
    m = np.floor(2.0 ** rng.uniform(1, 40, 400))
    mu = rng.random(400)
    a, b = np.sort(np.floor(rng.random((2, 400)) * (m + 1)), axis=0).astype(np.int64)
    a[:20], b[20:40] = 0, m[20:40]  # the ends: no mass outside on that side
    want = np.where(a > 0, binom.cdf(a - 1, m, mu), 0.0) + np.where(b < m, binom.sf(b, m, mu), 0.0)
    assert np.array_equal(_outside(a, b, m, mu), want)
