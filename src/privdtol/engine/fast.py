"""The simulation engine: exact-law block-sum simulation, vectorised over runs.

Block algorithms (Section 4 and competitors) only need the sums of the first ``prefix`` rounds
of each block, which loss models with an exact law sample in O(K): a run costs O(K log T).
Each block r is charged two unbiased estimates of its pseudo-regret
sum_(t in B_r ∩ [T]) E[Delta_(I_t)]:

- ``regret_realized``: ``|B_r ∩ [T]|`` · Delta_(A_r) (the gap of the action actually played);
- ``regret``: ``|B_r ∩ [T]|`` · sum_j Delta_j p_(r,j), with p_r the exact selection law of A_r
  given the past (Rao-Blackwellised, lower variance).  Where the law has no closed form (Laplace
  noise) ``regret`` equals ``regret_realized`` and the estimator says ``block_realized``.

Per-round algorithms (FTL, Hedge) choose I_t from L_(t-1) only.  Since E[Delta_(I_t)] depends on
the marginal law of L_(t-1) alone, block r is charged ``|B_r ∩ [T]|`` times the conditional regret
at one uniform time t in the block, with L_(t-1) drawn from its exact law (Binomial for Bernoulli
losses): unbiased, with no per-round loop (estimator ``uniform_round``).  Small problems, and
every shortcut's tests, use the explicit per-round path of :mod:`privdtol.engine.explicit`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privdtol.algorithms import Algorithm, BlockAlgorithm, RoundAlgorithm, sample_from
from privdtol.core import clock
from privdtol.core.seeding import seed_sequence
from privdtol.engine.explicit import simulate_chunk_explicit
from privdtol.engine.guard import blame, check_law, check_regret, check_sums
from privdtol.engine.selection import select_next
from privdtol.environments import LossModel
from privdtol.errors import InputError

#: runs x K elements processed at once
CHUNK_ELEMENTS = 1 << 21
#: below this many explicit draws (T · runs · K) "auto" mode takes the per-round path
EXPLICIT_BUDGET = 1 << 24
MODES = ("auto", "fast", "explicit")


@dataclass
class SimResult:
    """Per-run, per-checkpoint regrets (runs x checkpoints) and optional block actions."""

    checkpoints: np.ndarray
    regret: np.ndarray
    regret_realized: np.ndarray
    estimator: str
    actions: np.ndarray | None = None
    info: dict = field(default_factory=dict)


def chunk_sizes(runs: int, K: int) -> list[int]:
    """Deterministic split of ``runs`` into chunks of at most CHUNK_ELEMENTS / K runs."""
    size = max(1, CHUNK_ELEMENTS // K)
    return [min(size, runs - start) for start in range(0, runs, size)]


def resolve_mode(alg: Algorithm, env: LossModel, horizon: int, runs: int, mode: str) -> str:
    if mode not in MODES:
        raise InputError("mode", f"got {mode!r}", ", ".join(MODES))
    if mode != "auto":
        return mode
    if isinstance(alg, RoundAlgorithm) and horizon * runs * env.K <= EXPLICIT_BUDGET:
        return "explicit"
    if not env.exact_sums and horizon * runs * env.K <= EXPLICIT_BUDGET:
        return "explicit"
    return "fast"


def simulate(
    alg: Algorithm,
    env: LossModel,
    horizon: int,
    runs: int,
    seed_params: dict,
    mode: str = "auto",
    keep_actions: bool = False,
    progress: bool = False,
) -> SimResult:
    """Simulate ``runs`` independent runs of ``alg`` on ``env`` up to ``horizon``.

    ``seed_params`` are the parameters that key the random stream
    (see :mod:`privdtol.core.seeding`).
    """
    horizon = clock.check_horizon(horizon)
    if int(runs) != runs or runs < 1:
        raise InputError("runs", f"got {runs}", "integers >= 1")
    if env.max_rounds is not None and horizon > env.max_rounds:
        raise InputError(
            "horizon",
            f"{horizon} exceeds the {env.max_rounds} rounds of the loss file",
            f"horizon <= {env.max_rounds}",
        )
    if keep_actions and not isinstance(alg, BlockAlgorithm):
        raise InputError(
            "actions-out",
            f"{alg.name} is not a block algorithm",
            "block algorithms (they play one action per block)",
        )
    mode = resolve_mode(alg, env, horizon, runs, mode)
    sizes = chunk_sizes(runs, env.K)
    streams = seed_sequence(seed_params).spawn(len(sizes))
    bar = _progress(len(sizes) * clock.n_blocks(horizon), progress)
    parts = []
    for n, ss in zip(sizes, streams, strict=False):
        rng = np.random.Generator(np.random.PCG64(ss))
        step = simulate_chunk_explicit if mode == "explicit" else simulate_chunk_fast
        try:
            parts.append(step(alg, env, horizon, n, rng, bar))
        except Exception as err:  # an algorithm's or loss model's code (a plugin's): one line
            failure = blame(alg, env, err)
            if failure is None:
                raise
            raise failure from None
    if bar is not None:
        bar.close()
    rb = np.vstack([p[0] for p in parts])
    real = np.vstack([p[1] for p in parts])
    acts = np.vstack([p[2] for p in parts]) if keep_actions else None
    horizons, covered = clock.checkpoints(horizon)
    check_regret(alg, env, rb)
    return SimResult(
        checkpoints=horizons,
        regret=np.cumsum(rb, axis=1)[:, covered - 1],
        regret_realized=np.cumsum(real, axis=1)[:, covered - 1],
        estimator=_estimator(alg, mode, parts),
        actions=acts,
        info={"mode": mode, "chunks": len(sizes)},
    )


def _estimator(alg, mode, parts) -> str:
    if mode == "explicit":
        return "per_round"
    if isinstance(alg, RoundAlgorithm):
        return "uniform_round"
    return "block_rb" if all(p[3] for p in parts) else "block_realized"


def _progress(total, enabled):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="block", leave=False)


def simulate_chunk_fast(alg, env, horizon, n, rng, bar):
    """Block-sum engine for one chunk of runs: returns per-block charges (rb, realized),
    the block actions, and whether every law was explicit."""
    lengths = clock.block_lengths(horizon)
    gaps = env.gaps
    R = lengths.size
    rb = np.empty((n, R))
    real = np.empty((n, R))
    actions = np.empty((n, R), dtype=np.int64)
    explicit_law = True
    if isinstance(alg, BlockAlgorithm):
        probs = np.full((n, env.K), 1.0 / env.K)
        act = rng.integers(0, env.K, size=n)
        for r in range(R):
            rb[:, r] = lengths[r] * (probs @ gaps)
            real[:, r] = lengths[r] * gaps[act]
            actions[:, r] = act
            if r + 1 < R:
                m = alg.prefix_lengths(rng, r, n)
                start = clock.block_start(r) - 1
                draw = env.resampled_window_sums if alg.resampled else env.window_sums
                sums = check_sums(env, draw(rng, start, m), m)
                act, probs, explicit = select_next(alg, rng, sums, r)
                explicit_law = explicit_law and explicit
            if bar is not None:
                bar.update()
    else:
        for r in range(R):
            first = clock.block_start(r)
            t = first + rng.integers(0, lengths[r], size=n)  # uniform t in B_r ∩ [T]
            law = alg.law(check_sums(env, env.window_sums(rng, 0, t - 1), t - 1), t)
            check_law(alg, law, n, env.K, f"law in block {r}")
            rb[:, r] = lengths[r] * (law @ gaps)
            real[:, r] = lengths[r] * gaps[sample_from(rng, law)]
            actions[:, r] = -1
            if bar is not None:
                bar.update()
    return rb, real, actions, explicit_law
