"""The explicit lower bound LB_T of Corollary 1's lower side for *any* mean vector: K actions
with means mu_1 < mu_2 <= ... <= mu_K (in any order on input: the bound is the same under a
relabelling), losses i.i.d. over rounds with independent Bernoulli coordinates
(``model="bernoulli"``) or deterministic, X_t = mu (``model="deterministic"``).  On the two-level
instance (mu_2 = ... = mu_K) every term is the one of :mod:`privdtol.core.lower_bound`.

The family of placements.  P_1 is the instance; for j >= 2, P_j is the instance with the means
of actions 1 and j swapped (the best action placed where j was), a relabelling of it, so an
algorithm that treats the actions symmetrically has P_j(I_t != j) = P_1(I_t != 1) = e_t, the
instance's probability of not playing the best action, and pays at least
Delta_min = mu_2 - mu_1 each time (every other action's gap is at least Delta_min under every
P_j): Reg_T >= Delta_min * sum_(t<=T) e_t.  The reference law Q is the instance with
coordinate 1 raised to mu_2 (on the two-level instance, the law with every mean at mu).

For each m in a set of family sizes (the ends of the groups of equal means, at most
:data:`MAX_FAMILIES` of them), with the uniform prior on the placements j = 1..m:

- Fano (any algorithm): KL(P_j || Q) per round is kl_1 = kl(mu_1 || mu_2) for j = 1 and
  kl_j = kl(mu_j || mu_2) + kl(mu_1 || mu_j) for j >= 2 (coordinates 1 and j differ), so
  e_t >= s^m_t = 1 - ((t - 1) A_m + log 2) / log m, A_m = (1/m) sum_(j<=m) kl_j.
- Group privacy (any eps-DP algorithm): couple P_j and Q coordinate by coordinate (each pair of
  Bernoulli laws maximally); a round differs with probability
  delta_j = 1 - (1 - abs(mu_j - mu_2))(1 - (mu_j - mu_1)) (delta_1 = delta_2 = Delta_min), at most
  delta_m for j <= m; the number of differing rounds among t - 1 is then stochastically below
  Bin(t - 1, delta_m), and P_j(I_t = j) <= e^(eps d) Q(I_t = j) + P(Bin(t - 1, delta_m) > d)
  with sum_(j<=m) Q(I_t = j) <= 1 give
  e_t >= p^m_t = 1 - min_(d>=0) [e^(eps d)/m + P(Bin(t - 1, delta_m) > d)].
- Two points (any algorithm): P_1 and P_2 differ in coordinates 1 and 2 by
  kl_pair = kl(mu_1 || mu_2) + kl(mu_2 || mu_1) per round, and Bretagnolle-Huber gives
  e_t >= b_t = exp(-(t - 1) kl_pair)/4.

Deterministic losses: two different loss vectors differ in every round, so every kl is infinite
(s^m_t = -inf and b_t = 0 from round 2 on) and delta_j = 1.

Each term is non-increasing in t, and so is their maximum over m: the sums go through the
monotone sandwich of :func:`privdtol.core.lower_bound.sandwich_columns`, with the columns of
:func:`privdtol.core.lower_bound.lower_bound`, scaled by Delta_min.  A larger Delta_min elsewhere
in the instance is not charged (a wrong pick costs Delta_min at least): the bound is valid for
every instance and equal to the two-level one on a two-level instance, not tight for spread gaps.
"""

from __future__ import annotations

import math

import numpy as np

from privdtol.core import lower_bound as two_level
from privdtol.errors import InputError

#: the loss models the bound covers
MODELS = ("bernoulli", "deterministic")
#: at most this many family sizes m (group ends, thinned geometrically beyond it)
MAX_FAMILIES = 32


# ------------------------------------------------------------------------------- validation
def check_means(means, model: str = "bernoulli") -> np.ndarray:
    """``means`` sorted as a float array, else an :class:`InputError` naming ``means`` or
    ``model``: at least 2 finite numbers in [0, 1] with a single smallest one."""
    if model not in MODELS:
        raise InputError("model", f"got {model!r}", ", ".join(MODELS))
    try:
        raw = [float(m) for m in np.atleast_1d(np.asarray(means, dtype=object)).ravel()]
    except (TypeError, ValueError, OverflowError):
        raise InputError("means", f"got {means!r}", "numbers in [0, 1]") from None
    if len(raw) < 2:
        raise InputError("means", f"got {len(raw)} value(s)", "at least 2 means (K >= 2)")
    bad = [m for m in raw if not 0 <= m <= 1]  # also NaN
    if bad:
        raise InputError("means", f"got {bad[0]!r}", "numbers in [0, 1]")
    mu = np.sort(np.array(raw))
    if not mu[0] < mu[1]:
        raise InputError(
            "means", f"the smallest mean {mu[0]!r} is shared", "a single best action (mu_1 < mu_2)"
        )
    return mu


