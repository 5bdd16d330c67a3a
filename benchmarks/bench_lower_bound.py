"""Lower-bound benchmarks: wall time of LB_T at every checkpoint 2^k - 1 (k = 1..40)
of one standard instance (mu = 1/2 + gap/2), :func:`privdtol.core.lower_bound.lower_bound`.

    python benchmarks/bench_lower_bound.py          # one JSON line per instance
    python benchmarks/bench_lower_bound.py --grid   # the default config's instances, summed

Pinned to one core (sched_setaffinity); the best of ``--repeat`` runs.  The numbers on the
docs' performance page come from this command.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from privdtol.core.lower_bound import lower_bound

CASES = [  # (K, gap, eps)
    (2, 0.5, 1.0),
    (8, 0.5, 1 / 64),
    (512, 2.0**-7, 1 / 64),
    (4096, 2.0**-10, 1 / 64),
    (65536, 2.0**-10, 2.0**-12),  # the paper configuration's corner
]
CHECKPOINTS = [(1 << k) - 1 for k in range(1, 41)]


def timed(K, gap, eps, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        row = lower_bound(K, 0.5 + gap / 2, gap, eps, CHECKPOINTS).iloc[-1]
        best = min(best, time.perf_counter() - start)
    return best, row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--grid", action="store_true", help="the default config's instances")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if args.grid:
        Ks, gaps = (2, 8, 64, 512), (0.5, 0.125, 2.0**-5, 2.0**-7)
        epss = (4.0, 1.0, 0.25, 2.0**-4, 2.0**-6)
        start = time.perf_counter()
        for K in Ks:
            for g in gaps:
                for e in epss:
                    lower_bound(K, 0.5 + g / 2, g, e, CHECKPOINTS)
        n = len(Ks) * len(gaps) * len(epss)
        print(json.dumps({"grid_instances": n, "seconds": round(time.perf_counter() - start, 2)}))
        return
    for K, gap, eps in CASES:
        seconds, row = timed(K, gap, eps, args.repeat)
        print(
            json.dumps(
                {
                    "K": K,
                    "gap": gap,
                    "epsilon": eps,
                    "seconds": round(seconds, 3),
                    "best": round(float(row["best"]), 4),
                    "relative_error": float(row["best_error"] / row["best"]),
                }
            )
        )


if __name__ == "__main__":
    main()
