"""Any claim asked of any algorithm: the rate claims of the registry (:attr:`Claim.rate`:
horizon-freeness, the rate form, its exponents and Corollary 1's boundedness) run on every
private algorithm the configuration simulates in their experiments, plugins included.  The
paper proves them for RPS only; whether RNM-FTNL (Hu et al. 2021) or Wu & Wang's algorithm
meets them on the same grid is the separation question the paper raises.  One table,
``results/checks/by_algorithm.json``; one record on demand with ``privdtol check --claim ID
--algorithm NAME``.
"""

from __future__ import annotations

from pathlib import Path

from privdtol.analysis.records import load_agg, plain
from privdtol.analysis.registry import CLAIMS, experiment_algorithms


def rate_claims() -> list[str]:
    """The registry's rate claims, in registry order."""
    return [c.id for c in CLAIMS.values() if c.rate]


def private_algorithms(names) -> list[str]:
    """The private algorithms among ``names`` that are not negative controls (the paper's, the
    competitors and the ablations, plugins included), in registry order."""
    from privdtol.algorithms import ALGORITHMS

    return [
        a for a, cls in ALGORITHMS.items() if a in names and cls.private and cls.role != "control"
    ]


def by_algorithm_table(config: dict, agg_dir: Path) -> dict:
    """One row per (rate claim, private algorithm simulated in the claim's experiments): the
    verdict, statistic and interval of the claim's own rule on that algorithm's cells."""
    algs = experiment_algorithms(config)
    rows = []
    for claim_id in rate_claims():
        claim = CLAIMS[claim_id]
        tables = load_agg(Path(agg_dir), claim.experiments)
        if not tables:
            continue
        present = set().union(*(algs.get(e, set()) for e in claim.experiments))
        fn = claim.check_function()
        for alg in private_algorithms(present):
            rec = fn(tables, config["checks"], [], algorithm=alg)
            rows.append(
                {
                    "claim": claim_id,
                    "algorithm": alg,
                    "verdict": rec["verdict"],
                    "statistic": rec["statistic"],
                    "interval": rec["interval"],
                    "summary": rec["summary"],
                }
            )
    return plain({"claims": rate_claims(), "rows": rows})
