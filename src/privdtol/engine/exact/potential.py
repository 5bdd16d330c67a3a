"""The restricted softmax potential of Lemma 5's large-gap step (Cesari & Colomboni, Section
5.4, proof of eq. (6)): E[log Z_m], Z_m = 1 + sum_(j large) e^(-eta D_(m,j)), computed exactly
(no Monte Carlo) with an error bound, and the drift inequality

    E[log Z_(m+1)] - E[log Z_m] <= -(eta / 4) E[V_m],   V_m = sum_(j large) Delta_j Q_(m,j).

"Large" is Delta_j > 4 eta with the paper's eta = min(eps/2, 1/8) (the split (3)); the
temperature in Z and V is the algorithm's own (they agree for ``rps``).

Bernoulli losses: with c = m mu_1, log Z = eta (S_1 - c) + log W, W = sum_(i in {1} + large)
e^(-eta (S_i - c)), and E S_1 = c, so E[log Z_m] = E[log W]; the S_i are independent, so by
log w = ∫ (e^(-t) - e^(-t w)) dt / t in s = log t

    E[log W] = ∫ (e^(-e^s) - prod_g phi_g(e^s)^(n_g)) ds,   phi_g(t) = E exp(-t e^(-eta (S_g - c))),

a trapezoid sum over s whose step h makes Trefethen & Weideman's bound (2014, Thm 5.1)
2 M / (e^(2 pi a / h) - 1) <= 1e-16, with a = 1.2 and M = 1 + E W + E_1(cos a) + E_1(W_min cos a)
bounding the integral of abs(integrand) on every line Im s = y, abs(y) <= a (since
abs(e^-z - e^-zw) <= abs(z) abs(1 - w) for Re z > 0; E_1 the exponential integral).
Deterministic losses: Z_m is a number.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import exp1

from privdtol.core import bounds
from privdtol.engine.exact.binomial import _normalise, _pmf_windows, _supports
from privdtol.engine.exact.numerics import TAIL, U
from privdtol.engine.exact.spec import _Spec
from privdtol.environments import exact_family

#: half-width of the analyticity strip used for the trapezoid bound, and the bound it must meet
STRIP, TRAPEZOID_TOL = 1.2, 1e-16
#: the integrand's ends: e^(s_lo) (1 + E W) <= e^-EDGE_LO, e^(s_hi) W_min >= EDGE_HI
EDGE_LO, EDGE_HI = 45.0, 50.0


def large_gap(spec: _Spec, epsilon: float) -> np.ndarray:
    """Groups of ``spec`` that are large-gap in the split (3): Delta_j > 4 eta, the paper's
    eta = min(eps/2, 1/8) (the best group never is)."""
    return ~bounds.small_gap(spec.delta, bounds.eta(epsilon)) & (spec.delta > 0)


def restricted_means(algorithm, means, epsilon, env="bernoulli"):
    """(means of the best action and the large-gap actions, the selection's eta): the instance
    of the restricted softmax Q of Lemma 5's proof (Section 5.4), or (None, eta) when no action
    is large-gap."""
    spec = _Spec(algorithm, means, epsilon, env)
    big = large_gap(spec, epsilon)
    if not big.any():
        return None, spec.eta
    mu = np.concatenate([spec.mu[:1], np.repeat(spec.mu[big], spec.ns[big].astype(int))])
    return mu, spec.eta


def _log_w(mu, ns, eta, m):
    """(E[log W], error bound) for groups (mu, ns), group 0 the best, at m >= 1 (Bernoulli)."""
    c = m * mu[0]
    sup = _supports(m, mu, TAIL / ns)
    lo = np.array([s[0] for s in sup], dtype=np.int64)
    hi = np.array([s[1] for s in sup], dtype=np.int64)
    tails = np.array([s[2] for s in sup])
    n = hi - lo + 1
    b, eb = _pmf_windows(m, mu, lo, n)
    cuts = np.cumsum(n)[:-1]
    rows = [
        _normalise(x[None, :], e[None, :])
        for x, e in zip(np.split(b, cuts), np.split(eb, cuts), strict=True)
    ]
    # log W ranges over [log w_min, log w_max] on the windows
    w_min = math.exp(-eta * (hi[0] - c))
    w_max = float(ns @ np.exp(-eta * (lo - c)))
    mean_w = sum(
        float(ns[g] * (r[0][0] @ np.exp(-eta * (np.arange(lo[g], hi[g] + 1) - c))))
        for g, r in enumerate(rows)
    )
    a = STRIP
    M = 1 + mean_w + float(exp1(math.cos(a))) + float(exp1(w_min * math.cos(a)))
    h = 2 * math.pi * a / math.log(2 * M / TRAPEZOID_TOL + 1)
    s_lo = -math.log1p(w_max) - EDGE_LO
    s_hi = math.log(EDGE_HI / w_min)
    s = s_lo + h * np.arange(math.ceil((s_hi - s_lo) / h) + 1)
    total = np.zeros(s.size)
    for g, (p, _) in enumerate(rows):
        x = s[None, :] - eta * (np.arange(lo[g], hi[g] + 1) - c)[:, None]
        om = p[0] @ -np.expm1(-np.exp(np.minimum(x, 700.0)))
        with np.errstate(divide="ignore"):  # om = 1: phi = 0, log -inf, integrand e^(-e^s)
            total += ns[g] * np.log1p(-np.minimum(om, 1.0))
    es = np.exp(s)
    with np.errstate(over="ignore", invalid="ignore"):  # s > 0: no cancellation to avoid
        f = np.where(s <= 0, -np.exp(-es) * np.expm1(total + es), np.exp(-es) - np.exp(total))
    value = h * float(f.sum())
    span = max(abs(math.log(w_min)), abs(math.log(w_max)))
    err = (
        2 * M / math.expm1(2 * math.pi * a / h)  # trapezoid (analytic strip)
        + math.exp(-EDGE_LO) * (1 + mean_w) / (1 - math.exp(-h)) * 2  # left end (nodes + tail)
        + 4 * math.exp(-EDGE_HI) / EDGE_HI  # right end: E_1(e^s w) <= e^(-x)/x, twice
        + 2 * span * float(ns @ (np.array([r[1] for r in rows]).ravel() + tails))  # pmfs
        + 8 * U * h * float(np.abs(f).sum()) * (s.size + 8)  # rounding
    )
    return value, err


def expected_log_z(algorithm, means, epsilon, ms, env="bernoulli"):
    """(E[log Z_m], error bound) at each m of ``ms`` (m = 0: log Z_0 = log(1 + #large),
    exact).  Zero where no action is large-gap (Z_m = 1)."""
    ms = [int(m) for m in np.atleast_1d(ms)]
    if min(ms) < 0:
        raise ValueError("m must be >= 0")
    mu, eta = restricted_means(algorithm, means, epsilon, env)
    vals, errs = np.zeros(len(ms)), np.zeros(len(ms))
    if mu is None:
        return vals, errs
    g, ns = np.unique(mu, return_counts=True)
    ns = ns.astype(float)
    for i, m in enumerate(ms):
        if m == 0:
            vals[i], errs[i] = math.log(mu.size), 4 * U * math.log(mu.size)
        elif exact_family(env) == "deterministic":
            x = float(ns[1:] @ np.exp(-eta * m * (g[1:] - g[0])))
            vals[i], errs[i] = math.log1p(x), 8 * U * (1 + math.log1p(x))
        else:
            vals[i], errs[i] = _log_w(g, ns, eta, m)
    return vals, errs
