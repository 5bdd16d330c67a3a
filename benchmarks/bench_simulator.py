"""Simulator benchmarks (issue: the privdtol library).

    python benchmarks/bench_simulator.py rps   # rps, K=1024, gap 0.05, eps 0.1, T=2^30-1, 2000 runs
    python benchmarks/bench_simulator.py speedup   # block-sum vs explicit per-round at T=2^20-1

Each run is pinned to one core (sched_setaffinity) and prints one JSON line; numbers in the
README come from these commands.  Wall-clock timings depend on the machine and its load: run on
an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from privdtol.algorithms import make_algorithm
from privdtol.engine.fast import simulate
from privdtol.environments import BernoulliProduct, standard_means


def _pin_one_core():
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def _timed(alg, env, horizon, runs, mode, repeat):
    best, result = float("inf"), None
    for i in range(repeat):
        start = time.perf_counter()
        result = simulate(alg, env, horizon, runs, {"bench": mode, "i": i}, mode=mode)
        best = min(best, time.perf_counter() - start)
    return best, result


def bench_rps(repeat: int) -> dict:
    env = BernoulliProduct(standard_means(1024, 0.05))
    alg = make_algorithm("rps", 0.1)
    seconds, res = _timed(alg, env, (1 << 30) - 1, 2000, "fast", repeat)
    return {
        "benchmark": "rps_K1024_T2^30",
        "seconds_best_of": repeat,
        "seconds": seconds,
        "target_seconds": 5.0,
        "mean_regret": float(res.regret[:, -1].mean()),
    }


def bench_speedup(K: int, runs: int) -> dict:
    env = BernoulliProduct(standard_means(K, 0.1))
    alg = make_algorithm("rps", 1.0)
    horizon = (1 << 20) - 1
    fast_s, fast = _timed(alg, env, horizon, runs, "fast", 5)
    slow_s, slow = _timed(alg, env, horizon, runs, "explicit", 1)
    diff = fast.regret[:, -1].mean() - slow.regret[:, -1].mean()
    se = np.hypot(fast.regret[:, -1].std(ddof=1), slow.regret[:, -1].std(ddof=1)) / np.sqrt(runs)
    return {
        "benchmark": "speedup_T2^20",
        "K": K,
        "runs": runs,
        "fast_seconds": fast_s,
        "explicit_seconds": slow_s,
        "speedup": slow_s / fast_s,
        "target_speedup": 10_000,
        "regret_difference_in_se": float(diff / se),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", choices=["rps", "speedup"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--K", type=int, default=16)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    _pin_one_core()
    out = bench_rps(args.repeat) if args.which == "rps" else bench_speedup(args.K, args.runs)
    out.update(
        machine=platform.machine(),
        python=platform.python_version(),
        numpy=np.__version__,
        cpus=os.cpu_count(),
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
