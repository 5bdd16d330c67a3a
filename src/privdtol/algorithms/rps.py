"""The randomized-prefix softmax algorithm ("RPS"), Cesari & Colomboni, Section 4.

- dyadic blocks B_r = {2^r, ..., 2^(r+1) - 1}; one action A_r on the whole block; A_0 uniform;
- after block r: M_0 = 1, and M_r ~ Unif{2^(r-1) + 1, ..., 2^r} for r >= 1, independent of
  the data (Section 4);
- A_(r+1) ~ softmax(-eta L_r(M_r)), L_(r,j)(m) the loss of action j over the first m rounds of
  block r;
- eta = min(eps / 2, 1 / 8).

Each selection is 2 eta-DP (Lemma 3), so the whole algorithm is eps-DP (Proposition 1).
Theorem 1: Reg_T <= 1 + 800 log K / Delta_min + 16 log K / eta for every T.
"""

from __future__ import annotations

import numpy as np

from privdtol.algorithms.base import BlockAlgorithm, prefix_range, random_prefix, sample_from
from privdtol.algorithms.declarations import Privacy, SelectionLaw, eta_of, twice_eta
from privdtol.core import bounds

#: below this exponent np.exp returns 0 (or a subnormal < 1e-323) in float64
_EXP_UNDERFLOW = -745.0


def softmax_law(sums: np.ndarray, eta: float) -> np.ndarray:
    """exp(-eta L_j) / sum_i exp(-eta L_i), row-wise and overflow-free.

    Shifting by the row minimum of L makes every exponent <= 0 (no overflow for any T, K,
    eta); the leader's weight is exactly 1 (no underflow of the denominator).  Written in place
    rather than with scipy.special.softmax, which took 4x longer in a benchmark;
    tests/test_algorithms.py checks the two agree.
    """
    x = np.multiply(sums, -eta, dtype=float)
    x -= x.max(axis=1, keepdims=True)
    weights = np.zeros_like(x)
    np.exp(x, out=weights, where=x > _EXP_UNDERFLOW)  # exp of the rest is 0 in float64 anyway
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


class RandomizedPrefixSoftmax(BlockAlgorithm):
    """The paper's algorithm (Section 4); ``eta = min(eps/2, 1/8)``."""

    name = "rps"
    display_name = "RPS (this paper)"
    role = "paper"
    source = "Cesari & Colomboni 2026, Section 4"
    reference = "cesari2026"
    privacy = Privacy("exponential mechanism softmax(-eta L), 2 eta-DP per selection", twice_eta)
    exact_law = SelectionLaw("softmax", eta_of)
    prefix_rule = "random"
    symmetric = True

    @property
    def eta(self) -> float:
        return float(bounds.eta(self.epsilon))

    def law(self, sums, r):
        return softmax_law(sums, self.eta)

    def select(self, rng, sums, r):
        probs = self.law(sums, r)
        return sample_from(rng, probs), probs


__all__ = ["RandomizedPrefixSoftmax", "prefix_range", "random_prefix", "softmax_law"]
