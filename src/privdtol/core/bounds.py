"""Bound shapes the measured regret is compared with.

- :func:`theorem1`: Theorem 1, Reg_T <= 1 + 800 log K / Delta_min + 16 log K / eta with
  eta = min(eps/2, 1/8) (equation (1));
- :func:`corollary`: its simplified form 1000 (log K / Delta_min + log K / eps) (equation (2));
- :func:`rate`: the optimal rate log K / Delta_min + log K / eps (Corollary 1);
- :func:`lower_shape`: the lower-bound shape log K / min(Delta_min, eps) of Hu et al. 2021;
- :func:`wu_wang_shape`: log K / Delta_min + log^2 K / eps, the upper-bound shape of Wu & Wang
  2026 that the paper improves on (Section 6).

The steps of its proof (Section 5.3-5.4), each the right-hand side of one inequality:

- :func:`lemma4`: Lemma 4, Reg_T <= 1 + 4 sum_(m>=1) F_m;
- :func:`lemma5`: Lemma 5, sum_(m>=1) F_m <= 200 log K / Delta_min + 4 log K / eta (eta <= 1/8);
- :func:`eq4`: eq. (4), E[P_(m,j)] <= 2 exp(-m Delta_j^2 / 8) for a small-gap action;
- :func:`group_bound`: the bound (32 log(#H_l + 1) + 18) / (2^(l-1) Delta_min) on the dyadic
  group H_l of small-gap actions; :func:`eq5_groups` its sum (64 log(K + 1) + 36) / Delta_min;
- :func:`eq5`: eq. (5), the small-gap part <= 200 log K / Delta_min;
- :func:`eq6`: eq. (6), the large-gap part <= sum_(m>=0) E[V_m] <= 4 log K / eta;
  :func:`drift` the potential's own bound 4 log Z_0 / eta (log Z_0 <= log K);
- :func:`small_gap`: the split of eq. (3), Delta_j <= 4 eta.

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
    gap, epsilon = (np.asarray(v, dtype=float) for v in (gap, epsilon))
    return np.log(np.asarray(K, dtype=float)) / np.minimum(gap, epsilon)


def wu_wang_shape(K, gap, epsilon):
    """log K / gap + log^2 K / eps: Wu & Wang's upper-bound shape (constants unknown)."""
    logk = np.log(np.asarray(K, dtype=float))
    return logk / np.asarray(gap, dtype=float) + logk**2 / np.asarray(epsilon, dtype=float)


#: the split of eq. (3): an action is small-gap when Delta_j <= SPLIT * eta
SPLIT = 4


def small_gap(delta, eta):
    """Whether each action is small-gap in the split (3) of Lemma 5's proof: Delta_j <= 4 eta."""
    return np.asarray(delta, dtype=float) <= SPLIT * np.asarray(eta, dtype=float)


def lemma4(sum_f):
    """Right-hand side of Lemma 4: 1 + 4 sum_(m>=1) F_m."""
    return 1 + 4 * np.asarray(sum_f, dtype=float)


def lemma5(K, gap, eta):
    """Right-hand side of Lemma 5: 200 log K / Delta_min + 4 log K / eta (for eta <= 1/8)."""
    return eq5(K, gap) + eq6(K, eta)


def eq4(m, delta):
    """Right-hand side of eq. (4): 2 exp(-m Delta_j^2 / 8)."""
    return 2 * np.exp(-np.asarray(m, dtype=float) * np.asarray(delta, dtype=float) ** 2 / 8)


def group_bound(size, level, gap):
    """The bound on sum_m E[sum_(j in H_l) Delta_j P_(m,j)] of Lemma 5's proof:
    (32 log(#H_l + 1) + 18) / (2^(l-1) Delta_min), for the dyadic group
    H_l = {j : 2^(l-1) Delta_min <= Delta_j < 2^l Delta_min, Delta_j <= 4 eta}."""
    size = np.asarray(size, dtype=float)
    scale = np.exp2(np.asarray(level, dtype=float) - 1) * np.asarray(gap, dtype=float)
    return (32 * np.log(size + 1) + 18) / scale


def eq5_groups(K, gap):
    """The sum of the group bounds over l >= 1, as Lemma 5's proof bounds it before eq. (5):
    (64 log(K + 1) + 36) / Delta_min."""
    return (64 * np.log(np.asarray(K, dtype=float) + 1) + 36) / np.asarray(gap, dtype=float)


def eq5(K, gap):
    """Right-hand side of eq. (5): 200 log K / Delta_min."""
    return 200 * np.log(np.asarray(K, dtype=float)) / np.asarray(gap, dtype=float)


def eq6(K, eta):
    """Right-hand side of eq. (6): 4 log K / eta."""
    return 4 * np.log(np.asarray(K, dtype=float)) / np.asarray(eta, dtype=float)


def drift(n_large, eta):
    """What the potential argument of eq. (6) proves before using Z_0 <= K:
    sum_(m>=0) E[V_m] <= 4 log Z_0 / eta, Z_0 = 1 + #(large-gap actions)."""
    return 4 * np.log1p(np.asarray(n_large, dtype=float)) / np.asarray(eta, dtype=float)
