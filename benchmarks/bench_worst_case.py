"""Worst-instance search benchmarks: CPU seconds of one exact evaluation of the
search (:class:`privdtol.engine.worst_case.evaluate.Evaluator`: the regret at T = 2^40 - 1 to
the ranking tolerance, LB_T and the ratios) on random instances of the free family, and of one
whole search.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_worst_case.py           # per evaluation
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_worst_case.py --search  # whole searches

Pinned to one core (sched_setaffinity; with one BLAS thread, as above: a second thread's
spinning would count in the process's CPU time).  The numbers on the docs' performance page
come from this command.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time

import numpy as np

from privdtol.engine.worst_case import families as fam
from privdtol.engine.worst_case.evaluate import Evaluator
from privdtol.engine.worst_case.search import search

ALGORITHMS = ("rps", "rnm_ftnl", "wu_wang_gumbel")
CASES = [  # (K, gap, eps)
    (4, 2.0**-6, 1.0),
    (16, 2.0**-6, 1 / 16),
    (4, 2.0**-10, 1.0),
    (64, 2.0**-10, 1 / 16),
]


def per_evaluation(algorithm, K, gap, eps, n) -> float:
    """Mean seconds of ``n`` evaluations of random instances (every gap free)."""
    rng = np.random.default_rng(0)
    ev = Evaluator(algorithm, K, gap, eps)
    x = rng.random((n, K - 1))
    ev.evaluate(fam.means_of(fam.Candidate("free", (), tuple(x[0])), K, gap, 0.125), "w", "w")
    start = time.process_time()
    for row in x[1:]:
        c = fam.Candidate("free", (), tuple(row))
        ev.evaluate(fam.means_of(c, K, gap, 0.125), "bench", "free")
    return (time.process_time() - start) / (n - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=11, help="evaluations per case")
    parser.add_argument("--search", action="store_true", help="whole searches, K 4 and 16")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if args.search:
        for algorithm, K, eps in itertools.product(ALGORITHMS, (4, 16), (1.0, 1 / 16)):
            start = time.process_time()
            result, _ = search(algorithm, K, 2.0**-6, eps, budget=200, unseen=20)
            line = {"algorithm": algorithm, "K": K, "gap": 2.0**-6, "epsilon": eps}
            line.update(evaluations=result["evaluations"], seconds=time.process_time() - start)
            rounded = {**line, "seconds": round(line["seconds"], 2)}
            print(json.dumps(rounded))
        return
    for algorithm in ALGORITHMS:
        for K, gap, eps in CASES:
            seconds = per_evaluation(algorithm, K, gap, eps, args.n)
            print(
                json.dumps(
                    {
                        "algorithm": algorithm,
                        "K": K,
                        "gap": gap,
                        "epsilon": eps,
                        "seconds_per_evaluation": round(seconds, 3),
                    }
                )
            )


if __name__ == "__main__":
    main()
