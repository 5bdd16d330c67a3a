"""Deterministic losses: X_t = mu for every t (the special case where Wu & Wang 2026 prove the
tight log K / eps rate).  Window sums are m mu exactly; Bernoulli-resampled sums are
Binomial(m, mu_j), independent over j."""

from __future__ import annotations

import numpy as np

from privdtol.environments.base import LossModel


class DeterministicLosses(LossModel):
    name = "deterministic"
    order = 3
    exact_family = "deterministic"
    #: the loss law, typeset (LaTeX; the report's loss-model table)
    law_tex = r"$X_t = \mu$ for every $t$"
    exact_sums = True

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        return np.broadcast_to(self.means, (n_runs, n_rounds, self.K)).copy()

    def window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        return lengths[:, None] * self.means[None, :]

    def resampled_window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        return rng.binomial(lengths[:, None], self.means[None, :]).astype(float)
