"""The average over the random prefix M_r ~ Unif{2^(r-1)+1..2^r} (Section 4 of Cesari &
Colomboni) of the selection law from m rounds: Chebyshev panels in log m summed by a discrete
Gauss rule, with an a-posteriori error bound."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from privdtol.engine.exact.numerics import DEG, N_DIRECT, U


@lru_cache(maxsize=256)
def _dgauss(N, n):
    """Gauss rule (nodes in [-1, 1], weights summing to 1) of the uniform measure on N points
    (Golub-Welsch with the discrete Chebyshev recurrence); exact for degree <= 2n - 1."""
    k = np.arange(1, n, dtype=float)
    beta = k * k * (float(N) ** 2 - k * k) / ((4 * k * k - 1) * (float(N) - 1) ** 2)
    x, v = np.linalg.eigh(np.diag(np.sqrt(beta), 1) + np.diag(np.sqrt(beta), -1))
    return x, v[0] ** 2


class _Averager:
    """Sums over m of the law from m rounds (the average over M_r ~ Unif{2^(r-1)+1..2^r}).

    Panels [lo, hi] (possibly several blocks wide) carry a degree-16 Chebyshev interpolant of
    log P_g in log m at rounded Chebyshev-Lobatto nodes, accepted when its last coefficients
    are < 1e-10 and decaying (relative interpolation error ~ |c_15| + |c_16|; else the panel
    shrinks geometrically, down to exact sums over <= N_DIRECT values); sums over any integer
    sub-range by a 40-node discrete Gauss rule (error ~5.8^-80: analytic in m > 0). Groups with
    a zero or inaccurate value at a node are bounded by their Chernoff bound (monotone in m)."""

    def __init__(self, spec, mmax, weights):
        self.spec, self.mmax, self.panels, self.cache = spec, mmax, [], {}
        self.wt, self.tol, self.ratio = weights, 0.0, 8.0  # tol: wanted wt @ error per m

    def laws(self, ms):
        need = [int(m) for m in ms if int(m) not in self.cache]
        if need:
            P, E = self.spec.laws(need)
            self.cache.update({m: (P[i], E[i]) for i, m in enumerate(need)})
        return (
            np.array([self.cache[int(m)][0] for m in ms]),
            np.array([self.cache[int(m)][1] for m in ms]),
        )

    def _fit(self, lo, hi):
        u0, u1 = math.log(lo), math.log(hi)
        t = np.cos(np.pi * np.arange(DEG, -1, -1) / DEG)
        ms = np.unique(np.rint(np.exp(u0 + (t + 1) / 2 * (u1 - u0))).astype(np.int64))
        if ms.size < DEG + 1:
            return None
        Fv, Fe = self.laws(ms)
        pos = np.all((Fv > 0) & (Fe <= 0.1 * Fv), axis=0)
        Tinv = np.linalg.inv(
            np.polynomial.chebyshev.chebvander(2 * (np.log(ms) - u0) / (u1 - u0) - 1, DEG)
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
        p = lo, hi, u0, u1, coef, pos, 2 * tail, self.spec.chernoff(lo), Tinv, eps
        S, E = self._psum(p, lo, hi)
        return (
            p
            if float(self.wt @ E) <= max(1e-10 * abs(float(self.wt @ S)), self.tol * (hi - lo + 1))
            else None
        )

    def _panel(self, m):
        for p in self.panels:
            if p[0] <= m <= p[1]:
                return p
        lo, hi = m, min(self.mmax, max(int(self.ratio * m), m + N_DIRECT))
        while True:
            if hi - lo + 1 <= N_DIRECT:
                p = (lo, hi, None, *self.laws(np.arange(lo, hi + 1)))
                break
            p = self._fit(lo, hi)
            if p is not None:
                break
            hi = max(lo + N_DIRECT - 1, round(math.sqrt(lo * hi)))
        self.ratio = min(8.0, 2.0 * (p[1] + 1) / p[0])  # next panel: at most twice as wide
        self.panels.append(p)
        return p

    def sum(self, a, b):
        """(sum_(m=a..b) P_g(m), error bound) per group."""
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
            else:
                s, er = self._psum(p, m, e)
                S, E = S + s, E + er
            m = e + 1
        return S, E

    @staticmethod
    def _psum(p, a, b):
        _, _, u0, u1, coef, pos, delta, cb, Tinv, eps = p
        n = b - a + 1
        if n <= 256:
            mm, wts = np.arange(a, b + 1, dtype=float), np.ones(n)
        else:
            xq, wq = _dgauss(n, 40)
            mm, wts = a + (xq + 1) / 2 * (n - 1), n * wq
        x = 2 * (np.log(mm) - u0) / (u1 - u0) - 1
        vals = np.exp(np.polynomial.chebyshev.chebval(x, coef)) * wts
        lag = np.abs(np.polynomial.chebyshev.chebvander(x, DEG) @ Tinv)  # |Lagrange basis|
        S = vals.sum(axis=1)  # node errors: sum_q vals_q sum_i |l_i(x_q)| eps_i
        E = S * np.expm1(delta) + ((vals @ lag) * eps.T).sum(axis=1) + 8 * U * S
        S[~pos], E[~pos] = n * cb[~pos] / 2, n * cb[~pos] / 2
        return S, E
