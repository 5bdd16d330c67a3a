"""Report-noisy-min Follow-The-Noisy-Leader, after Hu, Huang, Mehta & Hegde 2021
(arXiv 2102.07929): dyadic epochs; the action of epoch r+1 is
argmin_j (S_(r,j) - Z_j) with S_r the full loss sums of epoch r and Z_j i.i.d. Laplace(2/eps).

Details left open and the eps-DP-safe choices made here: the noise scale is 2/eps (a changed
loss vector moves *every* coordinate of S by up to 1, so report-noisy-max needs scale 2/eps
for eps-DP, not 1/eps); each epoch uses only its own data (parallel composition across
epochs, as in Proposition 1); the first action is uniform (data-independent).

The selection law has no closed form; :func:`laplace_noisy_min_law` evaluates it by
one-dimensional quadrature for tests and audits on small K.
"""

from __future__ import annotations

import numpy as np

from privdtol.algorithms.base import BlockAlgorithm
from privdtol.algorithms.declarations import (
    Privacy,
    SelectionLaw,
    noise_scale_of,
    twice_over_scale,
)


def laplace_noisy_min_law(sums: np.ndarray, scale: float) -> np.ndarray:
    """P(argmin_j (S_j - Z_j) = j) for Z_j i.i.d. Laplace(scale), by quadrature.

    P(j) = integral of f(z) prod_(i != j) F(z - S_j + S_i) dz, f, F the Laplace density and cdf.
    One row (a 1-D vector of sums) at a time; intended for small K.
    """
    from scipy import integrate  # imported here: 0.3 s, needed by the tests and audits only

    sums = np.asarray(sums, dtype=float)
    if sums.ndim == 2:
        return np.vstack([laplace_noisy_min_law(row, scale) for row in sums])

    def cdf(x):
        return np.where(
            x < 0,
            0.5 * np.exp(np.minimum(x, 0) / scale),
            1 - 0.5 * np.exp(-np.maximum(x, 0) / scale),
        )

    probs = np.empty(sums.size)
    for j in range(sums.size):
        others = np.delete(sums, j)
        kinks = np.concatenate([[0.0], sums[j] - others])

        def integrand(z, shift=sums[j], others=others):
            return 0.5 / scale * np.exp(-abs(z) / scale) * np.prod(cdf(z - shift + others))

        lo, hi = kinks.min() - 50 * scale, kinks.max() + 50 * scale
        probs[j] = integrate.quad(
            integrand, lo, hi, points=np.unique(kinks), limit=400, epsabs=1e-13, epsrel=1e-10
        )[0]
    return probs / probs.sum()


class ReportNoisyMin(BlockAlgorithm):
    """Hu et al. 2021: Laplace report-noisy-min on the previous epoch's full loss sums."""

    name = "rnm_ftnl"
    display_name = "RNM-FTNL (Hu et al.)"
    cite_as = "Hu et al."
    role = "competitor"
    source = "Hu, Huang, Mehta & Hegde 2021 (arXiv 2102.07929)"
    reference = "hu2021"
    privacy = Privacy(
        "Laplace report-noisy-min, scale 2/eps: eps-DP per selection", twice_over_scale
    )
    exact_law = SelectionLaw("laplace_noisy_min", noise_scale_of)
    symmetric = True

    @property
    def noise_scale(self) -> float:
        return 2.0 / self.epsilon

    def select(self, rng, sums, r):
        noise = rng.laplace(0.0, self.noise_scale, size=sums.shape)
        return np.argmin(sums - noise, axis=1), None
