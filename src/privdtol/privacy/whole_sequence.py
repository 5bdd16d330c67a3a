"""Audit 2: exact law of the whole action sequence (I_1, ..., I_T) for small T and K.

For a block algorithm, (I_1..I_T) is a one-to-one function of the block actions (A_0..A_(R-1)),
R the number of blocks meeting [T], so their laws carry the same privacy loss.  Given a loss
sequence x_(1:T), the law is enumerated *jointly* over the algorithm's internal prefix lengths
(M_0, ..., M_(R-2)) -- data-independent for RPS, a point mass at the data-chosen prefix for the
negative control -- without using Proposition 1's factorisation::

    P(a_(0:R-1) | x) = (1/K) sum_(m_0..m_(R-2)) prod_l P(M_l = m_l | x_(B_l))
                                                   P(A_(l+1) = a_(l+1) | M_l = m_l, x_(B_l)).

The largest log-ratio over all events E of [K]^T between two neighbouring sequences equals the
largest over single sequences (a ratio of sums is at most its largest term ratio), so the audit
reports ``max_a |log P(a | x) - log P(a | x')|``.  Pairs audited: the worst per-selection pair of
:mod:`.exact_selection` embedded in every block l <= R-2 of a random {0,1} background, plus
random neighbouring pairs (random background, random time, random replacement vector).
Proposition 1 predicts: the whole-sequence loss of a pair equals the per-selection loss of the
block that contains the changed vector (0 if it is the last block), hence <= 2 eta <= eps.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from privdtol.algorithms import BlockAlgorithm
from privdtol.core.clock import check_horizon, n_blocks
from privdtol.core.seeding import generator
from privdtol.errors import InputError
from privdtol.privacy.exact_selection import audit_selection
from privdtol.privacy.mechanisms import (
    audited,
    law_kind,
    log_prefix_laws,
    log_selection_law,
    logsumexp,
    pair_loss,
    prefix_law,
    prefix_sums,
    selection_eta,
    uses_resampling,
)
from privdtol.privacy.result import AuditResult, exact_verdict

#: the enumeration holds K^R sequences times the number of prefix combinations
MAX_SEQUENCES = 1 << 20


def _block_factors(alg: BlockAlgorithm, block_data: np.ndarray, r: int):
    """Per-prefix log-weights (S,) and per-prefix log-laws (S, K) of the selection after
    block r (exact; for Laplace laws a single 'prefix', the whole block)."""
    kind = law_kind(alg)
    if kind == "laplace_quadrature":
        return np.zeros(1), log_selection_law(alg, block_data[None], r)
    cum = prefix_sums(block_data[None])
    support, logw = prefix_law(alg, cum, r)
    logp = log_prefix_laws(alg, cum[0, support, :], r)
    return logw[0], logp


def sequence_log_law(alg: BlockAlgorithm, losses: np.ndarray) -> np.ndarray:
    """log P(A_0 = a_0, ..., A_(R-1) = a_(R-1) | losses) as an array of shape (K,)*R.

    ``losses`` is the (T, K) loss sequence with T = 2^R - 1 (whole blocks).
    """
    losses = np.asarray(losses, dtype=float)
    T, K = losses.shape
    R = n_blocks(T)
    if T != (1 << R) - 1:
        raise InputError("horizon", f"got T = {T}", "T = 2^R - 1 (whole blocks)")
    factors = []
    for r in range(R - 1):
        start = (1 << r) - 1
        factors.append(_block_factors(alg, losses[start : start + (1 << r)], r))
    n_combos = int(np.prod([f[0].size for f in factors])) if factors else 1
    if n_combos * K**R > MAX_SEQUENCES:
        raise InputError(
            "horizon",
            f"{n_combos} prefix combinations x {K}^{R} sequences",
            f"at most {MAX_SEQUENCES} (smaller T or K)",
        )
    terms = []
    for combo in itertools.product(*[range(f[0].size) for f in factors]):
        logp = np.full((K,) * R, -np.log(K))
        weight = 0.0
        for level, (idx, (logw, laws)) in enumerate(zip(combo, factors, strict=False)):
            weight += logw[idx]
            shape = [1] * R
            shape[level + 1] = K
            logp = logp + laws[idx].reshape(shape)
        if np.isfinite(weight):
            terms.append(weight + logp)
    return logsumexp(np.stack(terms), axis=0)


@dataclass
class SequenceAudit(AuditResult):
    AUDIT = "whole_sequence"

    eta: float
    K: int
    horizon: int
    loss: float
    bound_selection: float
    bound_eps: float
    per_block_max: float
    factorization_gap: float
    within_selection_bound: bool
    violation: bool
    verdict: str
    pairs_evaluated: int
    witness_time: int
    witness_block: int
    witness_text: str
    law: str
    data_scope: str


def audit_sequence(
    algorithm: str | BlockAlgorithm,
    epsilon: float | None = None,
    K: int = 3,
    horizon: int = 63,
    seed: int = 0,
    n_random: int = 20,
) -> SequenceAudit:
    """Enumerate the law of (I_1..I_T) under neighbouring loss sequences; report the largest
    log-ratio over all events, and compare it with the per-block selection losses."""
    alg = audited(algorithm, epsilon)
    T = check_horizon(horizon)
    R = n_blocks(T)
    if T != (1 << R) - 1 or R < 2:
        raise InputError("horizon", f"got {T}", "T = 2^R - 1 with R >= 2: 3, 7, 15, 31, 63")
    if K < 2:
        raise InputError("K", f"got {K}", "integers >= 2")
    rng = generator(SequenceAudit.stream_key(alg, K=int(K), horizon=int(T), seed=int(seed)))
    pairs = []  # (x, x', changed time index, predicted per-block loss)
    for r in range(R - 1):
        sel = audit_selection(alg, K=K, block=1 << r, seed=seed, n_random=500, max_steps=20)
        w = sel.witness
        x = (rng.random((T, K)) < 0.5).astype(float)
        xp = x.copy()
        start = (1 << r) - 1
        x[start : start + (1 << r)] = np.asarray(w.d)
        xp[start : start + (1 << r)] = np.asarray(w.d_prime)
        pairs.append((x, xp, start + w.row, sel.loss))
    continuous = not uses_resampling(alg)
    for _ in range(n_random):
        x = (rng.random((T, K)) < rng.random((1, K))).astype(float)
        t = int(rng.integers(0, T))
        xp = x.copy()
        xp[t] = rng.random(K) if continuous and rng.random() < 0.5 else (rng.random(K) < 0.5)
        r = (t + 1).bit_length() - 1
        if r < R - 1:
            s0 = (1 << r) - 1
            lp = log_selection_law(alg, x[s0 : s0 + (1 << r)], r)
            lq = log_selection_law(alg, xp[s0 : s0 + (1 << r)], r)
            pred = float(pair_loss(lp, lq)[0])
        else:
            pred = 0.0
        pairs.append((x, xp, t, pred))
    best, best_pair, gap, per_block = -np.inf, None, 0.0, 0.0
    for x, xp, t, pred in pairs:
        lp, lq = sequence_log_law(alg, x), sequence_log_law(alg, xp)
        loss, idx = pair_loss(lp.ravel(), lq.ravel())
        loss = float(loss)
        gap = max(gap, abs(loss - pred))
        per_block = max(per_block, pred)
        if loss > best:
            best = loss
            seq = np.unravel_index(int(idx), lp.shape)
            best_pair = (x, xp, t, seq, float(lp.ravel()[idx]), float(lq.ravel()[idx]))
    x, xp, t, seq, a, b = best_pair
    text = (
        f"time {t + 1} (block {(t + 1).bit_length() - 1}): "
        f"{tuple(float(v) for v in x[t])} -> {tuple(float(v) for v in xp[t])}; "
        f"block actions {tuple(int(s) for s in seq)}: log P = {a:.6g} vs {b:.6g}"
    )
    return SequenceAudit.of(
        alg,
        eta=selection_eta(alg, int(K)),
        K=int(K),
        horizon=T,
        **exact_verdict(alg, best),
        per_block_max=per_block,
        factorization_gap=gap,
        pairs_evaluated=len(pairs),
        witness_time=t + 1,
        witness_block=(t + 1).bit_length() - 1,
        witness_text=text,
        law=law_kind(alg),
        data_scope="{0,1}^K" if not continuous else "[0,1]^K",
    )
