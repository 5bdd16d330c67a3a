"""The Bernoulli-resampling private FTNL of Wu & Wang, ALT 2026 (arXiv 2502.10997).

The template of Hu et al. 2021 (dyadic epochs, the next action from the previous epoch's full
loss sums plus noise) where every observed loss x is first replaced by an independent
Bernoulli(x) draw (the identity for {0,1} losses).  Two noise variants:

- ``wu_wang``: Laplace(2/eps) report-noisy-min, as in Hu et al.;
- ``wu_wang_gumbel``: Gumbel(2/eps) report-noisy-min, which equals the exponential mechanism
  softmax(-(eps/2) S) (Gumbel-max trick), so its law is explicit.

eps-DP-safe choices: noise scale 2/eps for both (sensitivity 1 in every coordinate at once),
the first action uniform, each epoch's selection using only that epoch's data.
"""

from __future__ import annotations

import numpy as np

from privdtol.algorithms.declarations import Privacy, SelectionLaw, noise_scale_of, twice_over_scale
from privdtol.algorithms.rnm_ftnl import ReportNoisyMin
from privdtol.algorithms.rps import softmax_law


class WuWangLaplace(ReportNoisyMin):
    name = "wu_wang"
    display_name = "Wu & Wang (Laplace)"
    cite_as = "Wu & Wang"
    source = "Wu & Wang, ALT 2026 (arXiv 2502.10997), Laplace noise"
    reference = "wu2026"
    resampled = True


class WuWangGumbel(ReportNoisyMin):
    name = "wu_wang_gumbel"
    display_name = "Wu & Wang (Gumbel)"
    cite_as = "Wu & Wang"
    source = "Wu & Wang, ALT 2026 (arXiv 2502.10997), Gumbel noise"
    reference = "wu2026"
    resampled = True
    privacy = Privacy(
        "Gumbel report-noisy-min, scale 2/eps: eps-DP per selection", twice_over_scale
    )
    exact_law = SelectionLaw("gumbel_noisy_min", noise_scale_of)

    def law(self, sums, r):
        return softmax_law(sums, 1.0 / self.noise_scale)

    def select(self, rng, sums, r):
        # argmin (S - G) with G ~ Gumbel(2/eps): literally the noisy minimum, whose law is
        # softmax(-(eps/2) S) (tests check the two agree).
        noise = rng.gumbel(0.0, self.noise_scale, size=sums.shape)
        return np.argmin(sums - noise, axis=1), self.law(sums, r)
