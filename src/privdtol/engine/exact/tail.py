"""The far tail u <= -C_TAIL of the softmax kernels by first-order recursions instead of direct
sums: the part of :func:`privdtol.engine.exact.softmax._rows_conv` that on a wide lattice
covers about 80% of the kernel window u in [-A, B] (the law of Section 4 of Cesari &
Colomboni, A_(r+1) ~ softmax(-eta L_r(M_r)), as E[w_j / sum_i w_i], w = e^(-eta S)).

On the tail x = e^u <= e^-C_TAIL and the three kernels are alternating series in x whose terms
decrease, so that each truncation after x^3 leaves a remainder between 0 and the next term:

    1 - G = x - x^2/2 + x^3/6 - R_om,  0 <= R_om <= x^4/24   (G = exp(-x))
    g = x G = x - x^2 + x^3/2 - R_psi,  0 <= R_psi <= x^4/6

relative to the value (>= x (1 - x)): at most e^(3 u_max) / (6 (1 - e^u_max)) <= 3.9e-17 < U/2
for u_max <= -12.  So the tail sums are combinations of Z_k = sum_j X_j e^(k u) (k = 1, 2, 3),
and since every u grows by eta p from one node to the next, Z_k obeys the backward recursion
Z_k[a] = alpha_k Z_k[a + 1] + v_k[a] (alpha_k = e^(-k eta p), v_k[a] the block of p lattice
points that enters the tail at node a), run by ``scipy.signal.lfilter``: O(1) per node instead
of one term per kernel point.  phi's tail is the tail's mass minus om's, with om's at most
e^-C_TAIL of it (no cancellation).

Rounding (all terms nonnegative, first order in U; :func:`tail_terms`): a term of the tail
window (u >= -A) has passed at most e_c recursion steps, each of two roundings and alpha_k's own
error (its argument k eta p rounded twice, then exp: (2 k eta p + 1) U); it entered as a p-term
dot product (p U) with a weight exp(arg), arg = k eta (index) rounded twice (2 abs(arg) + 1) U;
the series' three terms (4 U) and their truncation (< U/2, counted as 1) follow, and three
additions into the outputs.
Terms beyond the window (u < -A, dropped by the direct sums) are kept: their larger relative
error is on values below e^-A of the mass, inside the absolute 2 e^-A the engine charges.
"""

from __future__ import annotations

import math

import numpy as np

#: the tail is u <= -C_TAIL (x = e^u <= 6.1e-6); its truncated series are exact to < U/2
C_TAIL = 12.0


def tail_start(eta: float, dl: int, p: int) -> int:
    """e_c: the kernel indices e < e_c are on the tail, u = eta (dl + p e - r) <= -C_TAIL for
    every phase r >= 0 (polyphase layout of :func:`privdtol.engine.exact.softmax._grid`), up
    to the rounding of the quotient below: the truncation stays < U/2 for u < -11.87."""
    return max(0, math.floor((-C_TAIL / eta - dl) / p) + 1)


def tail_terms(p: int, ec: int, eta: float, dl: int) -> int:
    """Rounding constant (in units of U) of a tail sum of :func:`tail_sums` once added into the
    softmax outputs, by the module docstring's count with k = 3: p + (2 abs(arg) + 1) + e_c
    (2 + 6 eta p + 1) + 4 + 1 + 3, abs(arg) = 3 eta abs(dl + p (e_c - 1) - (p - 1)) the largest
    weight's argument."""
    arg = 3 * eta * abs(dl + p * (ec - 1) - (p - 1))
    return math.ceil(p + 2 * arg + 1 + ec * (3 + 6 * eta * p) + 8)


def tail_sums(X: np.ndarray, eta: float, dl: int, ec: int, n_out: int):
    """(om_tail, psi_tail), each (R, n_out): at node a, the sums of X[j, r] (1 - G)(u) and
    X[j, r] g(u) over the blocks j >= a - e_c + 1 (kernel indices e = a - j < e_c: the tail
    and beyond), u = eta (dl + p (a - j) - r), for rows X (R, nj, p) with lattice index
    p j + r.  Needs 1 <= e_c <= n_out - nj + 1."""
    from scipy.signal import lfilter  # 0.7 s to import: only the engine's jobs pay it

    R, nj, p = X.shape
    if not 1 <= ec <= n_out - nj + 1:
        raise ValueError(f"tail start e_c = {ec} outside [1, {n_out - nj + 1}]")
    k = np.arange(1.0, 4.0)[:, None]
    w = np.exp(k * (eta * (dl + p * (ec - 1) - np.arange(p)))[None, :])  # (3, p)
    # reversed node order b = n_out - 1 - a (the recursion runs towards smaller a): block j
    # enters the tail at node a = e_c - 1 + j, b = n_out - e_c - j
    v = np.zeros((3, R, n_out))
    lo = n_out - ec - nj + 1
    blocks = (X.reshape(R * nj, p) @ w.T).reshape(R, nj, 3)
    v[:, :, lo : lo + nj] = blocks[:, ::-1].transpose(2, 0, 1)
    Z1, Z2, Z3 = (
        lfilter([1.0], [1.0, -math.exp(-(i + 1) * eta * p)], v[i], axis=1) for i in range(3)
    )
    om = Z2 * -0.5
    om += Z1
    om += Z3 / 6
    psi = Z1 - Z2
    psi += Z3 * 0.5
    return om[:, ::-1], psi[:, ::-1]
