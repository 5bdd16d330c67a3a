"""Correlated Bernoulli losses: one shared shock per round (paper Section 3 allows arbitrary
dependence among coordinates within a round; only independence across rounds is used).

Each round, with probability ``|rho|`` the round is *shared*: one U ~ Unif(0,1) drives every
coordinate; otherwise coordinates are independent Bernoulli(mu_j).  For ``rho >= 0`` a shared
round is comonotone, X_{t,j} = 1{U < mu_j} for every j; for ``rho < 0`` it is antithetic between
the best action and the others: X_{t,1} = 1{U < mu_1} and X_{t,j} = 1{1 - U < mu_j} (j != 1),
so that the best action tends to lose when the others win (negative dependence, which makes
X_j - X_1 more variable: the dependence that can hurt).  Marginals are Bernoulli(mu_j) in every
case and rounds are i.i.d.; Cov(X_i, X_j) = rho (min(mu_i, mu_j) - mu_i mu_j) for rho >= 0 and,
for rho < 0, Cov(X_1, X_j) = ``|rho|`` (max(0, mu_1 + mu_j - 1) - mu_1 mu_j) (negative: -mu_1 mu_j
on the standard instance, where mu_1 + mu_j = 1).

Exact window sums: the number S of shared rounds is Binomial(m, ``|rho|``); in the shared rounds the
counts of U falling between consecutive breakpoints (the means, or for rho < 0 mu_1 and the
1 - mu_j) are Multinomial(S, increments), and each coordinate's count is the sum over the
intervals where it is 1; the other m - S rounds give Binomial(m - S, mu_j).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from privdtol.environments.base import LossModel
from privdtol.errors import InputError

#: the shared-shock probability when none is given (the CLI's ``--rho`` and the config
#: schema's experiment default read it: the one place it is written)
DEFAULT_RHO = 0.5


class CorrelatedBernoulli(LossModel):
    name = "correlated"
    order = 1
    label = "correlated Bernoulli"
    short_label = "corr."
    label_tex = "correlated"
    parameters: ClassVar[dict[str, str]] = {"rho": "ρ"}
    #: the loss law, typeset (LaTeX; the report's loss-model table)
    law_tex = (
        r"with probability $|\rho|$ one $U \sim \mathrm{Unif}(0,1)$ drives every coordinate, "
        r"$X_{t,j} = \mathbf{1}\{U < \mu_j\}$ ($\rho \ge 0$), or $X_{t,1} = \mathbf{1}\{U < "
        r"\mu_1\}$ and $X_{t,j} = \mathbf{1}\{1 - U < \mu_j\}$, $j \ne 1$ ($\rho < 0$: best "
        r"action against the others); otherwise $X_{t,j} \sim \mathrm{Bernoulli}(\mu_j)$ "
        r"independently"
    )
    exact_sums = True
    bernoulli_valued = True

    def __init__(self, means, rho: float = DEFAULT_RHO):
        super().__init__(means)
        if not (-1 <= rho <= 1):
            raise InputError("rho", f"got {rho}", "-1 <= rho <= 1")
        self.rho = float(rho)
        # coordinate j is 1 on [low_j, high_j) of U: [0, mu_j), or [1 - mu_j, 1) antithetic
        low = np.zeros(self.K)
        high = self.means.copy()
        if self.rho < 0:
            others = np.arange(self.K) != self.best
            low[others] = 1 - self.means[others]
            high[others] = 1.0
        self._low, self._high = low, high
        self._breaks = np.unique(np.concatenate([[0.0, 1.0], low, high]))
        mid = (self._breaks[:-1] + self._breaks[1:]) / 2
        # (intervals, K): 1 where coordinate j is 1 on the interval
        self._on = ((mid[:, None] >= low[None, :]) & (mid[:, None] < high[None, :])).astype(
            np.int64
        )

    def params(self):
        return {**super().params(), "rho": self.rho}

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        shared = rng.random((n_runs, n_rounds, 1)) < abs(self.rho)
        u_shared = rng.random((n_runs, n_rounds, 1))
        u_indep = rng.random((n_runs, n_rounds, self.K))
        x_shared = (u_shared >= self._low) & (u_shared < self._high)
        return np.where(shared, x_shared, u_indep < self.means).astype(float)

    def window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        n_shared = rng.binomial(lengths, abs(self.rho))
        pvals = np.diff(self._breaks)
        pvals = pvals / pvals.sum()
        counts = rng.multinomial(n_shared, pvals)  # (n_runs, intervals)
        shared_sums = counts @ self._on
        indep_sums = rng.binomial((lengths - n_shared)[:, None], self.means[None, :])
        return (shared_sums + indep_sums).astype(float)
