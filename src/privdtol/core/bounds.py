"""Bound shapes the measured regret is compared with.

- :func:`theorem1`: Theorem 1, Reg_T <= 1 + 800 log K / Delta_min + 16 log K / eta with
  eta = min(eps/2, 1/8) (equation (1));
- :func:`corollary`: its simplified form 1000 (log K / Delta_min + log K / eps) (equation (2));
- :func:`rate`: the optimal rate log K / Delta_min + log K / eps (Corollary 1);
- :func:`lower_shape`: the lower-bound shape log K / min(Delta_min, eps) of Hu et al. 2021;
- :func:`wu_wang_shape`: log K / Delta_min + log^2 K / eps, the upper-bound shape of Wu & Wang
  2026 that the paper improves on (Section 6).

All accept numpy arrays and broadcast.  Natural logarithms throughout, as in the paper.
"""

from __future__ import annotations

import numpy as np


def eta(epsilon):
    """Inverse temperature of the paper's algorithm: min(eps/2, 1/8) (Section 4)."""
    return np.minimum(np.asarray(epsilon, dtype=float) / 2, 1 / 8)


def theorem1(K, gap, epsilon):
    """Right-hand side of Theorem 1, equation (1)."""
    logk = np.log(np.asarray(K, dtype=float))
    return 1 + 800 * logk / np.asarray(gap, dtype=float) + 16 * logk / eta(epsilon)


def corollary(K, gap, epsilon):
    """Right-hand side of equation (2): 1000 (log K / gap + log K / eps)."""
    return 1000 * rate(K, gap, epsilon)


def rate(K, gap, epsilon):
    """The optimal rate log K / gap + log K / eps (Corollary 1)."""
    logk = np.log(np.asarray(K, dtype=float))
    return logk / np.asarray(gap, dtype=float) + logk / np.asarray(epsilon, dtype=float)


def lower_shape(K, gap, epsilon):
    """log K / min(gap, eps): the lower-bound shape of Hu et al. 2021 (constants unknown)."""
    return np.log(np.asarray(K, dtype=float)) / np.minimum(gap, epsilon)


def wu_wang_shape(K, gap, epsilon):
    """log K / gap + log^2 K / eps: Wu & Wang's upper-bound shape (constants unknown)."""
    logk = np.log(np.asarray(K, dtype=float))
    return logk / np.asarray(gap, dtype=float) + logk**2 / np.asarray(epsilon, dtype=float)
