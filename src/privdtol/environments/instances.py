"""Instance generators: the means of the generated instances of the grid (Section 3's
stochastic setting; the gap Delta_min is the distance from the best mean to the next one).

- ``standard``: one best action, K - 1 actions ``gap`` above it (the instance of the lower
  bound, Hu et al. 2021);
- ``staircase``: gaps spread linearly from ``gap`` to the largest possible.
"""

from __future__ import annotations

import numpy as np

from privdtol.errors import InputError

INSTANCES = ("standard", "staircase")


def instance_means(
    K: int, gap: float, mu_best: float | None = None, instance: str = "standard"
) -> np.ndarray:
    """Means of a generated instance (:func:`standard_means` or :func:`staircase_means`)."""
    if instance not in INSTANCES:
        raise InputError("instance", f"got {instance!r}", ", ".join(INSTANCES))
    make = standard_means if instance == "standard" else staircase_means
    return make(K, gap, mu_best)


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
    if not (mu_best >= 0 and mu_best + gap <= 1):
        raise InputError("mu_best", f"got {mu_best} with gap {gap}", "0 <= mu_best <= 1 - gap")
