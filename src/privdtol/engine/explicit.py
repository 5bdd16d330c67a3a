"""The explicit per-round simulator: the reference every shortcut of :mod:`privdtol.engine.fast`
is tested against.

It draws every round's whole loss vector X_t (in chunks of rounds, vectorised over runs), feeds
the algorithm exactly as the paper's protocol does (Section 3: I_t chosen before X_t is seen),
and charges every round its own gap.  For block algorithms the prefix sum L_r(M_r) is
accumulated round by round (M_r is drawn, independently of the data, when the block starts),
and Bernoulli resampling (Wu & Wang) is applied to each explicit loss.  For FTL and Hedge the
law of I_t is evaluated at every round from the running cumulative loss L_(t-1).

Cost O(K T) per run: use it for small horizons and for tests.
"""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import BlockAlgorithm, sample_from
from privdtol.core import clock
from privdtol.engine.guard import check_law, failure
from privdtol.engine.selection import select_next

#: runs x rounds x K elements drawn at once
ROUND_CHUNK_ELEMENTS = 1 << 21


def _round_chunks(n, K, length):
    width = max(1, ROUND_CHUNK_ELEMENTS // max(1, n * K))
    for offset in range(0, length, width):
        yield offset, min(width, length - offset)


def simulate_chunk_explicit(alg, env, horizon, n, rng, bar):
    """Per-round simulation of one chunk of runs; same outputs as the fast engine."""
    lengths = clock.block_lengths(horizon)
    gaps = env.gaps
    R = lengths.size
    rb = np.zeros((n, R))
    real = np.zeros((n, R))
    actions = np.full((n, R), -1, dtype=np.int64)
    explicit_law = True
    block = isinstance(alg, BlockAlgorithm)
    if block:
        probs = np.full((n, env.K), 1.0 / env.K)
        act = rng.integers(0, env.K, size=n)
    cumulative = np.zeros((n, env.K))
    for r in range(R):
        start = clock.block_start(r) - 1  # 0-based index of time 2^r
        if block:
            actions[:, r] = act
            prefix = alg.prefix_lengths(rng, r, n) if r + 1 < R else np.zeros(n, np.int64)
            sums = np.zeros((n, env.K))
        for offset, width in _round_chunks(n, env.K, int(lengths[r])):
            x = env.sample_rounds(rng, n, start + offset, width)  # (n, width, K)
            if not (np.all(np.isfinite(x)) and x.min() >= 0 and x.max() <= 1):
                raise failure(env, "sample_rounds gave losses outside [0, 1] (or NaN)")
            if block:
                rb[:, r] += width * (probs @ gaps)
                real[:, r] += width * gaps[act]
                seen = x if not alg.resampled else (rng.random(x.shape) < x).astype(float)
                used = (offset + np.arange(width))[None, :] < prefix[:, None]
                sums += np.einsum("nsk,ns->nk", seen, used.astype(float))
            else:
                before = cumulative[:, None, :] + np.cumsum(x, axis=1) - x  # L_(t-1)
                t = start + offset + 1 + np.arange(width)  # 1-based times
                law = alg.law(before.reshape(-1, env.K), np.tile(t, n))
                check_law(alg, law, n * width, env.K, f"law in block {r}")
                played = sample_from(rng, law)
                rb[:, r] += (law @ gaps).reshape(n, width).sum(axis=1)
                real[:, r] += gaps[played].reshape(n, width).sum(axis=1)
                cumulative += x.sum(axis=1)
        if block and r + 1 < R:
            act, probs, explicit = select_next(alg, rng, sums, r)
            explicit_law = explicit_law and explicit
        if bar is not None:
            bar.update()
    return rb, real, actions, explicit_law
