"""Exact expected pseudo-regret of the block algorithms of privdtol (no Monte Carlo).

Cesari & Colomboni, "Optimal Gap-Dependent Regret for Private Stochastic DTOL": Section 3
(Reg_T = sum_t E[Delta_(I_t)]), Section 4 (blocks B_r = {2^r..2^(r+1)-1}, A_0 uniform, M_0 = 1,
M_r ~ Unif{2^(r-1)+1..2^r}, A_(r+1) ~ softmax(-eta L_r(M_r)), eta = min(eps/2, 1/8)) and the proof
of Lemma 4 (Section 5.3): A_(r+1) depends on block r only, so, with equality,
    E[Reg_T] = sum_r |B_r ∩ [1, T]| sum_j Delta_j P(A_r = j).
Each rule is a noisy argmin of independent block sums S_j (Binomial(m, mu_j); m mu_j for
deterministic losses): softmax(-eta S) = argmin_j (eta S_j + log E_j), E_j ~ Exp(1) (Gumbel-max),
report-noisy-min = argmin_j (S_j + Z_j), Z_j ~ Laplace(2/eps); so
    P(j wins) = ∫ f_j(y) prod_(i != j) P(Y_i > y) dy,
and equal means share one factor raised to a power (K = 2^16 costs what K = 2 costs).
- Softmax: in s = log t this is E[w_j/sum w] = ∫ E[w_j t e^(-t w_j)] prod_i E[e^(-t w_i)] ds, each
  factor a lattice convolution of a pmf with exp(-e^u) or e^u exp(-e^u). The trapezoid rule with
  step h <= 0.3 has relative error <= 2/(cos a (e^(2 pi a/h) - 1)) ~ 6e-13 (the integrand is
  analytic and bounded by P_j/cos a in |Im s| < a < pi/2: Trefethen & Weideman 2014, Thm 5.1).
- Laplace: between atoms every factor is c0 + c1 e^(y/b) + c2 e^(-y/b) (exact exponential
  recursions); adaptive Gauss-Kronrod (7,15) per piece; closed form beyond the last atom.
- Binomial pmfs by Loader's saddle-point formula with a per-point error bound, truncated where
  the tails are < 1e-22 (total-variation term in the bound) and renormalised, so that the error of
  1 - P(Y_i > y) is relative and the K-fold power does not multiply it by K.
- Groups with a Chernoff bound < 1e-40 on their win probability are dropped (L1 change <= 2 bound).
- Average over M_r: exact sums for <= 128 values; else panels with a 17-point Chebyshev
  interpolant at integer nodes, summed exactly over the integers (discrete Gauss rule of the
  uniform measure), error from the last Chebyshev coefficients, bisected when too large.
- Blocks whose (monotone in m) Chernoff bound sum is < 1e-16 of the regret so far are skipped and
  the bound added. All error terms are rigorous round-off/truncation bounds except the
  Gauss-Kronrod and Chebyshev a-posteriori estimates (standard, conservative).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.signal import lfilter
from scipy.stats import binom

from privdtol.core import bounds

EXACT_ALGORITHMS = (
    "rps",
    "rps_full_prefix",
    "rps_uncapped",
    "rnm_ftnl",
    "wu_wang",
    "wu_wang_gumbel",
)
EXACT_ENVS = ("bernoulli", "deterministic")
U = 2.0**-53
A_CUT, B_CUT, H_MAX = 55.0, 5.84, 0.3  # kernel window u in [-A, B]; trapezoid step
TAIL, PRUNE, N_DIRECT, SMALL_M, GK_TOL, DEG = 1e-22, 1e-40, 64, 400, 1e-13, 16
_SFE = np.array(
    [
        0,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ]
)
_XGK = [
    0.991455371120812639,
    0.949107912342758525,
    0.864864423359769073,
    0.741531185599394440,
    0.586087235467691130,
    0.405845151377397167,
    0.207784955007898468,
    0.0,
]
_WGK = [
    0.022935322010529225,
    0.063092092629978553,
    0.104790010322250184,
    0.140653259715525919,
    0.169004726639267903,
    0.190350578064785410,
    0.204432940075298892,
    0.209482141084727828,
]
_WG = [0.129484966168869693, 0.279705391489276668, 0.381830050505118945, 0.417959183673469388]
GK_X = np.array([-x for x in _XGK[:-1]] + _XGK[::-1])
GK_W = np.array(_WGK[:-1] + _WGK[::-1])
G7_W = np.zeros(15)
G7_W[1::2] = _WG[:-1] + _WG[::-1]


def _cumsum(x):
    """Inclusive cumsum along the last axis of a nonnegative array, in blocks of 256: relative
    error <= (256 + N/256 + 2) U (a sequential cumsum: N U)."""
    N = x.shape[-1]
    nb = -(-N // 256)
    y = np.zeros((*x.shape[:-1], nb * 256))
    y[..., :N] = x
    y = y.reshape((*x.shape[:-1], nb, 256)).cumsum(axis=-1)
    y[..., 1:, :] += np.cumsum(y[..., :-1, -1], axis=-1)[..., None]
    return y.reshape((*x.shape[:-1], -1))[..., :N]


def _c_sum(N):
    return 256 + N / 256 + 4


def _stirlerr(n):
    """log(n!) - log(sqrt(2 pi n) (n/e)^n): exact table for n <= 15, else 5 series terms."""
    nn = np.maximum(n, 1.0) ** 2
    big = 1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * nn)) / nn) / nn) / nn
    big = big / np.maximum(n, 1.0)
    return big if np.min(n) > 15 else np.where(n <= 15, _SFE[np.clip(n, 0, 15).astype(int)], big)


def _bd0(x, M, D):
    """x log(x/M) + M - x given D = x - M accurately (Loader 2000), and an error bound."""
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(x + M > 0, D / (x + M), 0.0)  # x = M = 0: a point mass (mu in {0, 1})
    far = np.abs(v) >= 0.1
    vmax = float(np.max(np.where(far, 0.0, np.abs(v)), initial=0.0))
    v2, s, ej = v * v, D * v, 2 * x * v
    for j in range(1, 2 + int(-17 / math.log10(max(vmax * vmax, 1e-300)))):
        ej = ej * v2
        s = s + ej / (2 * j + 1)
    err = 8 * U * np.abs(s)
    if far.any():
        xl = x * np.log(np.where(x > 0, x / M, 1.0))
        s = np.where(far, xl - D, s)
        err = np.where(far, 8 * U * np.abs(s) + 6 * U * (np.abs(xl) + np.abs(D)), err)
    return s, err


def _pmf(k, m, mu):
    """Binomial(m, mu) pmf at k (broadcast; 0 for k > m) by Loader's formula, M = m mu by an
    exact two-product; and a bound on the relative error of every value."""
    k, m, mu = np.asarray(k, float), np.asarray(m, float), np.asarray(mu, float)
    with np.errstate(all="ignore"):
        Mh = m * mu
        sm, su = 134217729.0 * m, 134217729.0 * mu
        ah, bh = sm - (sm - m), su - (su - mu)
        Ml = ((ah * bh - Mh) + ah * (mu - bh) + (m - ah) * bh) + (m - ah) * (mu - bh)
        D = (k - Mh) - Ml
        mk = m - k
        b1, e1 = _bd0(k, Mh, D)
        b2, e2 = _bd0(mk, m - Mh, -D)
        inner = (k > 0) & (mk > 0)
        half = 0.5 * np.log(m / (2 * np.pi * np.where(inner, k * mk, 1.0)))
        st = _stirlerr(m) - _stirlerr(k) - _stirlerr(mk)
        edge = np.where(k == 0, m * np.log1p(-mu), np.where(mk == 0, m * np.log(mu), -np.inf))
        logb = np.where(inner, st - b1 - b2 + half, edge)
        logb = np.where(np.isnan(logb) | (mk < 0), -np.inf, logb)
        err = np.where(
            inner,
            e1 + e2 + 8 * U * (np.abs(half) + np.abs(st) + np.abs(b1) + np.abs(b2) + 1),
            6 * U * (np.abs(edge) + 1),
        )
    return np.exp(logb), 2 * np.where(np.isfinite(logb), err, 0.0) + 4 * U


def _normalise(b, e):
    """Renormalise pmfs (last axis) to sum 1, after zeroing values < 1e-150 (no subnormal
    arithmetic later; their mass, < N 1e-150, is added to the truncated tail); relative error
    bound per row (after it sum_k b_k err_k ~ 0, which keeps errors of 1 - phi relative)."""
    b = np.where(b < 1e-150, 0.0, b)
    s = _cumsum(b)[..., -1:]
    return b / s, 2 * np.max(np.where(b > 0, e, 0), axis=-1) + 2 * _c_sum(b.shape[-1]) * U


def _support(m, mu, tail_max):
    """Integer window [lo, hi] of Binomial(m, mu) and its exact outside mass (< tail_max)."""
    if mu in (0.0, 1.0) or m <= SMALL_M:
        return (int(m * mu), int(m * mu), 0.0) if mu in (0.0, 1.0) else (0, m, 0.0)
    z = 10.5
    while True:
        sd = math.sqrt(m * mu * (1 - mu))
        lo, hi = max(0, math.floor(m * mu - z * sd - 30)), min(m, math.ceil(m * mu + z * sd + 30))
        tail = (binom.cdf(lo - 1, m, mu) if lo > 0 else 0.0) + (
            binom.sf(hi, m, mu) if hi < m else 0.0
        )
        if tail < tail_max:
            return lo, hi, float(tail)
        z *= 1.3


def _trap_rel(h):
    a = np.linspace(0.01, np.pi / 2 - 1e-4, 4000)
    return float(np.min(2 / (np.cos(a) * np.expm1(2 * np.pi * a / h))))


def _kernels(u):
    eu = np.exp(u)
    G = np.exp(-eu)
    K = np.stack([G, -np.expm1(-eu), eu * G])  # G, 1 - G, g = e^u G
    return np.where(K < 1e-140, 0.0, K)  # (u > B_CUT: < 1e-140, dropped)


@lru_cache(maxsize=16)
def _grid(eta):
    """Node layout for the trapezoid step h = eta p / Q <= H_MAX, and its kernels: p == 1:
    nodes n + q/Q, K[q, t, d - dl]; p > 1: nodes every p lattice points, K[t, e, r] at
    d = dl + p e - r (polyphase in the residue r of the lattice index)."""
    p = max(1, math.floor(H_MAX / eta + 1e-12))
    Q = max(1, math.ceil(eta / H_MAX - 1e-12))
    dl, dh = math.floor(-A_CUT / eta), math.ceil(B_CUT / eta)
    if p == 1:
        d = np.arange(dl, dh + 1)
        K = np.stack([_kernels(eta * (d + q / Q)) for q in range(Q)])
    else:
        E = math.ceil((dh - dl) / p) + 1
        K = _kernels(eta * (dl + p * np.arange(E + 1)[:, None] - np.arange(p)[None, :]))
    h = eta * p / Q
    return p, Q, K, h, _trap_rel(h)


def _rows_conv(B, eta, sup=None):
    """phi = E[exp(-t w)], om = 1 - phi, psi = E[t w exp(-t w)] (w = e^(-eta S)) at all nodes,
    for each row of B (pmfs on one lattice, row r supported on sup[r] = (lo, hi)); kernel terms
    with u < -A (G ~ 1) and u > B (G ~ 0) are exact suffix/prefix sums. Returns (phi, om, psi,
    node positions in lattice units from B's first column, rounding constant, h, trapezoid)."""
    R, N = B.shape
    p, Q, K, h, tr = _grid(eta)
    sup = [(0, N - 1)] * R if sup is None or N <= 600 else sup
    CS, SS = _cumsum(B), _cumsum(B[:, ::-1])[:, ::-1]
    CSp = np.hstack([np.zeros((R, 1)), CS, np.ones((R, 1))])
    SSp = np.hstack([SS, np.zeros((R, 1))])
    k = np.arange(N)[:, None]
    if p == 1:  # direct convolutions, Q node offsets
        dl, W = -K.shape[2] + 1 + math.ceil(B_CUT / eta), K.shape[2]
        out = np.zeros((3, R, Q, N + W - 1))
        for q in range(Q):
            if N <= 600:  # one Toeplitz GEMM per kernel
                T = np.zeros((3, N, N + W - 1))
                T[:, k, k + np.arange(W)] = K[q][:, None, :]
                out[:, :, q] = B @ T
                continue
            for r, (lo, hi) in enumerate(sup):
                for t in range(3):
                    out[t, r, q, lo : hi + W] = np.convolve(B[r, lo : hi + 1], K[q, t])
        i = np.arange(N + W - 1)
        out[0] += SSp[:, np.minimum(i + 1, N)][:, None, :]
        out[1] += CSp[:, np.clip(i - W + 1, 0, N + 1)][:, None, :]
        xs, nconv = (dl + i[None, :] + np.arange(Q)[:, None] / Q).ravel(), W
    else:  # polyphase: out[a] = sum_(j,r) B[pj+r] K[a-j, r]
        E = K.shape[1] - 1
        nj = -(-N // p)
        Bp = np.zeros((R, nj * p))
        Bp[:, :N] = B
        out = np.zeros((3, R, 1, nj + E))
        if N <= 600:
            T = np.zeros((3, N, nj + E))
            T[:, k, k // p + np.arange(E + 1)] = K[:, :, k[:, 0] % p].transpose(0, 2, 1)
            out[:, :, 0] = B @ T
        for r, (lo, hi) in enumerate(sup if N > 600 else []):
            jl, jh = lo // p, hi // p
            seg = Bp[r, jl * p : (jh + 1) * p].reshape(-1, p)
            if p <= 8:
                for t in range(3):
                    for ph in range(p):
                        out[t, r, 0, jl : jh + E + 1] += np.convolve(seg[:, ph], K[t, :, ph])
            else:
                V = (K.reshape(-1, p) @ seg.T).reshape(3, E + 1, -1)
                for e in range(E + 1):
                    out[:, r, 0, jl + e : jh + e + 1] += V[:, e]
        a = np.arange(nj + E)
        out[0, :, 0] += SSp[:, np.minimum(p * (a + 1), N)]
        out[1, :, 0] += CSp[:, np.clip(p * (a - E), 0, N + 1)]
        xs, nconv = math.floor(-A_CUT / eta) + p * a, p + E + 1
    return (
        out[0].reshape(R, -1),
        out[1].reshape(R, -1),
        out[2].reshape(R, -1),
        xs,
        nconv + _c_sum(N) + 8,
        h,
        tr,
    )


def _powers(lf, ratio, ns, db, c_r):
    """Log of prod_h F_h^(n_h - [h = g]) for the suboptimal groups g >= 1 (last-but-one axis =
    groups; group 0 is the best) and the relative error bound of its exponential (F_h given by
    its log lf; the error of 1 - F_h is relative to min(F_h, 1 - F_h): ratio = that / F_h)."""
    lf = np.maximum(lf, -1e4)
    tot = np.einsum("h,...hk->...k", ns, lf)[..., None, :]
    eps = 2 * (db[..., None] + c_r * U) * ratio + 2 * math.exp(-A_CUT) + 4 * U
    etot = np.einsum("h,...hk->...k", ns, eps)[..., None, :]
    Lg = tot - lf[..., 1:, :]
    return np.where(Lg < -650, -np.inf, Lg), (
        etot
        - eps[..., 1:, :]
        + 4 * U * (np.abs(tot) + np.abs(lf[..., 1:, :]) + 2)
        + (db[..., 1:, None] + c_r * U)
    )


def _with_best(P, E, ns):
    """Prepend the best group's probability 1 - sum_(g >= 1) n_g P_g (error: sum n_g E_g);
    1e-130 n covers the pmf values < 1e-150 and kernel values < 1e-140 set to 0."""
    E = E + ns.sum() * 1e-130
    s = P @ ns[1:]
    return (
        np.concatenate([(1 - s)[..., None], P], axis=-1),
        np.concatenate([(E @ ns[1:] + 4 * U)[..., None], E], axis=-1),
    )


def _softmax(B, db, ns, eta, sup=None):
    """Law of argmin_g (eta S_g + log E) per group for pmfs B (..., G, N) (group g supported
    on sup[g] if given): (P, err). Nodes where every psi_g (g >= 1) or phi_0 vanishes (u beyond
    the kernel window) are skipped: their terms are already in the e^-A and G(B) bounds."""
    shp = B.shape
    phi, om, psi, xs, c_r, h, tr = _rows_conv(B.reshape(-1, shp[-1]), eta, sup)
    if sup is not None:
        dl, dh = -A_CUT / eta - 2, B_CUT / eta + 2
        keep = np.zeros(xs.size, bool)
        for lo, hi in sup[1:]:
            keep |= (xs >= lo + dl) & (xs <= hi + dh)
        keep &= xs <= sup[0][1] + dh
        phi, om, psi = phi[:, keep], om[:, keep], psi[:, keep]
    phi, om, psi = (x.reshape((*shp[:-1], -1)) for x in (phi, om, psi))
    with np.errstate(divide="ignore", invalid="ignore"):
        lf = np.where(om < 0.5, np.log1p(-np.minimum(om, 0.5)), np.log(phi))
        ratio = np.minimum(1.0, om / np.maximum(phi, 1e-300))
    Lg, rel = _powers(lf, ratio, ns, db, c_r)
    F = psi[..., 1:, :] * np.exp(Lg)
    P = h * F.sum(axis=-1)
    return _with_best(P, h * (F * rel).sum(axis=-1) + P * tr + 2 * math.exp(-A_CUT), ns)


def _laplace(ys, Pm, db, ns, b, c_rec):
    """Law of argmin_g (Y_g + Z), Z ~ Laplace(b), Y_g with masses Pm (G, N) on atoms ys."""
    G, N = Pm.shape
    gaps = np.diff(ys)
    rho = np.exp(-gaps / b)
    if N > 2 and np.all(gaps == 1.0):
        L = lfilter([1.0], [1.0, -rho[0]], Pm, axis=1)
        R = lfilter([1.0], [1.0, -rho[0]], Pm[:, ::-1], axis=1)[:, ::-1]
    else:
        L, R = Pm.copy(), Pm.copy()
        for i in range(1, N):
            L[:, i] += rho[i - 1] * L[:, i - 1]
            R[:, N - 1 - i] += rho[N - 1 - i] * R[:, N - i]
    CDF, SF = _cumsum(Pm), _cumsum(Pm[:, ::-1])[:, ::-1]
    c_r = c_rec + _c_sum(N) + 8
    with np.errstate(divide="ignore"):  # beyond the last atom: closed form
        lt = np.maximum(np.log(0.5 * L[:, -1]), -1e4)
        right = np.exp(ns @ lt + math.log(1 / ns.sum())) * np.ones(G - 1)
    err = right * (ns.sum() * 2 * (db[1:] + c_r * U) + 20 * U)
    il = np.arange(N - 1)  # pieces; column -1: left half-line in
    lo = np.concatenate([[0.0], ys[:-1]])  # v = e^((y - y_0)/b) in (0, 1]
    hi = np.concatenate([[1.0], ys[1:]])
    cl, cr = np.concatenate([[-1], il]), np.concatenate([[0], il + 1])
    Fl = CDF[:, il] - 0.5 * L[:, il] + 0.5 * R[:, il + 1] * rho
    Fbl = SF[:, il + 1] - 0.5 * R[:, il + 1] * rho + 0.5 * L[:, il]
    with np.errstate(divide="ignore"):
        lf = np.where(Fl < 0.5, np.log1p(-np.minimum(Fl, 0.5)), np.log(Fbl))
    lf = np.maximum(lf, -1e4)
    bound = np.hstack(
        [0.5 * R[1:, :1], gaps * (L[1:, il] + R[1:, il + 1]) / (2 * b) * np.exp(ns @ lf - lf[1:])]
    )
    keep = bound.max(axis=0) >= PRUNE
    err += bound[:, ~keep].sum(axis=1)
    lo, hi, cl, cr = lo[keep], hi[keep], cl[keep], cr[keep]
    Lc, Cc = np.hstack([np.zeros((G, 1)), L]), np.hstack([np.zeros((G, 1)), CDF])

    def gk(lo, hi, cl, cr):  # Gauss-Kronrod (7, 15) on pieces
        mid, hw = (lo + hi) / 2, (hi - lo) / 2
        y = mid[:, None] + hw[:, None] * GK_X[None, :]
        left = (cl < 0)[:, None]
        e1 = np.where(left, 0.0, np.exp(-np.abs(y - ys[np.maximum(cl, 0)][:, None]) / b))
        e2 = np.where(left, y, np.exp(-np.abs(ys[cr][:, None] - y) / b))
        jac = np.where(left, b / np.where(left, y, 1.0), 1.0)
        Li, Ri, Ci, Si = Lc[:, cl + 1, None], R[:, cr, None], Cc[:, cl + 1, None], SF[:, cr, None]
        F = Ci - 0.5 * Li * e1 + 0.5 * Ri * e2
        with np.errstate(divide="ignore", invalid="ignore"):
            lF = np.where(
                F < 0.5, np.log1p(-np.minimum(F, 0.5)), np.log(Si - 0.5 * Ri * e2 + 0.5 * Li * e1)
            )
            ratio = np.minimum(1.0, F / np.maximum(1 - F, 1e-300))
        Lg, rel = _powers(lF.transpose(1, 0, 2), ratio.transpose(1, 0, 2), ns, db, c_r)
        val = (Li[1:] * e1 + Ri[1:] * e2) / (2 * b) * jac * np.exp(Lg.transpose(1, 0, 2))
        K15 = (val @ GK_W) * hw  # error estimate |K15 - G7| (that of G7)
        e = np.maximum(np.abs(K15 - (val @ G7_W) * hw), 50 * U * np.abs(K15))
        return K15, e, ((val * rel.transpose(1, 0, 2)) @ GK_W) * hw

    total, floor = right.copy(), None
    step = max(1, int(4e5 // (15 * G)))
    for it in range(60):
        if lo.size == 0:
            break
        res = [
            gk(lo[i : i + step], hi[i : i + step], cl[i : i + step], cr[i : i + step])
            for i in range(0, lo.size, step)
        ]
        K15, e, rnd = (np.hstack([r[j] for r in res]) for j in range(3))
        if floor is None:  # 1e-13 of each P_g and of 1/n_g, per piece
            floor = (GK_TOL * (np.abs(K15.sum(axis=1)) + 1 / ns[1:]) / lo.size)[:, None]
        ok = (
            np.all(e <= np.maximum(10 * GK_TOL * np.abs(K15), floor), axis=0)
            | (hi - lo < 2e-9 * b)
            | (it == 59)
        )
        total += K15[:, ok].sum(axis=1)
        err += e[:, ok].sum(axis=1) + rnd[:, ok].sum(axis=1)
        mid = (lo + hi) / 2
        lo, hi = np.concatenate([lo[~ok], mid[~ok]]), np.concatenate([mid[~ok], hi[~ok]])
        cl, cr = np.tile(cl[~ok], 2), np.tile(cr[~ok], 2)
    return _with_best(total, err, ns)


class _Spec:
    """Groups of equal means (sorted; group 0 is the unique best) and the selection rule."""

    def __init__(self, algorithm, means, epsilon, env):
        if algorithm not in EXACT_ALGORITHMS or env not in EXACT_ENVS:
            raise ValueError(f"unsupported algorithm/env {algorithm!r}/{env!r}")
        means = np.asarray(means, dtype=float)
        if means.ndim != 1 or means.size < 2 or not (0 <= means.min() <= means.max() <= 1):
            raise ValueError("means: need K >= 2 values in [0, 1]")
        if not (epsilon > 0 and math.isfinite(epsilon)):
            raise ValueError("epsilon must be a finite number > 0")
        self.mu, self.inv, counts = np.unique(means, return_inverse=True, return_counts=True)
        if counts[0] != 1:
            raise ValueError("means: no unique best action")
        self.ns, self.delta, self.K = counts.astype(float), self.mu - self.mu[0], means.size
        self.softmax = algorithm in ("rps", "rps_full_prefix", "rps_uncapped", "wu_wang_gumbel")
        self.eta = (
            epsilon / 2
            if algorithm in ("rps_uncapped", "wu_wang_gumbel")
            else float(bounds.eta(epsilon))
        )
        self.b = 2.0 / epsilon
        self.random_prefix = algorithm in ("rps", "rps_uncapped")
        self.det = env == "deterministic" and algorithm not in ("wu_wang", "wu_wang_gumbel")
        th = (
            np.linspace(0, self.eta, 801) if self.softmax else np.linspace(0, 1 / self.b, 402)[1:-1]
        )
        pen = 0 * th if self.softmax else -2 * np.log1p(-((th * self.b) ** 2))
        mu, mb = self.mu[:, None], self.mu[0]
        lm = (
            -th * (mu - mb)
            if self.det
            else np.log1p(mu * np.expm1(-th)) + np.log1p(mb * np.expm1(th))
        )
        self.lmgf, self.pen = lm, pen  # log E e^(-theta (X_g - X_best)) per round

    def chernoff(self, m):
        """Per-action bounds on P(A = a member of group g) from m rounds: min over theta of
        E e^(-theta (S_g - S_best)) (softmax: min(1, w_g/w_best) <= e^(-theta D), theta <= eta;
        Laplace: times E e^(theta (Z_g - Z_best)) = (1 - theta^2 b^2)^-2). Nonincreasing in m."""
        out = np.exp(np.minimum(np.min(m * self.lmgf + self.pen, axis=1), 0.0))
        out[0] = 1.0
        return out

    def laws(self, ms):
        """(P, err) per m (rows) and group (columns): the selection law from m rounds."""
        ms = np.asarray(ms, dtype=np.int64)
        if self.softmax and self.det:
            x = -self.eta * ms[:, None] * self.delta[None, :]
            w = np.exp(x)
            P = w / (w @ self.ns)[:, None]
            return P, P * U * (20 + self.mu.size + 8 * np.abs(x)) + 1e-300
        if not (self.softmax and ms.max() <= SMALL_M):
            res = [self.law(int(m)) for m in ms]
            return np.array([r[0] for r in res]), np.array([r[1] for r in res])
        out = [], []
        step = max(1, int(4e6 // (self.mu.size * (ms.max() + 1) * (1 + 50 / self.eta))))
        for i in range(0, ms.size, step):
            mm = ms[i : i + step]
            B, e = _pmf(
                np.arange(mm.max() + 1)[None, None, :], mm[:, None, None], self.mu[None, :, None]
            )
            B, db = _normalise(B, e)
            for o, v in zip(out, _softmax(B, db, self.ns, self.eta), strict=False):
                o.append(v)
        return np.vstack(out[0]), np.vstack(out[1])

    def law(self, m):
        """(P, err) per group of the selection from m rounds, dropping negligible groups."""
        cb = self.chernoff(m)
        keep = self.ns * cb >= PRUNE
        keep[0] = True
        P, err = np.zeros(cb.size), cb.copy()
        err[keep] = 2 * (self.ns * cb)[~keep].sum()
        mus, ns = self.mu[keep], self.ns[keep]
        if mus.size == 1:
            P[0] = 1.0
            return P, err
        if self.det:  # Laplace on the atoms m mu_g (rnm_ftnl)
            Pk, ek = _laplace(m * mus, np.eye(mus.size), np.zeros(mus.size), ns, self.b, 8)
            ek += ns.sum() * 8 * U * m / self.b
        else:
            sup = [_support(m, mu, TAIL / n) for mu, n in zip(mus, ns, strict=False)]
            idx = {mu: g for g, mu in enumerate(mus)}
            for g, mu in enumerate(mus):  # mirrored groups: mirrored windows
                if 1 - mu in idx:
                    (l1, h1, t1), (l2, h2, _) = sup[g], sup[idx[1 - mu]]
                    sup[g] = (min(l1, m - h2), max(h1, m - l2), t1)
            kmin, kmax = min(s[0] for s in sup), max(s[1] for s in sup)
            B, e = np.zeros((mus.size, kmax - kmin + 1)), np.zeros((mus.size, kmax - kmin + 1))
            done = {}
            for g, (lo, hi, _) in enumerate(sup):
                if 1 - mus[g] in done:  # Bin(m, 1 - mu) is Bin(m, mu) mirrored
                    bb, ee = done[1 - mus[g]]
                    done[mus[g]] = bb[::-1], ee[::-1]
                else:
                    done[mus[g]] = _pmf(np.arange(lo, hi + 1), m, mus[g])
                B[g, lo - kmin : hi - kmin + 1], e[g, lo - kmin : hi - kmin + 1] = done[mus[g]]
            B, db = _normalise(B, e)
            if self.softmax:
                Pk, ek = _softmax(
                    B, db, ns, self.eta, [(lo - kmin, hi - kmin) for lo, hi, _ in sup]
                )
            else:
                ys = kmin + np.arange(B.shape[1], dtype=float)
                Pk, ek = _laplace(ys, B, db, ns, self.b, 2 / -math.expm1(-1 / self.b) + 4)
            ek += ns @ np.array([s[2] for s in sup])
        P[keep], err[keep] = Pk, err[keep] + ek
        return P, err


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


def _group_law(avg, r):
    """Law of A_(r+1) per group (and error bound) from block r; r = -1: A_0 (uniform)."""
    spec = avg.spec
    if r < 0:
        return np.full(spec.mu.size, 1.0 / spec.K), np.zeros(spec.mu.size)
    if r == 0 or not spec.random_prefix:
        P, E = avg.laws([1 << r])
        return P[0], E[0]
    S, E = avg.sum((1 << (r - 1)) + 1, 1 << r)
    return S / (1 << (r - 1)), E / (1 << (r - 1))


def block_law(
    algorithm: str, means: np.ndarray, epsilon: float, r: int, env: str = "bernoulli"
) -> tuple[np.ndarray, float]:
    """Law of A_(r+1) (played on B_(r+1)) given block r's data (Section 4); r = -1 gives A_0.

    Returns (P(A_(r+1) = j) for j = 0..K-1, bound on sum_j |error_j|)."""
    spec = _Spec(algorithm, means, epsilon, env)
    avg = _Averager(spec, 1 << max(0, int(r)), spec.ns)
    avg.tol = 1e-12
    P, err = _group_law(avg, int(r))
    return P[spec.inv], float(spec.ns @ err)


def expected_regret(algorithm, means, epsilon, horizons, env="bernoulli"):
    """E[Reg_T] = sum_r |B_r ∩ [1, T]| sum_j Delta_j P(A_r = j) for each T (Section 3 and the
    block accounting of Lemma 4's proof, with equality); returns (regret, error_bound)."""
    spec = _Spec(algorithm, means, epsilon, env)
    hs = [int(T) for T in np.atleast_1d(horizons)]
    if min(hs) < 1:
        raise ValueError("horizons must be positive integers")
    R = max(hs).bit_length()  # blocks 0..R-1 meet [1, max T]
    w = spec.ns * spec.delta
    g, ge = np.zeros(R), np.zeros(R)
    g[0] = float(w.sum()) / spec.K
    ge[0] = 4 * U * g[0]
    mmin = [
        1 if r <= 1 else (1 << (r - 2)) + 1 if spec.random_prefix else 1 << (r - 1)
        for r in range(R)
    ]
    gb = np.array([0.0] + [float(w @ spec.chernoff(mmin[r])) for r in range(1, R)])
    tail = np.cumsum((gb * np.exp2(np.arange(R)))[::-1])[::-1]  # sum_(r' >= r) 2^r' gb_r'
    cum, avg = g[0], _Averager(spec, 1 << max(0, R - 2), w)
    for r in range(1, R):
        if tail[r] <= 1e-16 * cum:
            ge[r:] = gb[r:]
            break
        avg.tol = 1e-12 * cum / (1 << r)
        P, err = _group_law(avg, r - 1)
        g[r] = float(w @ P)
        ge[r] = float(w @ err) + 4 * U * g[r]
        cum += g[r] * (1 << r)
    reg, eb = np.empty(len(hs)), np.empty(len(hs))
    for i, T in enumerate(hs):
        n = np.array([max(0, min((2 << r) - 1, T) - (1 << r) + 1) for r in range(R)], float)
        reg[i] = float(n @ g)
        eb[i] = float(n @ ge) + 4 * R * U * reg[i] + 1e-300
    return reg, eb


def exact_available(algorithm: str, env: str) -> bool:
    """Whether :func:`expected_regret` covers this algorithm on this loss model."""
    return algorithm in EXACT_ALGORITHMS and env in EXACT_ENVS


def check_exact(algorithm: str, env: str) -> None:
    """One-line InputError unless the cell can be computed exactly."""
    from privdtol.errors import InputError

    if algorithm not in EXACT_ALGORITHMS:
        raise InputError(
            "algorithm", f"{algorithm!r} has no exact engine", ", ".join(EXACT_ALGORITHMS)
        )
    if env not in EXACT_ENVS:
        raise InputError("env", f"{env!r} has no exact engine", ", ".join(EXACT_ENVS))
