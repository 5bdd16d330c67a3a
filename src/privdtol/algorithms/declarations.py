"""What an algorithm declares about itself, beside its code: the facts the pipeline
derives its lists from (the schema's enums, the exact engine's dispatch, the privacy audits'
laws, the competitor finding, the report's references).

- :data:`ROLES`: the paper's algorithm, a competitor, an ablation, a non-private baseline, a
  negative control;
- :class:`Privacy`: the mechanism (words) and the privacy loss of one selection, eps' such that
  each selection is eps'-DP (the algorithm is then max-over-blocks eps'-DP: Proposition 1);
- :class:`SelectionLaw`: the selection's law when one of the exact engine's families covers it
  (softmax with a temperature, report-noisy-min with Laplace or Gumbel noise of a scale),
  optionally mixed with the uniform law; which rounds it reads is the class's ``prefix_rule``.

A missing declaration is never guessed: an algorithm without a :class:`SelectionLaw` is
simulated by Monte Carlo, and ``privdtol check-config`` says so (and why) per algorithm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: an algorithm's role: the paper's, a private competitor, an ablation of the paper's, a
#: non-private baseline, a negative control of a check (figures leave controls out)
ROLES = ("paper", "competitor", "ablation", "baseline", "control")
#: the exact engine's families of selection laws
LAW_FAMILIES = ("softmax", "laplace_noisy_min", "gumbel_noisy_min")
#: which rounds of block r a block algorithm's selection reads: the data-independent random
#: prefix M_r of Section 4, the whole block, or a deterministic prefix of the class's own
#: (``prefix_lengths(None, r, 1)``, which must read no randomness)
PREFIX_RULES = ("random", "full", "fixed")


@dataclass(frozen=True)
class Privacy:
    """How an algorithm is private: ``mechanism`` in words (with its scale), and
    ``selection_epsilon(alg)``, the eps' of one selection (e.g. 2 eta for the exponential
    mechanism softmax(-eta L) on sums of sensitivity 1 in every coordinate)."""

    mechanism: str
    selection_epsilon: Callable[[Any], float]


@dataclass(frozen=True)
class SelectionLaw:
    """A selection law the exact engine and the exact audits compute.

    ``family``: ``softmax`` (P(j) proportional to exp(-parameter L_j): ``parameter`` is the
    inverse temperature eta), ``gumbel_noisy_min`` (argmin_j (L_j - Z_j), Z_j i.i.d.
    Gumbel(parameter), the same law as softmax with eta = 1/parameter) or
    ``laplace_noisy_min`` (Z_j i.i.d. Laplace(parameter)).  ``parameter(alg, K)`` may depend
    on K (``K`` is None where no K is known: then it may raise AttributeError).
    ``uniform_mix``: gamma of a selection (1 - gamma) law + gamma uniform."""

    family: str
    parameter: Callable[[Any, int | None], float]
    uniform_mix: float = 0.0

    def __post_init__(self):
        if self.family not in LAW_FAMILIES:
            raise ValueError(f"law family {self.family!r} not in {LAW_FAMILIES}")
        if not 0 <= self.uniform_mix < 1:
            raise ValueError(f"uniform_mix {self.uniform_mix!r} not in [0, 1)")

    @property
    def softmax(self) -> bool:
        """Whether the law is a softmax (Gumbel noise included)."""
        return self.family != "laplace_noisy_min"

    def temperature(self, alg, K: int | None = None) -> float:
        """eta of a softmax law (1/scale for Gumbel noise)."""
        value = float(self.parameter(alg, K))
        if self.family == "laplace_noisy_min":
            raise ValueError(f"{alg.name!r}: a Laplace law has no temperature")
        return 1.0 / value if self.family == "gumbel_noisy_min" else value

    def rule(self, alg, K: int | None = None) -> tuple[bool, float]:
        """(softmax?, eta or Laplace scale): what the exact engine computes."""
        if self.softmax:
            return True, self.temperature(alg, K)
        return False, float(self.parameter(alg, K))


def eta_of(alg, K=None) -> float:
    """The parameter of a law whose temperature is the algorithm's ``eta``."""
    return float(alg.eta)


def noise_scale_of(alg, K=None) -> float:
    """The parameter of a law whose noise scale is the algorithm's ``noise_scale``."""
    return float(alg.noise_scale)


def twice_eta(alg) -> float:
    """eps' = 2 eta of the exponential mechanism softmax(-eta L) (Lemma 3)."""
    return 2.0 * float(alg.eta)


def twice_over_scale(alg) -> float:
    """eps' = 2 / b of report-noisy-min with noise of scale b (Laplace or Gumbel) on sums of
    sensitivity 1 in every coordinate."""
    return 2.0 / float(alg.noise_scale)


__all__ = [
    "LAW_FAMILIES",
    "PREFIX_RULES",
    "ROLES",
    "Privacy",
    "SelectionLaw",
    "eta_of",
    "noise_scale_of",
    "twice_eta",
    "twice_over_scale",
]
