"""The next block's action of a block algorithm (Section 4: A_(r+1) drawn from the selection
law given block r's prefix sums), shared by the fast engine (:mod:`privdtol.engine.fast`) and the
explicit per-round reference (:mod:`privdtol.engine.explicit`), so that neither imports the
other back."""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import BlockAlgorithm
from privdtol.engine.guard import check_selection


def select_next(
    alg: BlockAlgorithm, rng: np.random.Generator, sums: np.ndarray, r: int
) -> tuple[np.ndarray, np.ndarray, bool]:
    """A_(r+1) for every run from the block sums ``sums`` (n, K), the law it was drawn from,
    and whether that law is explicit: where it is not (Laplace noise) the law charged is the
    point mass at the action drawn (the ``block_realized`` estimator).  Actions out of range
    and laws that are not probabilities are refused
    (:func:`~privdtol.engine.guard.check_selection`)."""
    act, law = alg.select(rng, sums, r)
    check_selection(alg, act, law, sums.shape[0], sums.shape[1], r)
    act = np.asarray(act)
    if law is not None:
        return act, law, True
    point = np.zeros(sums.shape)
    point[np.arange(sums.shape[0]), act] = 1.0
    return act, point, False
