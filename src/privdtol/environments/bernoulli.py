"""Bernoulli product losses: X_{t,j} ~ Bernoulli(mu_j), independent over j and t.

The product-over-actions model of the COLT open problem (Hu & Mehta 2024) that the paper's
Section 3 contains as a special case.  A window sum of m rounds is Binomial(m, mu_j) per
coordinate, independent over coordinates: the exact law in O(K) per run whatever m.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .base import LossModel


class BernoulliProduct(LossModel):
    name = "bernoulli"
    exact_sums = True
    bernoulli_valued = True

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        return (rng.random((n_runs, n_rounds, self.K)) < self.means).astype(float)

    def window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        return rng.binomial(lengths[:, None], self.means[None, :])  # exact integer counts


def standard_means(K: int, gap: float, mu_best: float | None = None) -> np.ndarray:
    """The standard instance: one best action at ``mu_best`` (default 1/2 - gap/2, so that
    best and others straddle 1/2: maximal variance) and K-1 actions at ``mu_best + gap``."""
    K, gap = _check_K_gap(K, gap)
    if mu_best is None:  # written symmetrically so that e.g. gap 0.2 gives exactly 0.4, 0.6
        mu_best, others = 0.5 - gap / 2, 0.5 + gap / 2
    else:
        others = mu_best + gap
    _check_mu_best(mu_best, gap)
    means = np.full(K, others)
    means[0] = mu_best
    return means


def staircase_means(K: int, gap: float, mu_best: float | None = None) -> np.ndarray:
    """A 'staircase': gaps linearly spaced from ``gap`` (action 2) up to 1 - mu_best
    (action K), so every scale of gap between Delta_min and the largest possible is present."""
    K, gap = _check_K_gap(K, gap)
    if mu_best is None:
        mu_best = 0.5 - gap / 2
    _check_mu_best(mu_best, gap)
    means = np.empty(K)
    means[0] = mu_best
    means[1:] = mu_best + np.linspace(gap, 1.0 - mu_best, K - 1)
    return np.minimum(means, 1.0)


def _check_K_gap(K, gap):
    if int(K) != K or K < 2:
        raise InputError("K", f"got {K}", "integers >= 2")
    if not (0 < gap <= 1):
        raise InputError("gap", f"got {gap}", "0 < gap <= 1")
    return int(K), float(gap)


def _check_mu_best(mu_best, gap):
    if not (0 <= mu_best and mu_best + gap <= 1):
        raise InputError("mu_best", f"got {mu_best} with gap {gap}",
                         "0 <= mu_best <= 1 - gap")
