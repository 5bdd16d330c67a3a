"""Beta losses: X_{t,j} ~ Beta(kappa mu_j, kappa (1 - mu_j)), independent over j and t.

Continuous losses in (0, 1) with mean mu_j and variance mu_j (1 - mu_j) / (kappa + 1).  Window
sums have no closed-form law, so they are summed from explicit draws in chunks (exact, but
O(K · window) per run: keep horizons moderate).  Wu & Wang's Bernoulli resampling of a Beta
loss is exactly Bernoulli(mu_j), independent over j and t, so resampled sums are Binomial.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from privdtol.environments.base import LossModel
from privdtol.errors import InputError

#: the Beta concentration when none is given (the CLI's ``--kappa`` and the config schema's
#: experiment default read it: the one place it is written)
DEFAULT_KAPPA = 2.0


class BetaLosses(LossModel):
    name = "beta"
    order = 2
    label = "Beta"
    parameters: ClassVar[dict[str, str]] = {"kappa": "κ"}
    #: the loss law, typeset (LaTeX; the report's loss-model table)
    law_tex = (
        r"$X_{t,j} \sim \mathrm{Beta}(\kappa\mu_j, \kappa(1-\mu_j))$, independent over $j$ and $t$"
    )

    def __init__(self, means, kappa: float = DEFAULT_KAPPA):
        super().__init__(means)
        if not kappa > 0:
            raise InputError("kappa", f"got {kappa}", "kappa > 0")
        if self.means.min() <= 0 or self.means.max() >= 1:
            raise InputError(
                "means", "Beta losses need means strictly inside (0, 1)", "0 < mu_j < 1"
            )
        self.kappa = float(kappa)

    def params(self):
        return {**super().params(), "kappa": self.kappa}

    def sample_rounds(self, rng, n_runs, start, n_rounds):
        a = self.kappa * self.means
        b = self.kappa * (1 - self.means)
        return rng.beta(a, b, size=(n_runs, n_rounds, self.K))

    def resampled_window_sums(self, rng, start, lengths):
        lengths = np.asarray(lengths, dtype=np.int64)
        return rng.binomial(lengths[:, None], self.means[None, :]).astype(float)
