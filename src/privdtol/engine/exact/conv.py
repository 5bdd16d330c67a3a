"""Batched lattice convolutions of many pmf rows with a few kernels, as BLAS matrix products:
the direct sums of :func:`privdtol.engine.exact.softmax._rows_conv` (not an FFT), for all rows
at once instead of one ``np.convolve`` per row, kernel and phase.

Each row (j-lattice, p phases per j) is cut into chunks of L j-values at multiples of L (only
the chunks meeting the row's support); all chunks are stacked into one matrix and multiplied
by the block-Toeplitz matrix T[(l, ph), (k, l')] = K[k, l' - l, ph] (0 outside the kernel),
which gives every chunk's full convolution (length L + E, padded to S L, S = ceil((L+E)/L));
these are added into the outputs block by block (overlap-add: S additions per output).

Rounding: all terms are nonnegative and adding an exact zero is exact (with or without FMA),
so an output is a summation tree of height <= h = p min(L, E + 1) (one chunk's dot product, in
any order) + S (overlap-add) + 1 (the caller's prefix/suffix sum), and its relative error is
<= gamma_h (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Sec. 3.1 and
4.2): :func:`conv_terms`."""

from __future__ import annotations

import math

import numpy as np

#: chunk size L p (j-values x phases; L <= E + 1)
CHUNK = 128


def _chunk(p, E):
    return max(1, min(CHUNK // p, E + 1))


def conv_terms(p, E):
    """h of the module docstring: rounding constant of one output of :func:`batched_conv`."""
    L = _chunk(p, E)
    return p * min(L, E + 1) + math.ceil((L + E) / L) + 1


def toeplitz(Kt):
    """(T, S) of the module docstring for kernels Kt (nk, E + 1, p); T columns (k, s, l)."""
    nk, E, p = Kt.shape[0], Kt.shape[1] - 1, Kt.shape[2]
    L = _chunk(p, E)
    S = math.ceil((L + E) / L)
    T = np.zeros((L, p, nk, S * L))
    idx = np.arange(L)
    for e in range(E + 1):
        T[idx, :, :, idx + e] = Kt[:, e, :].T[None, :, :]
    return T.reshape(L * p, nk * S * L), S


def batched_conv(X, sup, TS, nk, width):
    """out[k, r, a] = sum_(j, ph) X[r, j, ph] Kt[k, a - j, ph] for a < width, shape (nk, R,
    width), a view (X: (R, J, p), row r zero outside j in [sup[r][0], sup[r][1]];
    TS = toeplitz(Kt) for kernels Kt (nk, E + 1, p))."""
    R, J, p = X.shape
    T, S = TS
    L = T.shape[0] // p
    C = -(-max(J, width) // L) + S  # chunks per row, room for the last one's tail
    Xp = np.zeros((R, C * L, p))
    Xp[:, :J] = X
    lo = np.array([s[0] // L for s in sup], dtype=np.int64)
    n = np.array([s[1] // L for s in sup], dtype=np.int64) - lo + 1
    rows = np.repeat(np.arange(R, dtype=np.int64), n)
    blk = rows * C + lo[rows] + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
    Y = (Xp.reshape(R * C, L * p)[blk] @ T).reshape(-1, nk, S, L).transpose(1, 2, 0, 3)
    out = np.zeros((nk, R * C, L))
    first = np.cumsum(n) - n  # row r's chunks are Y's [first[r], first[r] + n[r])
    for s in range(S):  # row r's chunks land on out's chunks r C + lo[r] + s onwards
        for r in range(R):
            at = r * C + lo[r] + s
            out[:, at : at + n[r]] += Y[:, s, first[r] : first[r] + n[r]]
    return out.reshape(nk, R, C * L)[:, :, :width]
