"""Negative controls of the regret checks: algorithms each built so that one check
of a paper claim MUST fail on it.  A check that passes its control is not evidence of anything.

They are registered (configs can run them, ``privdtol simulate`` accepts them) with
``role = "control"``; figures leave them out unless asked (:func:`privdtol.plotting.style.order`).
The RPS-family controls (``rps_eta_logk``, ``rps_eta_sq``, ``rps_short_prefix``,
``rps_uniform_mix``, ``rps_hot``) are computed by the exact engine (:mod:`privdtol.engine.exact`
reads their eta, prefix and uniform mixture from these classes);
``uniform`` and ``ftl_egreedy`` are simulated by Monte Carlo.  ``control_of`` names the checks
each one targets.

- ``uniform`` (block, eps-DP: data-blind): regret T · mean_j Delta_j, linear in T; control of
  C2 and C5;
- ``ftl_egreedy`` (round, not private): FTL + sum_t min(1, K/t) mean_j Delta_j ~ ln T; C3;
- ``rps_eta_logk`` (block, eps-DP): privacy term ~ log^2 K / eps; C4c (s) and C4's form;
- ``rps_eta_sq`` (block, eps-DP): privacy term ~ log K / eps^2; C4b (q);
- ``rps_short_prefix`` (block, eps-DP): statistical term ~ log^1.5 K / Delta^2; C4a (p);
- ``rps_uniform_mix`` (block, eps-DP): selection (1 - 1/16) softmax + (1/16) uniform, so
  F_m does not vanish and sum_m F_m = infinity; L5, L5a, L5b (the proof's Lemma 5); its
  regret is linear in T: H1, W1 (the cited works' bounds);
- ``rps_hot`` (block, private in name only: eta = 4 at every eps, 8-DP): below the lower
  bound every eps-DP algorithm must pay when eps < 1/4; C6.

The audit-only privacy controls (NOT eps-DP) are in :mod:`privdtol.privacy.audit_controls`;
these controls are all eps-DP (or non-private, ``ftl_egreedy``), except ``rps_hot``, which
declares an eps it does not meet, and fail a *regret* claim (or a step of its proof) instead.
"""

from __future__ import annotations

import math

import numpy as np

from privdtol.algorithms.base import BlockAlgorithm, RoundAlgorithm
from privdtol.algorithms.declarations import Privacy, SelectionLaw, eta_of
from privdtol.algorithms.ftl import FollowTheLeader
from privdtol.algorithms.rps import RandomizedPrefixSoftmax, softmax_law
from privdtol.core import bounds


class UniformPlay(BlockAlgorithm):
    """CONTROL of C2 (Theorem 1, eq. (1)) and C5 (the dependent-losses remark, Section 3).

    Plays an action drawn uniformly from [K] on every dyadic block, ignoring the data, so it is
    eps-DP for every eps > 0 (its output law does not depend on the losses at all; Definition 1
    holds with ratio 1).  Its selection law is uniform, so its pseudo-regret is exactly
    Reg_T = T · mean_j Delta_j, linear in T, on every loss model: it must exceed
    1 + 800 log K / Delta_min + 16 log K / eta at large T, so C2 (and C5, which applies C2 to
    correlated and Beta losses) must FAIL on it.  The fast engine's Rao-Blackwellised charge
    #(B_r ∩ [T]) · sum_j Delta_j p_(r,j) with p_r uniform equals the closed form exactly.
    """

    name = "uniform"
    display_name = "control: uniform play"
    role = "control"
    privacy = Privacy("data-blind: a uniform action on every block, 0-DP", lambda alg: 0.0)
    symmetric = True
    control_of = ("C2", "C5")
    source = "negative control of a regret check: uniform action on every block, data-blind"

    def law(self, sums, r):
        n, K = sums.shape
        return np.full((n, K), 1.0 / K)

    def select(self, rng, sums, r):
        probs = self.law(sums, r)
        return rng.integers(0, sums.shape[1], size=sums.shape[0]), probs


