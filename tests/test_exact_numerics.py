"""Numerical building blocks of the exact engine (:mod:`privdtol.engine.exact`): the windowed
Binomial pmfs and their error bounds against exact rational arithmetic, the law from m rounds
on its windowed path against brute-force enumeration, and the
panels of the M-average that the Chernoff bounds keep from being cut."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.engine import exact
from privdtol.engine.exact import averaging, expected_regret, heap
from privdtol.engine.exact import spec as spec_module
from privdtol.engine.exact.binomial import _pmf, _pmf_windows, _supports
from privdtol.environments import instance_means


def _relative_errors(values, m, mus, ks):
    """|value - exact| / exact for each point with an exact pmf >= 1e-150 (else nan)."""
    out = np.full(len(ks), np.nan)
    for i, (v, mu, k) in enumerate(zip(values, mus, ks, strict=True)):
        p = Fraction(float(mu))
        exact = comb(m, int(k)) * p ** int(k) * (1 - p) ** (m - int(k))
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
    """Loader's formula with M = m mu rounded: at mu = 0.999, m = 100 its bound used to miss
    the rounding of m (1 - mu) (error 5.8e-14 at k = 99, bound 1.3e-14)."""
    m, ks = 100, np.arange(60, 101)
    b, e = _pmf(ks.astype(float), m, np.full(ks.size, 0.999))
    rel = _relative_errors(b, m, np.full(ks.size, 0.999), ks)
    assert (np.isnan(rel) | (rel <= e)).all()


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


def _cuts(monkeypatch, means):
    """Panels of the M-average cut for want of a value, while computing the regret to 2^30."""
    seen = []
    try_panel = averaging._Averager._try

    def spy(self, *args):
        out = try_panel(self, *args)
        seen.append(bool(self.cut))
        return out

    monkeypatch.setattr(averaging._Averager, "_try", spy)
    exact._RECENT.clear()  # computed anew, not the last result of this law
    expected_regret("rps", means, 0.5, [(1 << 30) - 1])
    return sum(seen)


def test_panels_are_not_cut_for_want_of_a_value(monkeypatch):
    """The Chernoff bounds end a panel before a group that matters loses its value, so no
    panel's laws are computed in vain; without that prediction some panel is cut."""
    means = instance_means(128, 1 / 32, None, "staircase")
    assert _cuts(monkeypatch, means) == 0
    monkeypatch.setattr(averaging, "VALUED", 0.0)
    assert _cuts(monkeypatch, means) > 0


class _FakeLibc:
    """Stands in for libc: records mallopt calls and returns ``result``."""

    def __init__(self, result):
        self.result, self.calls = result, []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return self.result


@pytest.fixture
def fresh_heap_cache():
    heap.retain_freed_heap.cache_clear()
    yield
    heap.retain_freed_heap.cache_clear()


@pytest.mark.parametrize(("result", "expected"), [(1, True), (0, False)])
def test_retain_freed_heap_sets_m_top_pad_once(monkeypatch, fresh_heap_cache, result, expected):
    """mallopt(M_TOP_PAD = -2 (glibc's malloc.h), 256 MiB) once per process, whatever the
    number of calls; its return value (1 on success, 0 on error, mallopt(3)) is reported."""
    libc = _FakeLibc(result)
    monkeypatch.setattr(heap.ctypes, "CDLL", lambda name: libc)
    assert [heap.retain_freed_heap() for _ in range(3)] == [expected] * 3
    assert libc.calls == [(-2, 268435456)]


@pytest.mark.parametrize("error", [OSError, AttributeError])
def test_retain_freed_heap_without_glibc(monkeypatch, fresh_heap_cache, error):
    """No libc, or a libc without mallopt: nothing is set and the answer is False."""

    def missing(name):
        raise error(name)

    monkeypatch.setattr(heap.ctypes, "CDLL", missing)
    assert heap.retain_freed_heap() is False


def test_retain_freed_heap_on_this_glibc(fresh_heap_cache):
    """On this (glibc) machine the real mallopt accepts M_TOP_PAD."""
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert heap.retain_freed_heap() is True
