"""The softmax (exponential-mechanism) selection law of the exact engine: E[w_j / sum_i w_i],
w = e^(-eta S), for independent lattice block sums S, as a trapezoid integral over s = log t of
lattice convolutions (Section 4 of Cesari & Colomboni: A_(r+1) ~ softmax(-eta L_r(M_r)))."""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from privdtol.engine.exact.conv import batched_conv, conv_terms, toeplitz
from privdtol.engine.exact.numerics import (
    A_CUT,
    B_CUT,
    H_MAX,
    _c_sum,
    _cumsum,
    _powers,
    _with_best,
)
from privdtol.engine.exact.tail import tail_start, tail_sums, tail_terms


def _trap_rel(h):
    a = np.linspace(0.01, np.pi / 2 - 1e-4, 4000)
    return float(np.min(2 / (np.cos(a) * np.expm1(2 * np.pi * a / h))))


def _kernels(u):
    eu = np.exp(u)
    G = np.exp(-eu)
    K = np.stack([G, -np.expm1(-eu), eu * G])  # G, 1 - G, g = e^u G
    return np.where(K < 1e-140, 0.0, K)  # (u > B_CUT: < 1e-140, dropped)


#: largest lattice width convolved by one dense Toeplitz product (wider: banded, per row support)
DENSE_N = 600

#: largest softmax kernel (lattice points, about 8 bytes each and a few copies): eta >= 2^-19
MAX_KERNEL = 5e7


def kernel_points(eta: float) -> int:
    """Lattice points of the softmax kernel at temperature ``eta`` (at most :data:`MAX_KERNEL`;
    the config and the CLI refuse a smaller eta up front, :mod:`privdtol.pipeline.limits`)."""
    return math.ceil(B_CUT / eta) - math.floor(-A_CUT / eta)


#: largest polyphase p convolved by :func:`.conv.batched_conv` (all rows in one product);
#: beyond it each row is convolved on its own, which is faster there (docs/performance.md)
BATCH_P = 16


#: shortest kernel (lattice points) of p == 1 convolved by one block-Toeplitz product
#: (shorter: per-row np.convolve is as fast)
MIN_BATCH_KERNEL = 64


class Grid(NamedTuple):
    """A temperature's node layout and kernels (:func:`_grid`)."""

    p: int  # nodes every p lattice points (p > 1: polyphase)
    Q: int  # node offsets q / Q per lattice point (p == 1)
    K: np.ndarray  # the whole kernel window u in [-A, B]
    h: float  # trapezoid step in s = log t
    tr: float  # the trapezoid rule's relative error
    dl: int  # lattice index d of the kernel's first point
    ec: int  # p > 1: kernel indices < ec are the tail u <= -C_TAIL (:mod:`.tail`)
    TS: tuple | None  # block-Toeplitz matrix of the kernel (from ec on) for conv.batched_conv


@lru_cache(maxsize=16)
def _grid(eta) -> Grid:
    """Node layout for the trapezoid step h = eta p / Q <= H_MAX, and its kernels: p == 1:
    nodes n + q/Q, K[q, t, d - dl]; p > 1: nodes every p lattice points, K[t, e, r] at
    d = dl + p e - r (polyphase in the residue r of the lattice index), whose indices e < ec
    are summed by :mod:`.tail`'s recursions on wide lattices.  The block-Toeplitz matrix TS of
    :func:`.conv.batched_conv` (kernel index t Q + q) is that of the direct kernel: the whole
    one for p == 1 (>= :data:`MIN_BATCH_KERNEL` points; shorter: per-row np.convolve), e >= ec
    for 1 < p <= :data:`BATCH_P` (larger p: one product per row, faster there)."""
    p = max(1, math.floor(H_MAX / eta + 1e-12))
    Q = max(1, math.ceil(eta / H_MAX - 1e-12))
    dl, dh = math.floor(-A_CUT / eta), math.ceil(B_CUT / eta)
    if kernel_points(eta) > MAX_KERNEL:
        raise ValueError(
            f"eta = {eta:.3g} is too small for the exact engine: its softmax kernel needs "
            f"{dh - dl:.3g} lattice points (at most {MAX_KERNEL:.0e}); compute this cell by "
            "Monte Carlo (exact: off)"
        )
    if p == 1:
        d = np.arange(dl, dh + 1)
        K = np.stack([_kernels(eta * (d + q / Q)) for q in range(Q)])
    else:
        E = math.ceil((dh - dl) / p) + 1
        K = _kernels(eta * (dl + p * np.arange(E + 1)[:, None] - np.arange(p)[None, :]))
    h = eta * p / Q
    if p == 1:
        ec, Kt = 0, K.transpose(1, 0, 2)[..., None].reshape(3 * Q, -1, 1)
        TS = toeplitz(Kt) if Kt.shape[1] >= MIN_BATCH_KERNEL else None
    else:
        ec = tail_start(eta, dl, p)
        TS = toeplitz(K[:, ec:]) if p <= BATCH_P else None
    return Grid(p, Q, K, h, _trap_rel(h), dl, ec, TS)


