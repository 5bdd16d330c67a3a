"""The loss-model interface (paper Section 3: i.i.d. loss vectors in [0,1]^K, coordinates
possibly dependent within a round).

A model draws explicit rounds, and sums of losses over windows of rounds.  Block algorithms
(Section 4) only ever need window sums, so a model with an exact law for them (Binomial for
Bernoulli product losses) makes a run cost O(K log T) instead of O(K T).  Models without such a
law fall back to summing explicit draws in chunks, which is exact but costs O(K · window).

Rounds are 0-based here: round index ``s`` is the paper's time ``t = s + 1``, so block
``B_r = {2^r, ..., 2^(r+1) - 1}`` starts at round index ``2^r - 1``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from privdtol.errors import InputError

#: elements (runs x rounds x K) drawn at once by the explicit fallbacks
CHUNK_ELEMENTS = 1 << 22


def validate_means(means: np.ndarray, field: str = "means") -> np.ndarray:
    """Check K >= 2, values in [0, 1] and a unique best (smallest-mean) action."""
    means = np.asarray(means, dtype=float)
    if means.ndim != 1 or means.size < 2:
        raise InputError(field, f"need at least 2 actions, got {means.size}", "K >= 2")
    if not np.all(np.isfinite(means)) or means.min() < 0 or means.max() > 1:
        raise InputError(field, "values outside [0, 1]", "numbers in [0, 1]")
    best = means.min()
    if np.count_nonzero(means == best) != 1:
        raise InputError(
            field,
            "no unique best action (the smallest mean is tied)",
            "means with a unique minimum",
        )
    return means


#: the laws the exact engine computes (:mod:`privdtol.engine.exact`): product Bernoulli losses
#: (window sums Binomial, independent over actions) and deterministic losses (X_t = mu)
EXACT_FAMILIES = ("bernoulli", "deterministic")


class LossModel(ABC):
    """An i.i.d. loss process over K actions (paper Section 3).

    A loss model declares itself, as an algorithm does: what the pipeline derives its lists
    from (the registry's order, the figures' and tables' names, the schema's parameters, the
    exact engine's dispatch, the negative controls, the models the pipeline generates)."""

    #: registry name
    name: ClassVar[str]
    #: rank in display order (the registry, the report's loss-model table, figures and
    #: tables); plugins come after the built-in models, by name
    order: ClassVar[int] = 1000
    #: the name figures and legends show (plain text; None: the registry name)
    label: ClassVar[str | None] = None
    #: the name a pivoted table's header shows (plain text, short; None: :attr:`label`)
    short_label: ClassVar[str | None] = None
    #: the name the report's tables show (LaTeX; None: :attr:`label`, escaped)
    label_tex: ClassVar[str | None] = None
    #: the loss law, typeset (LaTeX; the report's loss-model table; None: the class
    #: docstring's first line)
    law_tex: ClassVar[str | None] = None
    #: the law's parameters beyond the means: name -> its symbol in labels (plain text); each
    #: a keyword argument of the constructor and a list of values of a config's experiment
    parameters: ClassVar[dict[str, str]] = {}
    #: the family of :data:`EXACT_FAMILIES` the law belongs to, which the exact engine then
    #: computes (None: Monte Carlo only)
    exact_family: ClassVar[str | None] = None
    #: a negative control: a process outside the paper's hypothesis (rps must fail the checks
    #: of the claims it runs under)
    control: ClassVar[bool] = False
    #: built from a user's loss matrix (``from_csv``), not from means: the pipeline generates
    #: no instance of it
    from_file: ClassVar[bool] = False
    #: True when :meth:`window_sums` samples the exact law in O(K) per run
    exact_sums: ClassVar[bool] = False
    #: True when every loss is 0 or 1 almost surely (Bernoulli resampling is then the identity)
    bernoulli_valued: ClassVar[bool] = False

    def __init__(self, means: np.ndarray):
        self.means = validate_means(means)

    @classmethod
    def display_label(cls) -> str:
        """The name figures and legends show (:attr:`label`, else the registry name)."""
        return cls.label or cls.name

    @classmethod
    def header_label(cls) -> str:
        """The name a pivoted table's header shows (:attr:`short_label`, else
        :meth:`display_label`)."""
        return cls.short_label or cls.display_label()

    # ----------------------------------------------------------------- instance facts
    @property
    def K(self) -> int:
        return int(self.means.size)

    @property
    def best(self) -> int:
        """Index of the unique best action."""
        return int(np.argmin(self.means))

    @property
    def gaps(self) -> np.ndarray:
        """Delta_j = mu_j - mu_best (Section 3)."""
        return self.means - self.means.min()

    @property
    def delta_min(self) -> float:
        """Delta_min: the smallest positive gap."""
        g = self.gaps
        return float(g[g > 0].min())

    @property
    def max_rounds(self) -> int | None:
        """Largest number of rounds the model can produce (None: unbounded)."""
        return None

    def params(self) -> dict[str, Any]:
        """Everything that determines the law (used for seeding and output columns)."""
        return {"env": self.name, "means": [float(m) for m in self.means]}

    # ----------------------------------------------------------------- sampling
    @abstractmethod
    def sample_rounds(
        self, rng: np.random.Generator, n_runs: int, start: int, n_rounds: int
    ) -> np.ndarray:
        """Explicit loss vectors of rounds ``start .. start+n_rounds-1``: (n_runs, n_rounds, K)."""

    def window_sums(self, rng: np.random.Generator, start: int, lengths: np.ndarray) -> np.ndarray:
        """Per-run sums of the first ``lengths[i]`` rounds from ``start``: (n_runs, K).

        Default: sum explicit draws in chunks (exact law, O(K · max(lengths)) per run).
        """
        return self._explicit_window_sums(rng, start, lengths, resample=False)

    def resampled_window_sums(
        self, rng: np.random.Generator, start: int, lengths: np.ndarray
    ) -> np.ndarray:
        """Window sums after replacing every loss x by an independent Bernoulli(x) draw
        (the resampling step of Wu & Wang 2026).  Default: explicit draws in chunks."""
        if self.bernoulli_valued:
            return self.window_sums(rng, start, lengths)
        return self._explicit_window_sums(rng, start, lengths, resample=True)

    def _explicit_window_sums(self, rng, start, lengths, resample):
        lengths = np.asarray(lengths, dtype=np.int64)
        n_runs = lengths.size
        total = np.zeros((n_runs, self.K))
        longest = int(lengths.max(initial=0))
        step = max(1, CHUNK_ELEMENTS // max(1, n_runs * self.K))
        for offset in range(0, longest, step):
            width = min(step, longest - offset)
            x = self.sample_rounds(rng, n_runs, start + offset, width)
            if resample:
                x = (rng.random(x.shape) < x).astype(float)
            inside = (offset + np.arange(width))[None, :] < lengths[:, None]
            total += np.einsum("nsk,ns->nk", x, inside.astype(float))
        return total