class FTLEpsilonGreedy(RoundAlgorithm):
    """CONTROL of C3 (horizon-freeness: Theorem 1, Section 4, bounds Reg_T "for every horizon
    T") and of C4a (the 1/Delta exponent of Corollary 1's rate, Section 4, in the statistical
    regime).

    Non-private.  P(I_t = j | L_(t-1)) = eps_t / K + (1 - eps_t) · FTL(L_(t-1))_j with
    eps_t = min(1, K / t) and FTL uniform on the leaders (ties uniform).  With full information
    L_(t-1) does not depend on the actions played, so its regret is exactly
    sum_(t <= T) [eps_t · mean_j Delta_j + (1 - eps_t) · r_t], r_t FTL's expected per-round
    regret: FTL's part is bounded in T, the exploration part
    (:func:`exploration_regret`) grows like K · mean_j Delta_j · ln T.  It never plateaus, so
    the plateau ratio Reg(T_max) / Reg(T_0) of C3 exceeds 1.05: C3 must FAIL on it.  Its
    exploration term is proportional to Delta (not to 1/Delta), so the fitted exponent p of
    (1/Delta)^p leaves [0.8, 1.2]: C4a must FAIL on it.
    """

    name = "ftl_egreedy"
    display_name = "control: FTL, ε_t-greedy"
    role = "control"
    symmetric = True
    control_of = ("C3",)
    source = "negative control of a regret check: FTL with eps_t = min(1, K/t) uniform exploration"

    @staticmethod
    def exploration(K: int, t) -> np.ndarray:
        """eps_t = min(1, K / t), t 1-based."""
        return np.minimum(1.0, K / np.asarray(t, dtype=float))

    def law(self, cumulative, t):
        K = cumulative.shape[1]
        eps = np.broadcast_to(self.exploration(K, t), (cumulative.shape[0],))[:, None]
        return eps / K + (1.0 - eps) * FollowTheLeader().law(cumulative, t)


def exploration_regret(K: int, gaps: np.ndarray, horizon) -> np.ndarray:
    """sum_(t <= T) eps_t · mean_j Delta_j: the part of ``ftl_egreedy``'s regret charged by its
    uniform exploration (a lower bound on its regret: the FTL part is >= 0), in closed form:
    sum_(t <= T) min(1, K/t) = min(T, K) + K (H_T - H_K) for T > K, H the harmonic numbers
    (through the digamma function, so any T costs O(1)).  ``horizon`` may be an array."""
    from scipy.special import digamma

    T = np.asarray(horizon, dtype=float)
    tail = K * (digamma(np.maximum(T, K) + 1) - digamma(K + 1))
    return (np.minimum(T, K) + tail) * float(np.mean(gaps))


class RPSEtaOverLogK(RandomizedPrefixSoftmax):
    """CONTROL of C4c (the log K exponent s of Corollary 1's privacy term) and of the rate-form
    check C4 (Reg = a log K / Delta + b log K / eta + c within a factor 1.5).

    RPS (Section 4) with eta_K = min(eps/2, 1/8) / log_2 K.  Dividing by log_2 K (not ln K)
    keeps eta_K <= min(eps/2, 1/8) for every K >= 2 (ln 2 < 1 would raise eta at K = 2), so
    every selection is 2 eta_K <= eps-DP (Lemma 3) and the algorithm is eps-DP
    (Proposition 1).  Its privacy term 16 log K / eta_K = 16 log K · log_2 K / eta is
    proportional to log^2 K / eps (the shape of Wu & Wang's bound, Section 6): the exponent s of
    (log K)^s comes out near 2, outside [0.8, 1.2], so C4c must FAIL on it; and the two-term
    model fitted with eta = min(eps/2, 1/8) misses it by more than the factor 1.5 across K, so
    the rate-form check C4 must FAIL on it too (on a grid with enough K in the privacy
    regime).

    ``eta`` is not a constant of this algorithm (it depends on K): use :meth:`eta_for`.  The
    ``eta`` attribute raises AttributeError so that code expecting one temperature (the
    privacy audit) refuses it instead of using a wrong one.
    """

    name = "rps_eta_logk"
    display_name = "control: RPS, η / log₂ K"
    role = "control"
    reference = None
    #: each selection is 2 eta_K-DP, at most 2 eta_2 = 2 min(eps/2, 1/8)
    privacy = Privacy(
        "exponential mechanism softmax(-eta_K L), 2 eta_K-DP per selection",
        lambda alg: 2.0 * alg.eta_for(2),
    )
    exact_law = SelectionLaw("softmax", lambda alg, K: alg.eta if K is None else alg.eta_for(K))
    control_of = ("C4c", "C4")
    source = "negative control of a regret check: RPS with eta = min(eps/2, 1/8) / log2 K (eps-DP)"

    @property
    def eta(self) -> float:
        raise AttributeError("rps_eta_logk has no single eta: it is eta_for(K)")

    def eta_for(self, K: int) -> float:
        return float(bounds.eta(self.epsilon)) / max(1.0, math.log2(K))

    def law(self, sums, r):
        return softmax_law(sums, self.eta_for(sums.shape[1]))


