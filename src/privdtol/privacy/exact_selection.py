"""Audit 1: exact privacy loss of one block selection, worst case searched.

For a block selection with an explicit law (see :mod:`.mechanisms`), the privacy loss of a pair
of neighbouring block datasets d, d' (one loss vector changed) is::

    loss(d, d') = max_j |log P(j | d) - log P(j | d')|,

and over a finite output space the largest log-ratio over *events* equals the largest over single
outputs (a ratio of sums is at most the largest ratio of terms).  The selection is alpha-DP iff
the supremum of loss over neighbouring pairs is <= alpha; Lemma 3 says alpha = 2 eta.

A supremum cannot be computed by sampling, so the audit searches it in three stages and reports
the largest loss found (a *lower* bound on the true privacy loss, which is what can expose a
violation; it can never certify privacy by itself -- the proof does that):

1. analytic extremes: three groups of actions (the leader 0, the runner-up 1, the rest) each
   given an all-zeros, all-ones, first-half or second-half pattern over the block; the changed
   row (first row, first row outside the always-read part of the prefix, last row) gets every
   pair of group-constant {0,1} vectors;
2. random search: random Bernoulli(p_j) columns with random p_j (so that leads of every size
   occur), random changed row and random vectors; for the algorithms whose data may be any point
   of [0,1]^K (not resampled) half of the random datasets are continuous;
3. local optimisation: steepest ascent from the best pair found, moving one entry of d (and the
   same entry of d', or the changed row of either alone) to 0 or 1, until no move helps.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field

import numpy as np

from privdtol.algorithms import BlockAlgorithm
from privdtol.core.seeding import generator
from privdtol.privacy.audit_controls import prefix_support
from privdtol.privacy.mechanisms import (
    audited,
    block_index,
    law_kind,
    log_selection_law,
    pair_loss,
    selection_eta,
    uses_resampling,
)
from privdtol.privacy.result import AuditResult, exact_verdict

#: datasets evaluated at once (memory: BATCH x n x K floats, three copies)
BATCH = 2048


@dataclass
class Witness:
    """A neighbouring pair of block datasets and where their laws differ most."""

    d: list
    d_prime: list
    row: int
    action: int
    log_p: float
    log_p_prime: float

    def describe(self) -> str:
        d = np.asarray(self.d)
        dp = np.asarray(self.d_prime)

        def fmt(m):
            return "[" + ";".join("".join(_cell(x) for x in row) for row in m) + "]"

        return (
            f"row {self.row}: {_vec(d[self.row])} -> {_vec(dp[self.row])}; "
            f"action {self.action}: log P = {self.log_p:.6g} vs {self.log_p_prime:.6g}; "
            f"d = {fmt(d)}, d' = {fmt(dp)}"
        )


def _cell(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"({x:.3g})"


def _vec(v) -> str:
    return "(" + ",".join(f"{x:.3g}" for x in v) + ")"


@dataclass
class SelectionAudit(AuditResult):
    AUDIT = "exact_selection"

    eta: float
    K: int
    block: int
    loss: float
    bound_selection: float
    bound_eps: float
    within_selection_bound: bool
    violation: bool
    verdict: str
    pairs_evaluated: int
    stage_loss: dict = field(default_factory=dict)
    witness: Witness | None = None
    law: str = ""
    data_scope: str = ""

    def to_dict(self) -> dict:
        out = super().to_dict()
        if self.witness is not None:
            out["witness_text"] = self.witness.describe()
        return out


class _Best:
    """Keeps the largest-loss pair seen so far."""

    def __init__(self):
        self.loss = -np.inf
        self.pair = None
        self.count = 0

    def offer(self, alg, r, D, Dp, rows):
        for lo in range(0, D.shape[0], BATCH):
            sl = slice(lo, lo + BATCH)
            lp = log_selection_law(alg, D[sl], r)
            lq = log_selection_law(alg, Dp[sl], r)
            loss, act = pair_loss(lp, lq)
            self.count += loss.size
            i = int(np.argmax(loss))
            if loss[i] > self.loss:
                self.loss = float(loss[i])
                self.pair = (
                    D[sl][i].copy(),
                    Dp[sl][i].copy(),
                    int(rows[sl][i]),
                    int(act[i]),
                    float(lp[i, act[i]]),
                    float(lq[i, act[i]]),
                )
        return self.loss


def _groups(K: int) -> np.ndarray:
    """Group of each action: 0 leader, 1 runner-up, 2 the rest."""
    return np.minimum(np.arange(K), 2)


def extreme_pairs(K: int, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 1 candidates (see the module docstring): (D, D', changed rows).  They depend on
    (K, r) only, so they are built once per (K, r) and every audit gets its own copies."""
    return tuple(a.copy() for a in _extreme_pairs(K, r))


