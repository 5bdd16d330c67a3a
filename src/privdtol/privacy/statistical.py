"""Audit 3: black-box statistical audit from many runs on two neighbouring loss matrices.

For algorithms without a closed-form law (Laplace report-noisy-min: ``rnm_ftnl``, ``wu_wang``)
the audit replays two neighbouring loss matrices x, x' (``--env replay``; they differ in one row,
the first row of block r) through the ordinary simulator with the block actions kept (what
``privdtol simulate --env replay --actions-out`` writes), and compares the empirical laws of
A_(r+1), the first action selected after the changed row -- by Proposition 1's factorisation
the only factor of the sequence law that changes.

Confidence: each of the 4K one-sided Clopper-Pearson bounds (lower and upper, for every action,
under x and under x') is taken at level alpha / (4K) (Bonferroni), so with probability
>= 1 - alpha all hold at once, and then

    lower = max_(j, direction) log(CP_low(p_j(x)) / CP_high(p_j(x')))   <= true loss
    upper = max_(j, direction) log(CP_high(p_j(x)) / CP_low(p_j(x')))   >= true loss

(the true loss of a finite-output selection is its largest singleton log-ratio).  Verdict:
"violation" only if ``lower`` exceeds eps; otherwise "no violation detected at this power",
with ``upper`` saying how large a loss the data cannot exclude.

The design puts the leader (action 0) ``lead`` rounds ahead (default about 8/eps, see
:func:`default_lead`) in block r and flips the changed row
from (0, 1, ..., 1) to (1, 0, ..., 0), which drives the ratio of the runner-ups' small
probabilities towards its supremum e^eps; a larger lead gets closer to the supremum but makes
the event rarer (less power for the same number of runs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv

from privdtol.algorithms import BlockAlgorithm
from privdtol.engine.fast import simulate
from privdtol.environments import ReplayLosses
from privdtol.errors import InputError
from privdtol.privacy.mechanisms import (
    audited,
    block_index,
    law_kind,
    lemma3_bound,
    log_selection_law,
    pair_loss,
)
from privdtol.privacy.result import AuditResult


def clopper_pearson(k: np.ndarray, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper-Pearson bounds, each holding with probability >= 1 - level:
    P >= lower and P <= upper (exact binomial, via the beta quantiles)."""
    k = np.asarray(k, dtype=float)
    lower = np.where(k > 0, betaincinv(np.maximum(k, 1), n - k + 1, level), 0.0)
    upper = np.where(k < n, betaincinv(k + 1, np.maximum(n - k, 1), 1 - level), 1.0)
    return lower, upper