class RPSEtaSquared(RandomizedPrefixSoftmax):
    """CONTROL of C4b (the 1/eps exponent q of Corollary 1's rate in the privacy regime).

    RPS (Section 4) with eta = min(eps^2 / 2, 1/8).  It is eps-DP for every eps: for eps <= 1,
    eps^2/2 <= eps/2; for eps > 1, eta = 1/8 <= eps/2; so 2 eta <= eps per selection
    (Lemma 3, Proposition 1).  Its privacy term 16 log K / eta is proportional to
    log K / eps^2 wherever eps^2/2 < 1/8 (eps < 1/2): the exponent q of (1/eps)^q comes out
    near 2, outside [0.8, 1.2], so C4b must FAIL on it.
    """

    name = "rps_eta_sq"
    display_name = "control: RPS, η = ε²/2"
    role = "control"
    reference = None
    control_of = ("C4b",)
    source = "negative control of a regret check: RPS with eta = min(eps^2/2, 1/8) (eps-DP)"

    @property
    def eta(self) -> float:
        return float(min(self.epsilon**2 / 2, 1 / 8))


def short_prefix(r: int) -> int:
    """n_r = ceil(2^(2r/3)), the least n with n^3 >= 4^r (integer arithmetic, exact for any r);
    1 <= n_r <= 2^r."""
    target = 1 << (2 * r)
    n = max(1, round(2 ** (2 * r / 3)))
    while n**3 < target:
        n += 1
    while n > 1 and (n - 1) ** 3 >= target:
        n -= 1
    return n


class RPSShortPrefix(RandomizedPrefixSoftmax):
    """CONTROL of C4a (the 1/Delta exponent p of Corollary 1's rate, statistical regime).

    RPS (Section 4) selecting A_(r+1) ~ softmax(-eta L_r(n_r)) from the first
    n_r = ceil(2^(2r/3)) rounds of block r only (data-independent, deterministic prefix; eta as
    RPS), so every selection is 2 eta <= eps-DP (Lemma 3) and the algorithm is eps-DP
    (Proposition 1).  A suboptimal action stops being selected once n_r Delta^2 ~ log K, i.e.
    from blocks of length 2^r ~ (log K / Delta^2)^(3/2); until then each block costs ~ 2^r Delta,
    so the statistical term is ~ log^1.5 K / Delta^2: the exponent p of (1/Delta)^p comes out
    near 2, outside [0.8, 1.2], so C4a must FAIL on it.
    """

    name = "rps_short_prefix"
    display_name = "control: RPS, prefix 2^(2r/3)"
    role = "control"
    reference = None
    control_of = ("C4a",)
    source = "negative control of a regret check: RPS on the first ceil(2^(2r/3)) rounds (eps-DP)"
    prefix_rule = "fixed"

    def prefix_lengths(self, rng, r, n_runs, sums_for=None):
        return np.full(n_runs, short_prefix(r), dtype=np.int64)


