"""Losses repeated in blocks: a loss process that is NOT independent across time (the one
assumption of Section 3 the proof of Theorem 1 uses), the negative control of C5.

X_t = Y_r for every t in the dyadic block B_r = {2^r, ..., 2^(r+1) - 1}, with Y_0, Y_1, ...
i.i.d. product Bernoulli(mu_j) vectors.  Every X_t has the product-Bernoulli marginal of the
standard model (same means, same gaps), but the rounds of a block are one draw repeated: the
prefix RPS sees in block r is M_r copies of Y_r, a single sample, so its selection errs with a
probability that does not shrink with r and its regret grows linearly in T.  Theorem 1 does not
cover this process; C5's check must FAIL on RPS run on it.

Window sums are exact in O(K) per run and per dyadic block the window meets: the overlap of the
window with each block times that block's Y_r (drawn once per call, so the rounds of one call
are consistent; the block engine asks for one window per block).
"""

from __future__ import annotations

import numpy as np

from privdtol.environments.base import LossModel


class BlockedLosses(LossModel):
    name = "blocked"
    order = 4
    label = "repeated in blocks (control)"
    short_label = "blocked (control)"
    control = True
    #: the loss law, typeset (LaTeX; the report's loss-model table)
    law_tex = (
        r"$X_t = Y_r$ for every $t \in B_r$, $Y_r \sim \prod_j \mathrm{Bernoulli}(\mu_j)$ "
        r"i.i.d.\ over $r$: losses repeated in blocks, \emph{not} independent across time "
        r"(negative control of C5)"
    )
    exact_sums = True
    bernoulli_valued = True

    def _draw(self, rng, n_runs):
        return (rng.random((n_runs, self.K)) < self.means).astype(float)

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        out = np.empty((n_runs, n_rounds, self.K))
        t = start + 1  # the paper's time of the first round
        while t <= start + n_rounds:
            r = int(t).bit_length() - 1  # t in B_r
            end = min(2 ** (r + 1) - 1, start + n_rounds)
            out[:, t - start - 1 : end - start, :] = self._draw(rng, n_runs)[:, None, :]
            t = end + 1
        return out

    def window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        total = np.zeros((lengths.size, self.K))
        longest = int(lengths.max(initial=0))
        t = start + 1
        while t <= start + longest:
            r = int(t).bit_length() - 1  # t in B_r
            end = min(2 ** (r + 1) - 1, start + longest)
            # rounds of [t, end] inside each run's window [start + 1, start + length]
            overlap = np.clip(start + lengths - t + 1, 0, end - t + 1)
            total += overlap[:, None] * self._draw(rng, lengths.size)
            t = end + 1
        return total
