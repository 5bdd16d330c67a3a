"""Shared numerics of the exact engine (:mod:`privdtol.engine.exact`): its tolerances, an
accurate blocked cumulative sum, and the product of the other groups' survival factors with
its relative error bound (the prod_(i != j) P(Y_i > y) of the selection integrals, Section 5.3
of Cesari & Colomboni, used by both :mod:`.softmax` and :mod:`.laplace`)."""

from __future__ import annotations

import math

import numpy as np

U = 2.0**-53
# kernel window u in [-A, B] (outside: exact prefix/suffix sums, absolute error 2 e^-A = 4e-35
# per group, far below the values the M-average interpolates); trapezoid step
A_CUT, B_CUT, H_MAX = 80.0, 5.84, 0.4
TAIL, PRUNE, N_DIRECT, SMALL_M, GK_TOL = 1e-22, 1e-40, 64, 400, 1e-13
# Chernoff bound below which a group's law value is expected to lose its relative accuracy
# (measured: values ~0.05 of the bound fall below 10x the error floor of ~1e-28..1e-25, the
# groups' truncated tails, at bounds ~1e-26..1e-23); a prediction only (averaging.py)
VALUED = 1e-20


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