class RPSUniformMix(RandomizedPrefixSoftmax):
    """CONTROL of L5 (Lemma 5, Section 5.4: sum_(m>=1) F_m <= 200 log K/Delta_min +
    4 log K/eta) and of its two halves, L5a (eq. (5), the small-gap part) and L5b (eq. (6), the
    large-gap part).

    RPS (Section 4: the same dyadic blocks, uniform A_0, random prefix M_r and
    eta = min(eps/2, 1/8)) whose selection is the mixture
    (1 - gamma) softmax(-eta L_r(M_r)) + gamma uniform, gamma = 1/16 (``exact_law.uniform_mix``).
    It is eps-DP: the softmax selection is 2 eta-DP (Lemma 3), and mixing with a law that does
    not depend on the data keeps the ratio bound, (1 - gamma) p_j + gamma/K <=
    e^(2 eta) ((1 - gamma) p'_j + gamma/K), so each selection is 2 eta <= eps-DP and the
    algorithm is eps-DP (Proposition 1, whose proof uses only the per-selection bound and the
    blocks' factorization).  Its expected gap from m rounds is
    F_m = (1 - gamma) F_m^softmax + gamma sum_j Delta_j / K, which does not vanish as m grows:
    sum_m F_m = infinity, and so are the sums of its small-gap and of its large-gap parts on
    every instance that has such actions, so L5, L5a and L5b must FAIL on it (the exact engine
    reports a certified lower value of each sum: :mod:`privdtol.engine.exact.proof`).  Its
    regret, (1 - gamma) Reg_T(rps) + gamma T sum_j Delta_j / K, is linear in T, so the claims
    of the cited works H1 and W1 (a prior bound's shape, horizon-free or logarithmic in T) must
    FAIL on it too.
    """

    name = "rps_uniform_mix"
    display_name = "control: RPS mixed with uniform, γ = 1/16"
    role = "control"
    reference = None
    control_of = ("L5", "L5a", "L5b", "H1", "W1")
    source = (
        "negative control of a proof check: RPS whose selection is (1 - 1/16) softmax + "
        "(1/16) uniform (eps-DP)"
    )
    #: gamma = 1/16, the weight of the uniform law in every selection (A_0 is uniform anyway)
    exact_law = SelectionLaw("softmax", eta_of, uniform_mix=1 / 16)

    def law(self, sums, r):
        g = self.exact_law.uniform_mix
        return (1 - g) * softmax_law(sums, self.eta) + g / sums.shape[1]


class RPSHot(RandomizedPrefixSoftmax):
    """CONTROL of C6 (the lower side of Corollary 1, Section 4, with the lower bound of Hu et
    al. 2021: every eps-DP algorithm's regret is at least an explicit lower bound LB_T, so an
    algorithm below LB_T is not eps-DP).

    RPS (Section 4) with eta = 4 whatever eps: a softmax close to the leader of the prefix,
    far hotter than privacy allows.  It is "private in name": it declares an eps (``private``
    is True, the experiments run it at every eps of their grid) but each selection is only
    2 eta = 8-DP (Lemma 3), which is not eps-DP for eps < 8.  In the privacy regime its regret
    is that of rps_uncapped at eps = 8, far below what any eps-DP algorithm must pay (LB_T
    grows like log K/eps there: at K = 8, gap 1/2, eps 1/64 its regret is 0.08 LB_T), so C6
    must FAIL on it.  (With eta = 1/8, the cap alone, it stayed within 6% of LB_T.)
    """

    name = "rps_hot"
    display_name = "control: RPS, η = 4 at every ε"
    role = "control"
    reference = None
    control_of = ("C6",)
    source = "negative control of the lower-bound check: RPS with eta = 4 whatever eps (only 8-DP)"

    @property
    def eta(self) -> float:
        return 4.0


__all__ = [
    "FTLEpsilonGreedy",
    "RPSEtaOverLogK",
    "RPSEtaSquared",
    "RPSHot",
    "RPSShortPrefix",
    "RPSUniformMix",
    "UniformPlay",
    "exploration_regret",
    "short_prefix",
]
