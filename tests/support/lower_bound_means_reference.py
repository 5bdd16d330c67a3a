"""A plain reference for :mod:`privdtol.core.lower_bound_means`: the bound of any mean vector
round by round, from the definitions in the module's docstring, in exact arithmetic where it
can be (means as fractions, the coupling's difference probabilities as fractions, binomial tails
in integers through :func:`support.lower_bound_reference.privacy`).  The family sizes, the
divergences and the difference probabilities are computed here one placement j at a time,
with no numpy and none of the module's shortcuts (first zeros, the sandwich, the store)."""

from __future__ import annotations

import math
from fractions import Fraction

from support.lower_bound_reference import kl, privacy


def _sizes(mu: list[Fraction]) -> list[int]:
    """m = 2..K where the m-th smallest mean is the last of its group."""
    K = len(mu)
    return [m for m in range(2, K + 1) if m == K or mu[m - 1] != mu[m]]


def _pair(mu: list[Fraction], j: int) -> list[Fraction]:
    """The instance with the means of actions 1 and j swapped (j 1-based; j = 1: itself)."""
    out = list(mu)
    out[0], out[j - 1] = out[j - 1], out[0]
    return out


def sums(means, epsilon: float, T: int, model: str = "bernoulli") -> dict[str, float]:
    """Delta_min * sum_(t<=T) of max(0, s_t), max(0, p_t), max(0, s_t, p_t), b_t and
    max(0, s_t, p_t, b_t), with s_t and p_t the largest over the family sizes."""
    mu = sorted(Fraction(m) for m in means)
    K = len(mu)
    reference = [mu[1], *mu[1:]]  # Q: coordinate 1 raised to mu_2
    div, delta = [], []
    for j in range(1, K + 1):
        law = _pair(mu, j)
        if model == "deterministic":
            div.append(math.inf)
            delta.append(Fraction(1))
            continue
        div.append(sum(kl(law[i], reference[i]) for i in range(K) if law[i] != reference[i]))
        same = Fraction(1)
        for i in range(K):
            same *= 1 - abs(law[i] - reference[i])  # each coordinate's maximal coupling
        delta.append(1 - same)
    sizes = _sizes(mu)
    A = {m: sum(div[:m]) / m for m in sizes}
    dmax = {m: max(delta[:m]) for m in sizes}
    pair = (
        math.inf
        if model == "deterministic"
        else kl(mu[0], mu[1]) + kl(mu[1], mu[0])  # P_1 and P_2: coordinates 1 and 2 swapped
    )
    stat, priv, comb, two, best = [], [], [], [], []
    alive = dict.fromkeys(sizes, True)  # p^m_t <= 0 stays so (monotone in t)
    for t in range(1, T + 1):
        s = max(
            1 - ((0.0 if t == 1 else (t - 1) * A[m]) + math.log(2)) / math.log(m) for m in sizes
        )
        p = 0.0
        for m in sizes:
            if alive[m]:
                pm = privacy(m, dmax[m], epsilon, t)
                alive[m] = pm > 0
                p = max(p, pm)
        b = 0.25 if t == 1 else (0.25 * math.exp(-(t - 1) * pair) if math.isfinite(pair) else 0)
        stat.append(max(0.0, s))
        priv.append(p)
        comb.append(max(0.0, s, p))
        two.append(b)
        best.append(max(0.0, s, p, b))
    g = float(mu[1] - mu[0])
    return {
        "statistical": g * math.fsum(stat),
        "privacy": g * math.fsum(priv),
        "combined": g * math.fsum(comb),
        "two_point": g * math.fsum(two),
        "best": g * math.fsum(best),
    }
