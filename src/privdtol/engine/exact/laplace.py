"""The report-noisy-min (Laplace) selection law of the exact engine: P(argmin_g (Y_g + Z_g) =
g) for lattice (or atomic) block sums Y_g and Z ~ Laplace(b), by exact exponential recursions
between atoms and Gauss-Kronrod (7, 15) per piece (the rnm_ftnl / wu_wang rules compared with
Cesari & Colomboni's algorithm, Section 6)."""

from __future__ import annotations

import math

import numpy as np

from privdtol.engine.exact.numerics import (
    GK_TOL,
    PRUNE,
    U,
    _c_sum,
    _cumsum,
    _powers,
    _with_best,
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


def _laplace(ys, Pm, db, ns, b, c_rec):
    """Law of argmin_g (Y_g + Z), Z ~ Laplace(b), Y_g with masses Pm (G, N) on atoms ys."""
    from scipy.signal import lfilter  # 0.7 s to import: only the engine's jobs pay it

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
    if lo.size and cl[0] < 0:
        # the left half-line, v = e^((y - y_0)/b) in (0, 1]: with n actions the integrand sits
        # near v ~ 1/n (there every other action's cdf is ~1/n), below the first Gauss-Kronrod
        # node (0.0043) from n ~ 2^8 on, where one piece would see zeros at all 15 nodes and
        # stop with no error; dyadic pieces down to 1/(256 n) put nodes where it sits
        J = math.ceil(math.log2(ns.sum())) + 8
        edges = np.concatenate([[0.0], 2.0 ** -np.arange(J, -1, -1.0)])  # 0, 2^-J, ..., 1/2, 1
        lo, hi = np.concatenate([edges[:-1], lo[1:]]), np.concatenate([edges[1:], hi[1:]])
        cl = np.concatenate([np.full(J + 1, -1), cl[1:]])
        cr = np.concatenate([np.zeros(J + 1, dtype=cr.dtype), cr[1:]])
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
