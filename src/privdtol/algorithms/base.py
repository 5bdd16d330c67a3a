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

from privdtol.algorithms.declarations import Privacy, SelectionLaw
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


def prefix_range(r: int) -> tuple[int, int]:
    """The support {lo, ..., hi} of M_r (Section 4): M_0 = 1; M_r ~ Unif{2^(r-1) + 1..2^r}."""
    return (1, 1) if r == 0 else ((1 << (r - 1)) + 1, 1 << r)


def random_prefix(rng: np.random.Generator, r: int, n_runs: int) -> np.ndarray:
    """M_r: 1 for r = 0, else uniform on {2^(r-1) + 1, ..., 2^r} (Section 4)."""
    if r == 0:
        return np.ones(n_runs, dtype=np.int64)
    lo, hi = prefix_range(r)
    return lo + rng.integers(0, hi - lo + 1, size=n_runs, dtype=np.int64)


class Algorithm(ABC):
    """An algorithm and its declarations (:mod:`privdtol.algorithms.declarations`): registry
    name, display name, role, reference (its BibTeX entry, the authors its name cites),
    privacy, exact selection law, symmetry.  ``private``
    is derived from ``privacy`` (not declared twice)."""

    name: ClassVar[str]
    #: the name figures and the report show (registry order is the display order)
    display_name: ClassVar[str]
    #: one of :data:`~privdtol.algorithms.declarations.ROLES`
    role: ClassVar[str]
    #: where it comes from, in words (``privdtol list``)
    source: ClassVar[str]
    #: the key of the work it is taken from in paper/references.bib (None: this pipeline's own)
    reference: ClassVar[str | None] = None
    #: the BibTeX entry of ``reference`` when paper/references.bib has none (a plugin's source:
    #: the report's bibliography takes it from here)
    bibtex: ClassVar[str] = ""
    #: the authors ``display_name`` spells (``"Hu et al."``): the report typesets them as a
    #: citation of ``reference``
    cite_as: ClassVar[str | None] = None
    #: how it is eps-DP (None: not private)
    privacy: ClassVar[Privacy | None] = None
    #: its selection law when an exact family covers it (None: Monte Carlo only)
    exact_law: ClassVar[SelectionLaw | None] = None
    #: True when relabelling the actions relabels its law (P(pi(j) | pi(L)) = P(j | L))
    symmetric: ClassVar[bool] = False
    private: ClassVar[bool]  # derived: privacy is not None
    kind: ClassVar[str]  # "block" or "round"
    #: for controls: the ids of the checks they must fail
    control_of: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.private = cls.privacy is not None

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
    #: which rounds of block r the selection reads (one of
    #: :data:`~privdtol.algorithms.declarations.PREFIX_RULES`): "random" (M_r of Section 4),
    #: "full" (the whole block), "fixed" (the class's own deterministic ``prefix_lengths``)
    prefix_rule: ClassVar[str] = "full"

    def prefix_lengths(
        self, rng: np.random.Generator, r: int, n_runs: int, sums_for=None
    ) -> np.ndarray:
        """How many rounds of block r the next selection reads, by :attr:`prefix_rule`."""
        if self.prefix_rule == "random":
            return random_prefix(rng, r, n_runs)
        if self.prefix_rule == "full":
            return np.full(n_runs, 1 << r, dtype=np.int64)
        raise NotImplementedError(f"{self.name}: prefix_rule 'fixed' needs its prefix_lengths")

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

    @abstractmethod
    def law(self, cumulative: np.ndarray, t: int | np.ndarray) -> np.ndarray:
        """P(I_t = j | L_(t-1)) for every run: (n_runs, K); ``t`` is 1-based."""
