"""A plain reference for :mod:`privdtol.core.lower_bound`: each round's two terms straight from
their definitions, the binomial tail P(Bin(t - 1, gap) > d) in exact integer arithmetic (gap a
fraction), the minimum over d from 0 to t - 1 (stopped where e^(ε d)/K alone is too large),
and the rounds summed one by one.  No numpy, no scipy, no shortcut of the module (windows,
caps, sandwich): only slow.  One fact is used: p_t is non-increasing in t, so once p_t <= 0 it
is not computed again."""

from __future__ import annotations

import math
from fractions import Fraction


def kl(q: Fraction, p: Fraction) -> float:
    """Bernoulli kl(q || p) in natural logs (0 log 0 = 0; inf when q < 1 = p)."""
    total = 0.0
    for x, y in ((q, p), (1 - q, 1 - p)):
        if x == 0:
            continue
        if y == 0:
            return math.inf
        total += float(x) * math.log(Fraction(x, y))
    return total


def statistical(K: int, mu: Fraction, gap: Fraction, t: int) -> float:
    """s_t = 1 - ((t - 1) kl(mu - gap || mu) + log 2) / log K."""
    info = 0.0 if t == 1 else (t - 1) * kl(mu - gap, mu)
    return 1 - (info + math.log(2)) / math.log(K)


def privacy(K: int, gap: Fraction, epsilon: float, t: int) -> float:
    """p_t = 1 - min_(d>=0) [e^(ε d)/K + P(Bin(t - 1, gap) > d)], d from 0 up while e^(ε d)/K
    alone is below the best so far (it grows with d); P(Bin(n, gap) > d) = 1 - P(Bin <= d)
    exactly, from the integers N_k = C(n, k) a^k (b - a)^(n - k) over b^n, gap = a/b (an int
    divided by an int is correctly rounded)."""
    n, a, b = t - 1, gap.numerator, gap.denominator
    total, below = b**n, 0
    N = (b - a) ** n  # N_0
    best = math.inf
    for d in range(n + 1):
        if epsilon * d - math.log(K) > math.log(best):
            break
        below += N
        best = min(best, math.exp(epsilon * d) / K + (total - below) / total)
        # N_(d+1), an integer: N_d times (n - d) a / ((d + 1)(b - a)); for gap = 1, Bin(n, 1) = n
        N = N * (n - d) * a // ((d + 1) * (b - a)) if a < b else total * (d + 1 == n)
    return 1 - best


def two_point(mu: Fraction, gap: Fraction, t: int) -> float:
    """b_t = exp(-(t - 1) (kl(mu - gap || mu) + kl(mu || mu - gap)))/4 (Bretagnolle-Huber for
    the instances whose best actions are j and j'; 0 for t >= 2 when a kl is infinite)."""
    if t == 1:
        return 0.25
    info = (t - 1) * (kl(mu - gap, mu) + kl(mu, mu - gap))
    return 0.25 * math.exp(-info) if math.isfinite(info) else 0.0


def sums(K: int, mu, gap, epsilon: float, T: int) -> dict[str, float]:
    """gap * sum_(t<=T) of max(0, s_t), max(0, p_t), max(0, s_t, p_t), b_t and
    max(0, s_t, p_t, b_t)."""
    mu, gap = Fraction(mu), Fraction(gap)
    stat, priv, comb, pair, best = [], [], [], [], []
    p = 1.0
    for t in range(1, T + 1):
        s = statistical(K, mu, gap, t)
        p = privacy(K, gap, epsilon, t) if p > 0 else p  # p_t <= 0 stays so (monotone in t)
        b = two_point(mu, gap, t)
        stat.append(max(0.0, s))
        priv.append(max(0.0, p))
        comb.append(max(0.0, s, p))
        pair.append(b)
        best.append(max(0.0, s, p, b))
    g = float(gap)
    return {
        "statistical": g * math.fsum(stat),
        "privacy": g * math.fsum(priv),
        "combined": g * math.fsum(comb),
        "two_point": g * math.fsum(pair),
        "best": g * math.fsum(best),
    }