#: largest dense Toeplitz matrix kept per temperature (bytes); a larger one is built per call
DENSE_CACHE_BYTES = 48e6


@lru_cache(maxsize=4)
def _dense_full(eta):
    """The dense Toeplitz matrices of :func:`_rows_conv` for DENSE_N lattice points, built
    once per temperature (or None when larger than :data:`DENSE_CACHE_BYTES`): the matrix for
    N <= DENSE_N points is its leading (N rows, first columns) block, a view, since row k of
    either holds the kernel at columns k + d (p == 1) or k // p + e (polyphase)."""
    p, Q, K = _grid(eta)[:3]
    N = DENSE_N
    if p == 1:
        W = K.shape[2]
        if 8.0 * Q * 3 * N * (N + W - 1) > DENSE_CACHE_BYTES:
            return None
        return _dense_matrix(K, p, N, N + W - 1)
    E = K.shape[1] - 1
    return _dense_matrix(K, p, N, -(-N // p) + E)


def _dense_matrix(K, p, N, width):
    """p == 1: T[q, t, k, k + d] = K[q, t, d]; else T[t, k, k // p + e] = K[t, e, k % p]."""
    k = np.arange(N)[:, None]
    if p == 1:
        T = np.zeros((K.shape[0], 3, N, width))
        for q in range(K.shape[0]):
            T[q][:, k, k + np.arange(K.shape[2])] = K[q][:, None, :]
        return T
    T = np.zeros((3, N, width))
    T[:, k, k // p + np.arange(K.shape[1])] = K[:, :, k[:, 0] % p].transpose(0, 2, 1)
    return T


def _tails(X):
    """(CSp, SSp) of the rows of X (nonnegative): CSp[:, i] = sum_(k < i) X[:, k] (exactly 1
    from i = N + 1), SSp[:, i] = sum_(k >= i) X[:, k] (0 at i = N); relative error of each
    <= _c_sum(N) U (:func:`.numerics._cumsum`)."""
    R = X.shape[0]
    CSp = np.hstack([np.zeros((R, 1)), _cumsum(X), np.ones((R, 1))])
    return CSp, np.hstack([_cumsum(X[:, ::-1])[:, ::-1], np.zeros((R, 1))])


def _rows_conv(B, eta, sup=None):
    """phi = E[exp(-t w)], om = 1 - phi, psi = E[t w exp(-t w)] (w = e^(-eta S)) at all nodes,
    for each row of B (pmfs on one lattice, row r supported on sup[r] = (lo, hi)); kernel terms
    with u < -A (G ~ 1) and u > B (G ~ 0) are exact suffix/prefix sums; for p > 1 on a lattice
    wider than DENSE_N, those with u <= -C_TAIL are :mod:`.tail`'s recursions. Returns (phi,
    om, psi, node positions in lattice units from B's first column, rounding constant, h,
    trapezoid)."""
    R, N = B.shape
    g = _grid(eta)
    p, Q, K, TS = g.p, g.Q, g.K, g.TS
    wide = N > DENSE_N
    sup = [(0, N - 1)] * R if sup is None or N <= DENSE_N else sup
    ec = g.ec if wide else 0  # p > 1: kernel indices < ec are the tail's recursions
    if p == 1:  # direct convolutions, Q node offsets (the kernel is short: no tail)
        W = K.shape[2]
        n_out, nj = N + W - 1, N
        out = np.zeros((3, R, Q, n_out))
        if not wide:  # one Toeplitz GEMM per kernel
            full = _dense_full(eta)
            for q in range(Q):
                T = _dense_matrix(K[q : q + 1], p, N, N + W - 1)[0] if full is None else full[q]
                out[:, :, q] = B @ T[:, :N, :n_out]
            nconv = W
        elif TS is None:
            for q, (r, (lo, hi)), t in itertools.product(range(Q), enumerate(sup), range(3)):
                out[t, r, q, lo : hi + W] = np.convolve(B[r, lo : hi + 1], K[q, t])
            nconv = W
        else:  # all rows at once: chunked block-Toeplitz GEMM
            y = batched_conv(B[:, :, None], sup, TS, 3 * Q, n_out)
            out[:] = y.reshape(3, Q, R, -1).transpose(0, 2, 1, 3)
            nconv = max(W, conv_terms(1, W - 1))
        E, sums = W - 1, B
        xs = (g.dl + np.arange(n_out)[None, :] + np.arange(Q)[:, None] / Q).ravel()
    else:  # polyphase: out[a] = sum_(j,r) B[pj+r] K[a-j, r]
        E = K.shape[1] - 1
        nj = -(-N // p)
        n_out = nj + E
        Bp = np.zeros((R, nj * p))
        Bp[:, :N] = B
        X = Bp.reshape(R, nj, p)
        out = np.zeros((3, R, 1, n_out))
        sj = [(lo // p, hi // p) for lo, hi in sup]
        if not wide:
            out[:, :, 0] = B @ _dense_full(eta)[:, :N, :n_out]
            nconv = p + E + 1
        elif TS is not None:  # all rows at once: chunked block-Toeplitz GEMM
            out[:, :, 0, ec:] = batched_conv(X, sj, TS, 3, n_out - ec)
            nconv = max(p + E - ec + 1, conv_terms(p, E - ec))
        else:
            _polyphase_rows(out, X, sj, K[:, ec:], ec)
            nconv = p + E - ec + 1
        sums = _block_sums(X)  # the tails at the nodes only (multiples of p): block sums
        xs = g.dl + p * np.arange(n_out)
    # beyond the kernel window: suffix sums (G = 1) from the tail's start, prefix sums (G = 0)
    CSp, SSp = _tails(sums)
    _add_shifted(out[0], SSp, 1 - ec)
    _add_shifted(out[1], CSp, -E)
    c_sum = (p if p > 1 else 0) + _c_sum(nj)  # the suffix/prefix sums (of blocks of p)
    c_r = nconv + c_sum + 8
    if ec:  # three more additions into the direct sums; the tail's own constant
        c_r = max(nconv + 3, tail_terms(p, ec, eta, g.dl)) + c_sum + 8
        om_t, psi_t = tail_sums(X, eta, g.dl, ec, n_out)
        out[0, :, 0] -= om_t
        out[1, :, 0] += om_t
        out[2, :, 0] += psi_t
    return (
        out[0].reshape(R, -1),
        out[1].reshape(R, -1),
        out[2].reshape(R, -1),
        xs,
        c_r,
        g.h,
        g.tr,
    )


def _block_sums(X):
    """X.sum(axis=-1), bit for bit: for fewer than 8 terms numpy adds them in order, which
    p - 1 whole-array additions do about 6 times faster than its reduction over a short axis."""
    if X.shape[-1] >= 8:  # numpy's pairwise order: leave it to numpy
        return X.sum(axis=-1)
    out = X[..., 0].copy()
    for r in range(1, X.shape[-1]):
        out += X[..., r]
    return out


def _add_shifted(dst, M, shift):
    """dst[:, q, a] += M[:, clip(a + shift, 0, W - 1)] for every a < dst.shape[2] and q (M:
    (R, W)), by three slices instead of a gather over millions of nodes (the same additions)."""
    n, W = dst.shape[2], M.shape[1]
    a0 = min(max(-shift, 0), n)  # a < a0: column 0
    a1 = min(max(W - 1 - shift, a0), n)  # a0 <= a < a1: column a + shift; beyond: W - 1
    dst[:, :, :a0] += M[:, None, :1]
    dst[:, :, a0:a1] += M[:, None, a0 + shift : a1 + shift]
    dst[:, :, a1:] += M[:, None, W - 1 :]


def _polyphase_rows(out, X, sj, K, ec):
    """out[:, r, 0, a] += sum_(j, ph) X[r, j, ph] K[:, a - j - ec, ph], row by row over each
    row's blocks sj[r] = (jl, jh): one product with the kernel, its rows skewed by e, summed."""
    E, p = K.shape[1] - 1, X.shape[2]
    for r, (jl, jh) in enumerate(sj):
        n = jh - jl + 1  # out[jl + ec + e + j] += V[e, j]
        W = np.zeros((3, E + 1, n + E + 1))
        W[:, :, :n] = (K.reshape(-1, p) @ X[r, jl : jh + 1].T).reshape(3, E + 1, n)
        W = W.reshape(3, -1)[:, : (E + 1) * (n + E)].reshape(3, E + 1, n + E)
        out[:, r, 0, jl + ec : jh + ec + E + 1] += W.sum(axis=1)


def _softmax(B, db, ns, eta, sup=None):
    """Law of argmin_g (eta S_g + log E) per group for pmfs B (..., G, N) (group g supported
    on sup[g] if given): (P, err). Nodes where every psi_g (g >= 1) or phi_0 vanishes (u beyond
    the kernel window) are skipped: their terms are already in the e^-A and G(B) bounds."""
    shp = B.shape
    phi, om, psi, xs, c_r, h, tr = _rows_conv(B.reshape(-1, shp[-1]), eta, sup)
    if sup is not None:
        dl, dh = -A_CUT / eta - 2, B_CUT / eta + 2
        lo, hi = np.array(sup[1:], dtype=float).T  # the union of the windows, on sorted xs
        order = np.argsort(xs, kind="stable")  # (Q > 1: xs is Q ascending runs)
        cover = np.zeros(xs.size + 1)
        np.add.at(cover, np.searchsorted(xs[order], lo + dl), 1)
        np.add.at(cover, np.searchsorted(xs[order], hi + dh, side="right"), -1)
        keep = np.empty(xs.size, bool)
        keep[order] = np.cumsum(cover[:-1]) > 0
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
