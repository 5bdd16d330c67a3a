"""Exact expected regret for K = 2, by propagating a pmf (Bernoulli product losses) or in closed
form (deterministic losses).

With two actions (mu_1 < mu_2, Delta = mu_2 - mu_1) every algorithm here depends on the data
only through D_m = L_(m,2) - L_(m,1), a lazy random walk with steps +1 w.p. mu_2 (1 - mu_1),
-1 w.p. mu_1 (1 - mu_2), 0 otherwise.  Propagating its pmf gives, for every m,

- softmax: E[P_(m,2)] = E[1 / (1 + exp(eta D_m))] (Section 5.3's F_m = Delta E[P_(m,2)]);
- FTL:     P(D_m < 0) + P(D_m = 0) / 2;
- Hedge:   E[1 / (1 + exp(eta_(m+1) D_m))] with eta_t = 2 sqrt(log 2 / t).

and from these the exact expected pseudo-regret at every checkpoint T = 2^k - 1
(block accounting of Lemma 4's proof, with equality: block r+1 contributes
2^(r+1) E[F_(M_r)]).  Used by the tests as the ground truth of the simulator.

On deterministic losses D_m = m Delta, so the softmax block algorithm's regret is a finite sum
(:func:`deterministic_regret_k2`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit


def _walk_expectations(mu1: float, mu2: float, m_max: int, functions) -> np.ndarray:
    """E[f(D_m, m)] for m = 0..m_max and each f in ``functions``: (len(functions), m_max+1)."""
    up, down = mu2 * (1 - mu1), mu1 * (1 - mu2)
    stay = 1 - up - down
    offset = m_max
    pmf = np.zeros(2 * m_max + 1)
    pmf[offset] = 1.0
    support = np.arange(-m_max, m_max + 1, dtype=float)
    out = np.empty((len(functions), m_max + 1))
    for m in range(m_max + 1):
        lo, hi = offset - m, offset + m + 1
        for i, f in enumerate(functions):
            out[i, m] = float(pmf[lo:hi] @ f(support[lo:hi], m))
        if m < m_max:
            nxt = stay * pmf
            nxt[1:] += up * pmf[:-1]
            nxt[:-1] += down * pmf[1:]
            pmf = nxt
    return out


def rps_regret_k2(
    mu1: float, mu2: float, eta: float, k_max: int, prefix: str = "random"
) -> np.ndarray:
    """Exact Reg_T of the softmax block algorithm at T = 2^k - 1, k = 1..k_max.

    ``prefix="random"``: the paper's M_r (Section 4); ``"full"``: M_r = 2^r (ablation).
    A_0 is uniform, so block 0 contributes Delta / 2.
    """
    gap = mu2 - mu1
    m_max = 1 << max(0, k_max - 2)
    (p2,) = _walk_expectations(mu1, mu2, m_max, [lambda d, m: expit(-eta * d)])
    regret = [gap / 2]
    for r in range(k_max - 1):  # block r+1 selected from block r's data
        if prefix == "full" or r == 0:
            mean_f = gap * p2[1 << r]
        else:
            mean_f = gap * p2[(1 << (r - 1)) + 1 : (1 << r) + 1].mean()
        regret.append(regret[-1] + (1 << (r + 1)) * mean_f)
    return np.array(regret)


def round_regret_k2(mu1: float, mu2: float, k_max: int, algorithm: str) -> np.ndarray:
    """Exact Reg_T of FTL (uniform ties) or Decreasing Hedge at T = 2^k - 1, k = 1..k_max."""
    gap = mu2 - mu1
    T = (1 << k_max) - 1
    if algorithm == "ftl":
        f = lambda d, m: (d < 0) + 0.5 * (d == 0)  # noqa: E731
    elif algorithm == "hedge":
        f = lambda d, m: expit(-2 * np.sqrt(np.log(2) / (m + 1)) * d)  # noqa: E731
    else:
        raise ValueError(f"algorithm must be 'ftl' or 'hedge', got {algorithm!r}")
    (p2,) = _walk_expectations(mu1, mu2, T - 1, [f])  # p2[m] = P(I_(m+1) = 2)
    cumulative = np.cumsum(gap * p2)
    return cumulative[(1 << np.arange(1, k_max + 1)) - 2]


def deterministic_regret_k2(T: int, gap: float, eta: float) -> tuple[float, list[float]]:
    """(Reg_T, [g_r]) of the softmax block algorithm (random prefix, Section 4) on deterministic
    losses, K = 2: A_0 uniform (g_0 = gap/2); A_r (r >= 1) averaged over M_(r-1) uniform on
    {2^(r-2)+1..2^(r-1)} (M_0 = 1) of gap / (1 + e^(eta m gap)); Reg_T = sum_r #(B_r cap [1, T])
    g_r, B_r = {2^r..2^(r+1)-1} (Lemma 4's block accounting with equality)."""
    gs, r = [gap / 2], 1
    while (1 << r) <= T:
        lo, hi = (1, 1) if r == 1 else ((1 << (r - 2)) + 1, 1 << (r - 1))
        gs.append(math.fsum(gap / (1 + math.exp(eta * m * gap)) for m in range(lo, hi + 1)))
        gs[-1] /= hi - lo + 1
        r += 1
    n = [min((2 << r) - 1, T) - (1 << r) + 1 for r in range(len(gs))]
    return math.fsum(k * g for k, g in zip(n, gs, strict=True)), gs
