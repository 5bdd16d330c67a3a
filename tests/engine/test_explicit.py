"""Tests of :mod:`privdtol.engine.explicit`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.engine.explicit import _round_chunks

# --- from tests/test_mutants_engine_r3c.py

#: the 3 x 2 loss matrix of tests/test_mutants_engine_fresh.py: means (1/3, 2/3), gap 1/3
LOSSES = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])


@pytest.mark.parametrize(
    ("name", "eps", "want"),
    [
        # rps at eps = 1 on LOSSES: Reg_3 = 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8)) (see above)
        ("rps", 1.0, 1 / 6 + 2 / 3 * math.exp(-0.125) / (1 + math.exp(-0.125))),
        # FTL on LOSSES[::-1] = [[1, 0], [0, 1], [0, 1]] (means (1/3, 2/3)): t = 1 a tie
        # (1/6), t = 2 leader action 2 after L_1 = (1, 0) (1/3), t = 3 a tie again (1/6)
        ("ftl", None, 1 / 6 + 1 / 3 + 1 / 6),
    ],
)
def test_explicit_engine_charges_every_chunk_of_rounds(monkeypatch, name, eps, want):
    """The per-round engine draws a block in chunks of ROUND_CHUNK_ELEMENTS / (runs K) rounds;
    with one round per chunk every round of B_1 = {2, 3} must still be charged, and the
    cumulative losses and block sums carried across the chunks: Reg_3 as computed by hand."""
    from privdtol.engine import explicit
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses

    monkeypatch.setattr(explicit, "ROUND_CHUNK_ELEMENTS", 1)
    losses = LOSSES if name == "rps" else LOSSES[::-1]
    res = simulate(
        make_algorithm(name, eps), ReplayLosses(losses), 3, 2, {"test": name}, mode="explicit"
    )
    np.testing.assert_allclose(res.regret, [[1 / 6, want]] * 2, rtol=1e-14)


# --- from tests/test_mutants_engine_r4d.py


def test_round_chunks_split_a_block_into_chunks_of_the_element_budget():
    """width = max(1, 2^21 // max(1, n K)): n K = 2^22 gives width 1 (three chunks of one
    round), n K = 8 gives 2^18 rounds per chunk, n K = 1 the whole block in one chunk."""
    assert list(_round_chunks(1 << 21, 2, 3)) == [(0, 1), (1, 1), (2, 1)]
    assert list(_round_chunks(2, 4, (1 << 18) + 1)) == [(0, 1 << 18), (1 << 18, 1)]
    assert list(_round_chunks(1, 1, 5)) == [(0, 5)]
    assert list(_round_chunks(3, 0, 2)) == [(0, 2)]
    assert list(_round_chunks(1, 1, 0)) == []
