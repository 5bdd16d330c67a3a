"""Non-private Decreasing Hedge (Mourtada & Gaiffas 2019, JMLR 20(83)):
I_t ~ softmax(-eta_t L_(t-1)) with eta_t = 2 sqrt(log K / t), t = 1, 2, ..."""

from __future__ import annotations

import numpy as np

from privdtol.algorithms.base import RoundAlgorithm
from privdtol.algorithms.rps import softmax_law


class DecreasingHedge(RoundAlgorithm):
    name = "hedge"
    display_name = "Decreasing Hedge (non-private)"
    role = "baseline"
    source = "Mourtada & Gaïffas 2019, JMLR 20(83)"
    reference = "mourtada2019"
    symmetric = True

    @staticmethod
    def learning_rate(K: int, t) -> np.ndarray:
        return 2.0 * np.sqrt(np.log(K) / np.asarray(t, dtype=float))

    def law(self, cumulative, t):
        eta = self.learning_rate(cumulative.shape[1], t)
        eta = np.broadcast_to(eta, (cumulative.shape[0],))[:, None]
        return softmax_law(eta * cumulative, 1.0)
