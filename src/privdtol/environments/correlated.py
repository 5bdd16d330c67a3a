"""Correlated Bernoulli losses: one shared shock per round (paper Section 3 allows arbitrary
dependence among coordinates within a round; only independence across rounds is used).

Each round, with probability ``rho`` the round is *shared*: one U ~ Unif(0,1) drives every
coordinate, X_{t,j} = 1{U < mu_j} (comonotone); otherwise coordinates are independent
Bernoulli(mu_j).  Marginals are Bernoulli(mu_j) in both cases, rounds are i.i.d., and
Cov(X_i, X_j) = rho (min(mu_i, mu_j) - mu_i mu_j).

Exact window sums: the number S of shared rounds is Binomial(m, rho); in the shared rounds
the counts of U falling between consecutive distinct means are Multinomial(S, increments),
and the count below mu_j is their partial sum; the other m - S rounds give Binomial(m - S, mu_j).
"""

from __future__ import annotations

import numpy as np

from privdtol.environments.base import LossModel
from privdtol.errors import InputError


class CorrelatedBernoulli(LossModel):
    name = "correlated"
    #: the loss law, typeset (LaTeX; the report's loss-model table)
    law_tex = (
        r"with probability $\rho$ one $U \sim \mathrm{Unif}(0,1)$ drives every coordinate, "
        r"$X_{t,j} = \mathbf{1}\{U < \mu_j\}$; otherwise $X_{t,j} \sim "
        r"\mathrm{Bernoulli}(\mu_j)$ independently"
    )
    exact_sums = True
    bernoulli_valued = True

    def __init__(self, means, rho: float = 0.5):
        super().__init__(means)
        if not (0 <= rho <= 1):
            raise InputError("rho", f"got {rho}", "0 <= rho <= 1")
        self.rho = float(rho)
        self._levels, self._level_of = np.unique(self.means, return_inverse=True)

    def params(self):
        return {**super().params(), "rho": self.rho}

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        shared = rng.random((n_runs, n_rounds, 1)) < self.rho
        u_shared = rng.random((n_runs, n_rounds, 1))
        u_indep = rng.random((n_runs, n_rounds, self.K))
        u = np.where(shared, u_shared, u_indep)
        return (u < self.means).astype(float)

    def window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        n_shared = rng.binomial(lengths, self.rho)
        increments = np.diff(np.concatenate([[0.0], self._levels]))
        pvals = np.append(increments, max(0.0, 1.0 - self._levels[-1]))
        pvals = pvals / pvals.sum()
        counts = rng.multinomial(n_shared, pvals)  # (n_runs, levels + 1)
        below = np.cumsum(counts[:, :-1], axis=1)  # #U < level
        shared_sums = below[:, self._level_of]
        indep_sums = rng.binomial((lengths - n_shared)[:, None], self.means[None, :])
        return (shared_sums + indep_sums).astype(float)
