"""Exact-engine benchmarks: wall time of one exact cell, checkpoints 2^1-1..2^30-1.

    python benchmarks/bench_exact.py            # one JSON line per (algorithm, instance)
    python benchmarks/bench_exact.py --horizon-exp 60
    python benchmarks/bench_exact.py --targets --horizon-exp 40   # the acceptance targets
    python benchmarks/bench_exact.py --batch-p --horizon-exp 40   # softmax.BATCH_P's choice

The acceptance targets (``--targets``, checkpoints up to 2^40 - 1): rps on the standard instance
with K = 4096, gap 2^-10, eps 2^-7 in <= 1 s; rps on K = 1024 distinct means (the staircase)
in <= 10 s (rnm_ftnl and wu_wang on it are reported too).

Pinned to one core (sched_setaffinity); the best of ``--repeat`` runs, as wall time and as CPU
time of the process (the latter less sensitive to other load; the 1-minute load average is
printed too).  The numbers on the docs' performance page come from this command.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import time

import numpy as np

from privdtol.engine import exact
from privdtol.engine.exact import expected_regret
from privdtol.environments import instance_means

CASES = [  # (algorithm, instance, K, gap, eps)
    ("rps", "standard", 2, 0.5, 1.0),
    ("rps", "standard", 1024, 1 / 32, 1 / 16),
    ("rps", "standard", 65536, 1 / 1024, 0.001),
    ("rps", "staircase", 64, 1 / 32, 0.5),
    ("rnm_ftnl", "standard", 65536, 1 / 1024, 0.001),
    ("rnm_ftnl", "staircase", 64, 1 / 32, 0.5),
    ("wu_wang_gumbel", "standard", 4096, 1 / 128, 8.0),
]
TARGETS = [  # the acceptance targets (run with --horizon-exp 40)
    ("rps", "standard", 4096, 2.0**-10, 2.0**-7),
    ("rps", "staircase", 1024, 1 / 32, 0.5),
    ("rnm_ftnl", "staircase", 1024, 1 / 32, 0.5),
    ("wu_wang", "staircase", 1024, 1 / 32, 0.5),
]

#: ``--batch-p``: rps, K = 16, gaps 2^-10 (a worst-instance search's Delta_min) and 2^-5, at
#: eps = 1/4, 1/16, 1/32, 1/128 (polyphase p = 3, 12, 25, 102), each timed with every row
#: convolved row by row and with all rows in one block-Toeplitz product (softmax.BATCH_P)
BATCH_CASES = [
    ("rps", "standard", 16, g, e)
    for g in (2.0**-10, 2.0**-5)
    for e in (1 / 4, 1 / 16, 1 / 32, 1 / 128)
]


def _set_batch_p(value: int) -> None:
    """Force :data:`privdtol.engine.exact.softmax.BATCH_P` (and drop the cached grids)."""
    from privdtol.engine.exact import softmax

    softmax.BATCH_P = value
    softmax._grid.cache_clear()
    softmax._dense_full.cache_clear()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--horizon-exp", type=int, default=30, help="largest checkpoint 2^k - 1")
    p.add_argument("--targets", action="store_true", help="the acceptance targets only")
    p.add_argument("--only", default=None, help="comma-separated algorithms to keep")
    p.add_argument(
        "--batch-p", action="store_true", help="the polyphase cases, row by row and batched"
    )
    args = p.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    horizons = (1 << np.arange(1, args.horizon_exp + 1, dtype=np.int64)) - 1
    cases = TARGETS if args.targets else CASES
    modes = [None]
    if args.batch_p:
        from privdtol.engine.exact import softmax

        cases, modes = BATCH_CASES, [0, 1 << 20]  # row by row; batched whatever p
        default_p = softmax.BATCH_P
    if args.only:
        cases = [c for c in cases if c[0] in args.only.split(",")]
    expected_regret("rps", [0.25, 0.5], 1.0, [(1 << 30) - 1])  # warm-up: imports, caches
    for (alg, instance, K, gap, eps), mode in itertools.product(cases, modes):
        if mode is not None:
            _set_batch_p(mode)
            expected_regret(alg, instance_means(K, 0.5, None, instance), eps, [1 << 10])
        means = instance_means(K, gap, None, instance)
        best = best_cpu = float("inf")
        for _ in range(args.repeat):
            exact._RECENT.clear()  # computed, not the last result of this law
            start, cpu = time.perf_counter(), time.process_time()
            regret, error = expected_regret(alg, means, eps, horizons)
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        print(
            json.dumps(
                {
                    "bench": "exact",
                    "algorithm": alg,
                    "instance": instance,
                    "K": K,
                    "gap": gap,
                    "epsilon": eps,
                    "T": int(horizons[-1]),
                    "regret": float(regret[-1]),
                    "error_bound": float(error[-1]),
                    "seconds": round(best, 3),
                    "cpu_seconds": round(best_cpu, 3),  # less sensitive to other load
                    "load_average": round(os.getloadavg()[0], 2),
                    "machine": platform.machine(),
                    **({} if mode is None else {"batched": bool(mode), "BATCH_P": default_p}),
                }
            )
        )


if __name__ == "__main__":
    main()
