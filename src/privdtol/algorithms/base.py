"""Algorithm interfaces.

*Block algorithms* (paper Section 4 and its competitors) play one action A_r on the whole dyadic
block B_r = {2^r, ..., 2^(r+1) - 1}.  After block r they read the sums of the first
``prefix_length`` rounds of that block (possibly Bernoulli-resampled) and select A_(r+1).
A_0 is uniform on [K] (data-independent, as Section 4 allows).

*Per-round algorithms* (non-private FTL and Hedge) choose I_t from the cumulative loss
L_(t-1) alone, through an explicit law ``law(L_(t-1), t)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from privdtol.errors import InputError


def sample_from(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    """One draw per row of a (n, K) probability matrix, by inversion of the row CDF."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    return np.minimum((cdf <= u[:, None]).sum(axis=1), probs.shape[1] - 1)


def check_epsilon(epsilon: float) -> float:
    if not (epsilon > 0 and np.isfinite(epsilon)):
        raise InputError("epsilon", f"got {epsilon}", "a finite number > 0")
    return float(epsilon)


class Algorithm(ABC):
    """Common facts: registry name, whether it is private, and where it comes from."""

    name: ClassVar[str]
    #: the name figures and the report show (registry order is the display order)
    display_name: ClassVar[str]
    private: ClassVar[bool]
    source: ClassVar[str]
    kind: ClassVar[str]  # "block" or "round"
    #: "algorithm" (the paper's and its competitors/ablations) or "control" (a negative control
    #: of a regret check, :mod:`privdtol.algorithms.regret_controls`; figures leave controls out)
    role: ClassVar[str] = "algorithm"
    #: for controls: the ids of the checks they must fail
    control_of: ClassVar[tuple[str, ...]] = ()

    def __init__(self, epsilon: float | None = None):
        self.epsilon = (
            check_epsilon(epsilon)
            if self.private
            else (None if epsilon is None else float(epsilon))
        )


class BlockAlgorithm(Algorithm):
    """Plays A_r on block B_r; selects A_(r+1) from the block's prefix sums."""

    kind = "block"
    #: True when the selection reads Bernoulli-resampled losses (Wu & Wang 2026)
    resampled: ClassVar[bool] = False

    def prefix_lengths(
        self, rng: np.random.Generator, r: int, n_runs: int, sums_for=None
    ) -> np.ndarray:
        """How many rounds of block r the next selection reads (default: all 2^r)."""
        return np.full(n_runs, 1 << r, dtype=np.int64)

    def law(self, sums: np.ndarray, r: int) -> np.ndarray | None:
        """Exact selection law P(A_(r+1) = j | data) as an (n_runs, K) matrix, or None when
        it has no closed form."""
        return None

    @abstractmethod
    def select(
        self, rng: np.random.Generator, sums: np.ndarray, r: int
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Draw A_(r+1) for every run; also return the law when it is explicit."""


class RoundAlgorithm(Algorithm):
    """Chooses I_t from L_(t-1) through an explicit law."""

    kind = "round"
    private = False

    @abstractmethod
    def law(self, cumulative: np.ndarray, t: int | np.ndarray) -> np.ndarray:
        """P(I_t = j | L_(t-1)) for every run: (n_runs, K); ``t`` is 1-based."""
