"""Proof-terms benchmarks: CPU time of Lemma 5's sums for one instance, and of the
whole set of terms of ``privdtol lemmas`` (sums, restricted softmax, drift), one core.

    python benchmarks/bench_proof.py               # one JSON line per case
    python benchmarks/bench_proof.py --repeat 1

The cases span the default and paper grids: both regimes, K up to 4096, gaps down to 2^-16
(the paper's costliest cells), the staircase.  Pinned to one core (sched_setaffinity); the best
of ``--repeat`` runs of the process's CPU time.  The numbers on the docs' performance page come
from this command.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from privdtol.engine import exact
from privdtol.engine.exact import expected_regret
from privdtol.engine.exact.proof import proof_terms
from privdtol.environments import instance_means

CASES = [  # (algorithm, instance, K, gap, eps)
    ("rps", "standard", 8, 1 / 8, 8.0),
    ("rps", "standard", 512, 1 / 8, 1 / 64),
    ("rps", "standard", 4096, 1 / 2, 1 / 16),
    ("rps_eta_logk", "standard", 512, 1 / 2, 1 / 64),
    ("rps", "standard", 8, 2.0**-10, 8.0),
    ("rps", "standard", 16, 2.0**-16, 8.0),
    ("rps", "staircase", 64, 1 / 32, 0.5),
]


def _cpu(fn, args, repeat, **kwargs):
    """(best CPU seconds of ``fn(*args, **kwargs)`` over ``repeat`` runs, its value)."""
    best = float("inf")
    for _ in range(repeat):
        exact._RECENT.clear()  # computed, not the last result of this law
        t0 = time.process_time()
        out = fn(*args, **kwargs)
        best = min(best, time.process_time() - t0)
    return best, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    T = (1 << 30) - 1
    expected_regret("rps", [0.25, 0.5], 1.0, [(1 << 30) - 1])  # warm-up: imports, caches
    for alg, inst, K, gap, eps in CASES:
        means = instance_means(K, gap, None, inst)
        reg_s, reg = _cpu(expected_regret, (alg, means, eps, [T]), args.repeat)
        pair = (float(reg[0][0]), float(reg[1][0]))
        s, terms = _cpu(proof_terms, (alg, means, eps, T), args.repeat, regret=pair)
        row = {
            "algorithm": alg,
            "instance": inst,
            "K": K,
            "gap": gap,
            "epsilon": eps,
            "regret_cpu_s": round(reg_s, 3),
            "proof_cpu_s": round(s, 3),
            "sum_F": terms["sum_F"],
            "lemma4_ratio": terms["regret"] / terms["bounds"]["lemma4"],
            "load_1min": round(os.getloadavg()[0], 2),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