@functools.lru_cache(maxsize=64)
def _extreme_pairs(K: int, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = 1 << r
    half = max(1, n // 2)
    rows_idx = np.arange(n)
    patterns = [np.zeros(n), np.ones(n)]
    if n > 1:
        patterns += [(rows_idx < half).astype(float), (rows_idx >= half).astype(float)]
    groups = _groups(K)
    n_groups = int(groups.max()) + 1
    first_optional = int(prefix_support(r)[0])  # rows >= this are not always read
    positions = sorted({0, min(first_optional, n - 1), n - 1})
    vectors = [
        np.array(bits, dtype=float)[groups]
        for bits in itertools.product((0.0, 1.0), repeat=n_groups)
    ]
    distinct = [(v, w) for v, w in itertools.product(vectors, repeat=2) if not np.array_equal(v, w)]
    D, Dp, rows = [], [], []
    for combo in itertools.product(range(len(patterns)), repeat=n_groups):
        base = np.column_stack([patterns[combo[g]] for g in groups])
        for pos in positions:
            for v, w in distinct:
                a, b = base.copy(), base.copy()
                a[pos], b[pos] = v, w
                D.append(a)
                Dp.append(b)
                rows.append(pos)
    return np.array(D), np.array(Dp), np.array(rows)


def random_pairs(
    rng: np.random.Generator, K: int, r: int, count: int, continuous: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 2 candidates: random datasets with random per-action rates."""
    n = 1 << r
    p = rng.random((count, 1, K))
    if continuous:
        cont = rng.random(count) < 0.5
        u = rng.random((count, n, K))
        D = np.where(
            cont[:, None, None],
            rng.beta(2 * p + 0.1, 2 * (1 - p) + 0.1, size=(count, n, K)),
            (u < p).astype(float),
        )
        vec = np.where(
            cont[:, None], rng.random((count, K)), (rng.random((count, K)) < 0.5).astype(float)
        )
    else:
        D = (rng.random((count, n, K)) < p).astype(float)
        vec = (rng.random((count, K)) < 0.5).astype(float)
    rows = rng.integers(0, n, size=count)
    Dp = D.copy()
    Dp[np.arange(count), rows] = vec
    return D, Dp, rows


def local_moves(d: np.ndarray, dp: np.ndarray, row: int):
    """Every single move of the steepest ascent: set one shared entry of the unchanged rows,
    one entry of d's changed row, or one entry of d''s changed row, to 0 or to 1; or move the
    changed row to another position (swapping rows)."""
    n, K = d.shape
    D, Dp, rows = [], [], []
    for s in range(n):
        for k in range(K):
            for val in (0.0, 1.0):
                if s == row:
                    if d[s, k] != val:
                        a = d.copy()
                        a[s, k] = val
                        D.append(a), Dp.append(dp), rows.append(row)
                    if dp[s, k] != val:
                        b = dp.copy()
                        b[s, k] = val
                        D.append(d), Dp.append(b), rows.append(row)
                elif d[s, k] != val:
                    a, b = d.copy(), dp.copy()
                    a[s, k] = b[s, k] = val
                    D.append(a), Dp.append(b), rows.append(row)
    for s in range(n):
        if s != row:
            perm = np.arange(n)
            perm[[s, row]] = perm[[row, s]]
            D.append(d[perm]), Dp.append(dp[perm]), rows.append(s)
    return np.array(D), np.array(Dp), np.array(rows)


def audit_selection(
    algorithm: str | BlockAlgorithm,
    epsilon: float | None = None,
    K: int = 2,
    block: int = 1,
    seed: int = 0,
    n_random: int = 4000,
    max_steps: int = 200,
) -> SelectionAudit:
    """Search the worst-case privacy loss of one selection after a block of length ``block``."""
    alg = audited(algorithm, epsilon)
    r = block_index(block)
    kind = law_kind(alg)
    if kind == "laplace_quadrature":
        n_random = min(n_random, 150)  # each law costs K quadratures
        max_steps = min(max_steps, 3)
    continuous = not uses_resampling(alg)
    best = _Best()
    stages = {}
    D, Dp, rows = extreme_pairs(K, r)
    if kind == "laplace_quadrature":  # the law depends on the full sums only
        keys = np.concatenate([D.sum(1), Dp.sum(1)], axis=1)
        _, keep = np.unique(keys, axis=0, return_index=True)
        D, Dp, rows = D[keep], Dp[keep], rows[keep]
    stages["extremes"] = best.offer(alg, r, D, Dp, rows)
    rng = generator(SelectionAudit.stream_key(alg, K=int(K), block=int(block), seed=int(seed)))
    if n_random > 0:
        D, Dp, rows = random_pairs(rng, K, r, n_random, continuous)
        stages["random"] = best.offer(alg, r, D, Dp, rows)
    d, dp, row = best.pair[0], best.pair[1], best.pair[2]
    for _ in range(max_steps):
        before = best.loss
        D, Dp, rows = local_moves(d, dp, row)
        best.offer(alg, r, D, Dp, rows)
        if best.loss <= before + 1e-12:
            break
        d, dp, row = best.pair[0], best.pair[1], best.pair[2]
    stages["local"] = best.loss
    d, dp, row, act, lp, lq = best.pair
    return SelectionAudit.of(
        alg,
        eta=selection_eta(alg, int(K)),
        K=int(K),
        block=int(block),
        **exact_verdict(alg, float(best.loss)),
        pairs_evaluated=best.count,
        stage_loss={k: float(v) for k, v in stages.items()},
        witness=Witness(d.tolist(), dp.tolist(), row, act, lp, lq),
        law=kind,
        data_scope="{0,1}^K" if not continuous else "[0,1]^K (vertices and random interior)",
    )