def loss_bounds(counts_x: np.ndarray, counts_y: np.ndarray, alpha: float = 0.05) -> dict:
    """Simultaneous (1 - alpha) lower and upper confidence bounds on the privacy loss
    ``max_j |log p_j - log q_j|`` from two independent samples summarised by their counts."""
    cx, cy = np.asarray(counts_x, float), np.asarray(counts_y, float)
    nx, ny = int(cx.sum()), int(cy.sum())
    if nx < 1 or ny < 1 or cx.shape != cy.shape:
        raise InputError("runs", "empty sample or mismatched outcome sets", "runs >= 1")
    level = alpha / (4 * cx.size)
    lx, ux = clopper_pearson(cx, nx, level)
    ly, uy = clopper_pearson(cy, ny, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.maximum(np.log(lx) - np.log(uy), np.log(ly) - np.log(ux))
        up = np.maximum(np.log(ux) - np.log(ly), np.log(uy) - np.log(lx))
        px, py = cx / nx, cy / ny
        point = np.where((cx > 0) & (cy > 0), np.abs(np.log(px) - np.log(py)), np.nan)
    j_low = int(np.argmax(low))
    return {
        "lower": float(max(0.0, low[j_low])),
        "upper": float(up.max()),
        "point": float(np.nanmax(point)) if np.isfinite(point).any() else float("nan"),
        "event": j_low,
        "alpha": float(alpha),
        "runs_x": nx,
        "runs_y": ny,
    }


def neighbouring_matrices(
    K: int, block: int, lead: int | None = None
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The audit's pair of loss matrices: T = 4 * block - 1 rows (blocks 0 .. r+1); action 0
    has loss 0 everywhere and the others loss 1, except that in block r only the first
    ``lead`` rows keep that lead (the rest are all zeros).  x' changes the first row of block r
    from (0, 1, ..., 1) to (1, 0, ..., 0).  Returns (x, x', changed row index, r)."""
    r = block_index(block)
    lead = block if lead is None else int(lead)
    if not 1 <= lead <= block:
        raise InputError("lead", f"got {lead}", f"1 .. {block}")
    T = 4 * block - 1
    x = np.zeros((T, K))
    x[:, 1:] = 1.0
    start = block - 1
    x[start + lead : start + block, :] = 0.0
    xp = x.copy()
    xp[start] = 0.0
    xp[start, 0] = 1.0
    return x, xp, start, r


def default_lead(epsilon: float, block: int) -> int:
    """The leader's lead used by default: about 8/eps rounds (for the Laplace(2/eps) noisy
    minimum the runner-up then has probability of order e^-4, rare enough for the ratio to be
    near its supremum, frequent enough to be measured), capped by the block length."""
    return int(min(block, max(1, math.ceil(8.0 / epsilon))))


@dataclass
class StatisticalAudit(AuditResult):
    AUDIT = "statistical"

    K: int
    block: int
    lead: int
    runs: int
    alpha: float
    loss: float
    loss_lower: float
    loss_upper: float
    exact_loss: float
    bound_selection: float
    bound_eps: float
    violation: bool
    verdict: str
    event: int
    counts_x: list
    counts_x_prime: list
    witness_text: str
    law: str = ""


def audit_statistical(
    algorithm: str | BlockAlgorithm,
    epsilon: float | None = None,
    K: int = 2,
    block: int = 16,
    runs: int = 20000,
    seed: int = 0,
    alpha: float = 0.05,
    lead: int | None = None,
) -> StatisticalAudit:
    """Black-box audit: run the algorithm ``runs`` times on x and on x' (independent streams
    keyed by the audit parameters and each matrix) and bound the loss of A_(r+1)."""
    alg = audited(algorithm, epsilon)
    if not isinstance(alg, BlockAlgorithm):
        raise InputError("algorithm", f"{alg.name} is not a block algorithm", "block algorithms")
    if law_kind(alg) == "softmax_data_prefix":
        raise InputError(
            "method",
            "rps_data_prefix cannot run in the simulator (its prefix depends on the data)",
            "exact, sequence",
        )
    if int(runs) != runs or runs < 10:
        raise InputError("runs", f"got {runs}", "integers >= 10")
    if not 0 < alpha < 1:
        raise InputError("alpha", f"got {alpha}", "numbers in (0, 1)")
    if lead is None:
        lead = default_lead(float(alg.epsilon), block)
    x, xp, row, r = neighbouring_matrices(K, block, lead)
    sizes = {"K": int(K), "block": int(block), "lead": int(lead), "runs": int(runs)}
    counts = []
    for name, m in (("x", x), ("x_prime", xp)):
        env = ReplayLosses(m, source=name)
        params = StatisticalAudit.stream_key(alg, **sizes, seed=int(seed), **env.params())
        res = simulate(alg, env, m.shape[0], int(runs), params, mode="fast", keep_actions=True)
        counts.append(np.bincount(res.actions[:, r + 1], minlength=K))
    b = loss_bounds(counts[0], counts[1], alpha)
    start = block - 1
    lp = log_selection_law(alg, x[start : start + block], r)
    lq = log_selection_law(alg, xp[start : start + block], r)
    exact = float(pair_loss(lp, lq)[0])
    eps = float(alg.epsilon)
    violation = b["lower"] > eps
    return StatisticalAudit.of(
        alg,
        **sizes,
        alpha=float(alpha),
        loss=b["point"],
        loss_lower=b["lower"],
        loss_upper=b["upper"],
        exact_loss=exact,
        bound_selection=lemma3_bound(alg),
        bound_eps=eps,
        violation=bool(violation),
        verdict="violation" if violation else "no violation detected at this power",
        event=b["event"],
        counts_x=counts[0].tolist(),
        counts_x_prime=counts[1].tolist(),
        witness_text=(
            f"time {row + 1} (block {r}): {_vec(x[row])} -> {_vec(xp[row])}; "
            f"event A_{r + 1} = {b['event']}"
        ),
        law=law_kind(alg),
    )


def _vec(v) -> str:
    return "(" + ", ".join(f"{float(a):g}" for a in v) + ")"