# ------------------------------------------------------------------------------ the families
def kl_bern(q: float, p: float) -> float:
    """Bernoulli kl(q || p) in natural logs (inf where q puts mass where p has none), through
    :func:`privdtol.core.lower_bound.kl_gap`, accurate for q close to p."""
    if q == p:
        return 0.0
    if p <= 0 or p >= 1:
        return math.inf
    if q <= 0:
        return -math.log1p(-p)
    if q >= 1:
        return -math.log(p)
    return two_level.kl_gap(p, p - q)  # its formula holds for q above p too


def family_sizes(mu: np.ndarray) -> np.ndarray:
    """The m at which a group of equal means ends (m >= 2; K always), at most
    :data:`MAX_FAMILIES` of them: the largest, and then ends spread geometrically."""
    K = mu.size
    ends = np.flatnonzero(np.r_[mu[1:] != mu[:-1], True]) + 1
    ends = ends[ends >= 2]
    if ends.size > MAX_FAMILIES:
        want = np.unique(np.rint(np.geomspace(2, K, MAX_FAMILIES)))
        picked = ends[np.minimum(np.searchsorted(ends, want), ends.size - 1)]
        ends = np.unique(np.r_[picked, K])
    return ends.astype(np.int64)


def families(mu: np.ndarray, model: str) -> dict:
    """Per family size m (:func:`family_sizes`): the mean divergence A_m of Fano's term and the
    coupling's largest per-round difference probability delta_m; and the two-point kl_pair."""
    sizes = family_sizes(mu)
    if model == "deterministic":
        A = np.full(sizes.size, math.inf)
        delta = np.ones(sizes.size)
        return {"m": sizes, "A": A, "delta": delta, "kl_pair": math.inf}
    mu1, mu2 = float(mu[0]), float(mu[1])
    kl = np.array(
        [kl_bern(mu1, mu2)] + [kl_bern(float(m), mu2) + kl_bern(mu1, float(m)) for m in mu[1:]]
    )
    cum = np.cumsum(kl)
    A = cum[sizes - 1] / sizes
    far = mu[sizes - 1]
    delta = 1 - (1 - np.abs(far - mu2)) * (1 - (far - mu1))
    delta[sizes == 2] = mu2 - mu1  # (1 - 0)(1 - gap) in exact arithmetic
    return {"m": sizes, "A": A, "delta": delta, "kl_pair": kl_bern(mu1, mu2) + kl_bern(mu2, mu1)}


# ----------------------------------------------------------------------------- the bound
def _zeros(fam: dict, epsilon: float, top: int) -> tuple[int, list[int], int]:
    pairs = list(zip(fam["m"].tolist(), fam["A"].tolist(), fam["delta"].tolist(), strict=True))
    t0_s = max(two_level._first_zero_s(m, a, top) for m, a, _ in pairs)
    t0_ps = [two_level._first_zero_p(m, d, epsilon, top) for m, _, d in pairs]
    return t0_s, t0_ps, two_level._first_zero_b(fam["kl_pair"], top)


def _per_round(t: np.ndarray, fam: dict, epsilon: float, t0_ps: list[int]):
    """max(0, s_t), max(0, p_t), their maximum, b_t and the maximum of all, s_t and p_t each the
    largest over the family sizes (p^m only before its first zero)."""
    s = np.zeros(t.size)
    p = np.zeros(t.size)
    for m, a, d, t0 in zip(fam["m"], fam["A"], fam["delta"], t0_ps, strict=True):
        s = np.maximum(s, two_level._s(int(m), float(a), t))
        early = t < t0
        if early.any():
            pm = 1 - two_level._min_term_shared(t[early] - 1, int(m), float(d), epsilon)
            p[early] = np.maximum(p[early], pm)
    b = two_level._b(fam["kl_pair"], t)
    combined = np.maximum(s, p)
    return s, p, combined, b, np.maximum(combined, b)


def lower_bound_means_columns(
    means, epsilon, horizons, model: str = "bernoulli", exact_limit: int = two_level.EXACT_LIMIT
) -> dict:
    """LB_T of the instance ``means`` for each horizon (the columns of
    :func:`privdtol.core.lower_bound.lower_bound`, as lists): certified lower values, the width
    of their sandwich (``_error``) and ``exact``."""
    mu = check_means(means, model)
    e = two_level._number(epsilon)
    if not (math.isfinite(e) and e > 0):
        raise InputError("epsilon", f"got {epsilon!r}", "a finite number > 0")
    H = np.unique(two_level._rounds(horizons, "horizon", two_level.MAX_HORIZON))
    limit = two_level._exact_limit(exact_limit)
    fam = families(mu, model)
    t0_s, t0_ps, t0_b = _zeros(fam, e, int(H[-1]))
    return two_level.sandwich_columns(
        H, limit, (t0_s, max(t0_ps), t0_b), lambda t: _per_round(t, fam, e, t0_ps), mu[1] - mu[0]
    )


def lower_bound_means(
    means, epsilon, horizons, model: str = "bernoulli", exact_limit: int = two_level.EXACT_LIMIT
):
    """:func:`lower_bound_means_columns` as a DataFrame, one row per horizon."""
    import pandas as pd

    return pd.DataFrame(lower_bound_means_columns(means, epsilon, horizons, model, exact_limit))
