"""The average over the random prefix M_r ~ Unif{2^(r-1)+1..2^r} (Section 4 of Cesari &
Colomboni) of the selection law from m rounds: Chebyshev panels in log m summed by a discrete
Gauss rule, with an a-posteriori error bound."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from privdtol.engine.exact.numerics import N_DIRECT, VALUED, U

DEGS = (8, 16, 32)  # Chebyshev degrees tried on a panel (nested nodes)
RATIO = 8.0  # widest panel: hi / lo


@lru_cache(maxsize=256)
def _dgauss(N, n):
    """Gauss rule (nodes in [-1, 1], weights summing to 1) of the uniform measure on N points
    (Golub-Welsch with the discrete Chebyshev recurrence); exact for degree <= 2n - 1."""
    k = np.arange(1, n, dtype=float)
    beta = k * k * (float(N) ** 2 - k * k) / ((4 * k * k - 1) * (float(N) - 1) ** 2)
    x, v = np.linalg.eigh(np.diag(np.sqrt(beta), 1) + np.diag(np.sqrt(beta), -1))
    return x, v[0] ** 2


def _least(pred, a, b):
    """Least m in [a, b] with pred(m), for pred monotone in m (false, then true) and pred(b)."""
    while a < b:
        mid = (a + b) // 2
        a, b = (a, mid) if pred(mid) else (mid + 1, b)
    return b


class _Averager:
    """Sums over m of the law from m rounds (the average over M_r ~ Unif{2^(r-1)+1..2^r}).

    Panels [lo, hi] (possibly several blocks wide) carry a Chebyshev interpolant of log P_g in
    log m at rounded Chebyshev-Lobatto nodes, of degree 8, else 16, else 32 (nested nodes: a
    higher degree reuses every law already computed), accepted when its last coefficients are
    decaying and the error estimate meets the tolerance (relative interpolation error
    ~ |c_(D-1)| + |c_D|; else the panel shrinks geometrically, down to exact sums over
    <= N_DIRECT values); sums over any integer sub-range of a block by a 40-node discrete Gauss
    rule (error ~5.8^-80: analytic in m > 0). Groups with a zero or inaccurate value at a node
    are bounded by their Chernoff bound (monotone in m). From the first m at which every group
    of positive weight has weight x Chernoff bound below 5% of the tolerance per group, one
    panel to mmax holds the bounds only (no law is computed there)."""

    def __init__(self, spec, mmax, weights):
        self.spec, self.mmax, self.panels, self.cache = spec, mmax, [], {}
        self.wt, self.tol, self.ratio = weights, 0.0, 8.0  # tol: wanted wt @ error per m
        self.mref = 1  # tol holds for m <= mref; beyond, tol mref / m (later blocks: 2^-r)

    def laws(self, ms):
        need = [int(m) for m in ms if int(m) not in self.cache]
        if need:
            P, E = self.spec.laws(need)
            self.cache.update({m: (P[i], E[i]) for i, m in enumerate(need)})
        return (
            np.array([self.cache[int(m)][0] for m in ms]),
            np.array([self.cache[int(m)][1] for m in ms]),
        )

    def _negligible(self, m):
        """Whether the Chernoff bounds at m (so at every m' >= m) make the law negligible."""
        active = self.wt > 0
        level = 0.05 * self.tol * min(1.0, self.mref / (2 * m)) / max(1, int(active.sum()))
        return bool(np.all(self.wt[active] * self.spec.chernoff(m)[active] <= level))

    def _negligible_from(self, lo, hi):
        """Least m in [lo, hi + 1] from which the law is negligible (bisection: monotone)."""
        if self.tol <= 0 or not self._negligible(hi + 1):
            return hi + 1
        return _least(self._negligible, lo, hi + 1)

    def _cut_free(self, h, lo):
        """Whether no group that the cut test of :meth:`_try` would flag on [lo, h] (weight
        x Chernoff sum over it, halved, above the tolerance) is predicted to lose its value at
        h (its Chernoff bound below VALUED: dropped, or below ~10x its error floor)."""
        weak = self.spec.ns * self.spec.chernoff(h) < VALUED
        flag = (self.wt > 0) & (
            self.wt * self.spec.chernoff_sum(lo, h) / 2 > self.tol * (h - lo + 1)
        )
        return not np.any(weak & flag)

    def _uncut_until(self, lo, hi):
        """Largest m in [lo, hi] (at least lo) with :meth:`_cut_free` (bisection; the bounds are
        monotone in m): a panel up to it is not cut for want of a value, which would only be
        found after its laws were computed (a cut panel's laws are wasted)."""
        if self._cut_free(hi, lo):
            return hi
        return max(lo, _least(lambda m: not self._cut_free(m, lo), lo, hi) - 1)

    def _fit(self, lo, hi):
        """A fitted panel on [lo, hi], or None (then self.cut: a zero or inaccurate value of a
        group of positive weight was met, which a higher degree cannot cure)."""
        u0, u1 = math.log(lo), math.log(hi)
        self.cut = None
        for deg in DEGS:
            t = np.cos(np.pi * np.arange(deg, -1, -1) / deg)
            ms = np.unique(np.rint(np.exp(u0 + (t + 1) / 2 * (u1 - u0))).astype(np.int64))
            if ms.size < deg + 1:
                return None
            p = self._try(lo, hi, u0, u1, ms, deg)
            if p is not None or self.cut is not None:
                return p
        return None

    def _try(self, lo, hi, u0, u1, ms, deg):
        Fv, Fe = self.laws(ms)
        good = (Fv > 0) & (Fe <= 0.1 * Fv)
        pos = np.all(good, axis=0)
        csum = self.spec.chernoff_sum(lo, hi)  # bound-only groups: half of it is their error
        if np.any((self.wt > 0) & ~pos & (self.wt * csum / 2 > self.tol * (hi - lo + 1))):
            self.cut = True
        Tinv = np.linalg.inv(
            np.polynomial.chebyshev.chebvander(2 * (np.log(ms) - u0) / (u1 - u0) - 1, deg)
        )
        with np.errstate(divide="ignore"):
            coef = Tinv @ np.log(np.where(pos, Fv, 1.0))
        c = np.abs(coef)
        tail = c[-1] + c[-2]
        eps = 1.2 * Fe / np.where(pos, Fv, 1.0)  # node errors, propagated in _psum
        if np.any(
            pos & (self.wt > 0) & (tail > 0.5 * (c[-3] + c[-4]) + 10 * eps.max(axis=0) + 1e-14)
        ):
            return None  # coefficients not (yet) decaying
        p = lo, hi, u0, u1, coef, pos, 2 * tail, self.spec.chernoff_sum, Tinv, eps
        S, E = self._psum(p, lo, hi)
        return (
            p
            if float(self.wt @ E) <= max(1e-8 * abs(float(self.wt @ S)), self.tol * (hi - lo + 1))
            else None
        )

    def _panel(self, m):
        for p in self.panels:
            if p[0] <= m <= p[1]:
                return p
        if self._negligible(m):  # bounds only, up to mmax
            p = (m, self.mmax, "bound")
            self.panels.append(p)
            return p
        lo, hi = m, min(self.mmax, max(int(self.ratio * m), m + N_DIRECT))
        hi = min(hi, self._negligible_from(lo, hi) - 1)
        hi = max(min(hi, self._uncut_until(lo, hi)), min(self.mmax, lo + N_DIRECT - 1))
        shrunk = False
        while True:
            if hi - lo + 1 <= N_DIRECT:
                p = (lo, hi, None, *self.laws(np.arange(lo, hi + 1)))
                break
            p = self._fit(lo, hi)
            if p is not None:
                break
            hi = max(lo + N_DIRECT - 1, round(math.sqrt(lo * hi)))
            shrunk = True
        # next panel: twice as wide (relatively), or as wide if this one had to shrink
        self.ratio = min(RATIO, (1.0 if shrunk else 2.0) * (p[1] + 1) / p[0])
        self.panels.append(p)
        return p

    def sum(self, a, b):
        """(sum_(m=a..b) P_g(m), error bound) per group."""
        self.mref = b
        S = E = 0.0
        m = a
        while m <= b:
            p = self._panel(m)
            e = min(b, p[1])
            if p[2] is None:
                S, E = (
                    S + p[3][m - p[0] : e - p[0] + 1].sum(0),
                    E + p[4][m - p[0] : e - p[0] + 1].sum(0),
                )
            elif isinstance(p[2], str):  # sum_(m'=m..e) P_g(m') in [0, chernoff_sum]
                cs = self.spec.chernoff_sum(m, e)
                S, E = S + cs / 2, E + cs / 2
            else:
                s, er = self._psum(p, m, e)
                S, E = S + s, E + er
            m = e + 1
        return S, E

    @staticmethod
    def _psum(p, a, b):
        _, _, u0, u1, coef, pos, delta, csum, Tinv, eps = p
        n = b - a + 1
        if n <= 256:
            mm, wts = np.arange(a, b + 1, dtype=float), np.ones(n)
        else:
            xq, wq = _dgauss(n, 40)
            mm, wts = a + (xq + 1) / 2 * (n - 1), n * wq
        x = 2 * (np.log(mm) - u0) / (u1 - u0) - 1
        vals = np.exp(np.polynomial.chebyshev.chebval(x, coef)) * wts
        lag = np.abs(np.polynomial.chebyshev.chebvander(x, coef.shape[0] - 1) @ Tinv)
        S = vals.sum(axis=1)  # node errors: sum_q vals_q sum_i |l_i(x_q)| eps_i (|l_i|: lag)
        E = S * np.expm1(delta) + ((vals @ lag) * eps.T).sum(axis=1) + 8 * U * S
        cs = csum(a, b)  # groups without an interpolant: their Chernoff sum, halved
        S[~pos], E[~pos] = cs[~pos] / 2, cs[~pos] / 2
        return S, E
