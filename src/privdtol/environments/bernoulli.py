"""Bernoulli product losses: X_{t,j} ~ Bernoulli(mu_j), independent over j and t.

The product-over-actions model of the COLT open problem (Hu & Mehta 2024) that the paper's
Section 3 contains as a special case.  A window sum of m rounds is Binomial(m, mu_j) per
coordinate, independent over coordinates: the exact law in O(K) per run whatever m.
"""

from __future__ import annotations

import numpy as np

from privdtol.environments.base import LossModel


class BernoulliProduct(LossModel):
    name = "bernoulli"
    order = 0
    label = "independent Bernoulli"
    short_label = "indep."
    label_tex = "independent"
    exact_family = "bernoulli"
    #: the loss law, typeset (LaTeX; the report's loss-model table)
    law_tex = r"$X_{t,j} \sim \mathrm{Bernoulli}(\mu_j)$, independent over $j$ and $t$"
    exact_sums = True
    bernoulli_valued = True

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        return (rng.random((n_runs, n_rounds, self.K)) < self.means).astype(float)

    def window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        return rng.binomial(lengths[:, None], self.means[None, :])  # exact integer counts
