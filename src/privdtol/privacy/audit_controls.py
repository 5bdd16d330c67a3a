"""Deliberately broken variants of the paper's algorithm, kept ONLY for the privacy audit.

They are the audit's negative controls: an audit that cannot flag them is not evidence of
anything.  Neither is in :data:`privdtol.algorithms.ALGORITHMS` (no experiment, CLI
``simulate`` call or config can select them by accident); they live in :data:`AUDIT_ONLY`, which
only :mod:`privdtol.privacy` and ``privdtol audit`` read.

- ``rps_eta_eps``: eta = eps, with neither the 1/2 factor nor the 1/8 cap (instead of
  eta = min(eps/2, 1/8)).  By Lemma 3 each selection is 2 eta = 2 eps-DP, and that bound is
  essentially attained (a vector flipping the runner-up's and everyone else's losses when one
  action has a large lead), so it is *not* eps-DP.
- ``rps_data_prefix``: the prefix length is not drawn independently of the data but chosen as
  the m in the support {2^(r-1)+1, ..., 2^r} of M_r with the largest *leader margin*
  (second-smallest minus smallest L_(r, j)(m)); ties go to the smallest such m.  Lemma 3 needs
  the law of N to be data-independent; here changing one vector can move the chosen prefix, and
  the two softmax laws then compare cumulative losses over different windows, so the ratio can
  be as large as exp(2 eta (1 + 2^(r-1) - 1)).  For r <= 1 the support has one point and the
  control coincides with ``rps``; it is caught only from blocks of length 8 (r = 3) on, and
  at eps >= 2 only from longer blocks.
"""

from __future__ import annotations

import numpy as np

from privdtol.algorithms.base import BlockAlgorithm
from privdtol.algorithms.rps import RandomizedPrefixSoftmax, prefix_range


def prefix_support(r: int) -> np.ndarray:
    """Support of M_r: {1} for r = 0, else {2^(r-1) + 1, ..., 2^r} (Section 4), as an array
    (:func:`privdtol.algorithms.rps.prefix_range` gives its ends)."""
    lo, hi = prefix_range(r)
    return np.arange(lo, hi + 1, dtype=np.int64)


def leader_margin(sums: np.ndarray) -> np.ndarray:
    """Second-smallest minus smallest cumulative loss, along the last axis."""
    part = np.partition(np.asarray(sums, dtype=float), 1, axis=-1)
    return part[..., 1] - part[..., 0]


def data_chosen_prefix(cum: np.ndarray, r: int) -> np.ndarray:
    """The prefix of ``rps_data_prefix``: argmax over m in supp(M_r) of the leader margin.

    ``cum`` holds the block's prefix sums, shape (..., n + 1, K) with cum[..., m, :] = L(m).
    Returns the chosen m for every leading index (first maximiser on ties).
    """
    support = prefix_support(r)
    margins = leader_margin(cum[..., support, :])  # (..., |support|)
    return support[np.argmax(margins, axis=-1)]


class EtaEqualsEps(RandomizedPrefixSoftmax):
    """NEGATIVE CONTROL (audit only): RPS with eta = eps, a 2 eps-DP mechanism."""

    name = "rps_eta_eps"
    role = "control"
    reference = None
    source = "negative control: RPS with eta = eps (no 1/2 factor, no 1/8 cap); NOT eps-DP"

    @property
    def eta(self) -> float:
        return self.epsilon


class DataDependentPrefix(RandomizedPrefixSoftmax):
    """NEGATIVE CONTROL (audit only): RPS whose prefix length maximises the leader margin.

    ``prefix_lengths`` needs ``sums_for`` (a callable mapping an array of prefix lengths to the
    (n_runs, K) window sums); the simulation engine never passes it, so this class cannot be
    run by the regret experiments even if it were registered.  The audits use
    :func:`data_chosen_prefix` on explicit block data instead.
    """

    name = "rps_data_prefix"
    role = "control"
    reference = None
    source = "negative control: RPS with a data-chosen prefix (max leader margin); NOT eps-DP"

    def prefix_lengths(self, rng, r, n_runs, sums_for=None):
        if sums_for is None:
            raise RuntimeError(
                "rps_data_prefix is an audit-only negative control: its prefix "
                "depends on the data (pass sums_for), see privdtol.privacy"
            )
        support = prefix_support(r)
        margins = np.column_stack([leader_margin(sums_for(np.full(n_runs, m))) for m in support])
        return support[np.argmax(margins, axis=1)]


#: the negative controls, by name; deliberately NOT merged into ALGORITHMS
AUDIT_ONLY: dict[str, type[BlockAlgorithm]] = {
    cls.name: cls for cls in (EtaEqualsEps, DataDependentPrefix)
}

__all__ = [
    "AUDIT_ONLY",
    "DataDependentPrefix",
    "EtaEqualsEps",
    "data_chosen_prefix",
    "leader_margin",
    "prefix_support",
]
