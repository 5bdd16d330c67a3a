"""Ablations of the paper's algorithm (Section 4), each changing one ingredient.

- ``rps_full_prefix``: the exponential mechanism reads the whole previous block (M_r = 2^r)
  instead of a data-independent random prefix; still 2 eta-DP per selection (Lemma 3 with N
  constant), so eps-DP, but the randomized-prefix clock of Lemma 4 no longer applies.
- ``rps_uncapped``: eta = eps / 2 without the 1/8 cap; each selection is 2 eta = eps-DP, so
  still eps-DP, but Theorem 1's analysis (which needs eta <= 1/8) does not cover it.
"""

from __future__ import annotations

from privdtol.algorithms.rps import RandomizedPrefixSoftmax


class FullPrefixSoftmax(RandomizedPrefixSoftmax):
    name = "rps_full_prefix"
    display_name = "RPS, full prefix"
    role = "ablation"
    source = "ablation of Section 4: M_r = 2^r"
    reference = None
    prefix_rule = "full"


class UncappedSoftmax(RandomizedPrefixSoftmax):
    name = "rps_uncapped"
    display_name = "RPS, uncapped η"
    role = "ablation"
    reference = None
    source = "ablation of Section 4: eta = eps/2, no 1/8 cap"

    @property
    def eta(self) -> float:
        return self.epsilon / 2
