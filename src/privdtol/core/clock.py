"""The dyadic clock of Section 4: blocks B_r = {2^r, ..., 2^(r+1) - 1} and checkpoint horizons.

Times are 1-based as in the paper.  Horizons T = 2^k - 1 end exactly at a block boundary, so the
checkpoints reported by the simulator are every 2^k - 1 <= T, plus T itself when T is not of
that form (its last block then counts only ``|B_r ∩ [T]|`` rounds).
"""

from __future__ import annotations

import numpy as np

from privdtol.errors import InputError

MAX_HORIZON = 1 << 40


def check_horizon(horizon: int) -> int:
    if int(horizon) != horizon or not (1 <= horizon <= MAX_HORIZON):
        raise InputError("horizon", f"got {horizon}", f"integers 1 .. 2^40 = {MAX_HORIZON}")
    return int(horizon)


def n_blocks(horizon: int) -> int:
    """Number of blocks that intersect [T]: blocks 0 .. floor(log2 T)."""
    return int(horizon).bit_length()


def block_start(r: int) -> int:
    """First time of block r (1-based): 2^r."""
    return 1 << r


def block_lengths(horizon: int) -> np.ndarray:
    """``|B_r ∩ [T]|`` for r = 0 .. n_blocks - 1, as int64."""
    r = np.arange(n_blocks(horizon))
    ends = np.minimum((1 << (r + 1)) - 1, horizon)
    return (ends - (1 << r) + 1).astype(np.int64)


def checkpoints(horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """Checkpoint horizons and, for each, how many leading blocks it covers."""
    k = np.arange(1, n_blocks(horizon) + 1)
    horizons = (1 << k) - 1
    covered = k.copy()
    if horizons[-1] > horizon:
        horizons[-1] = horizon
    return horizons.astype(np.int64), covered
