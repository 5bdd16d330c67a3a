"""``privdtol worst-case``: the instances a search finds closest to the bounds for one
algorithm and (K, Delta_min, eps) (:mod:`privdtol.engine.worst_case`), every candidate computed
exactly; and
``privdtol searches-table``, the pipeline's table of search results."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from privdtol.errors import InputError


def add_parser(sub):
    from privdtol.engine.worst_case import DEFAULT_HORIZON, FAMILIES, FREE_MAX_K, OBJECTIVES

    p = sub.add_parser(
        "worst-case",
        help="search the instances of one (K, gap, eps) for those closest to the bounds",
        description="For one algorithm and (K, Delta_min, eps), search over instances "
        f"(families: {', '.join(FAMILIES)}; every gap free up to K = {FREE_MAX_K}; the best "
        "mean free; one action at exactly Delta_min) for the extreme ratios "
        f"({', '.join(OBJECTIVES)}): the largest Reg_T / Theorem 1's bound, and the largest "
        "and smallest Reg_T / LB_T, the explicit lower bound of every eps-DP algorithm on the "
        "instance itself (privdtol lower-bound --means); every candidate computed "
        "exactly, at the horizon T (default: the engine's largest, where Reg_T has reached "
        "its limit over T).  Deterministic for a seed.  The values found bound the extremes "
        "over instances; they are not the extremes.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--algorithm", default="rps", help="an algorithm of the exact engine")
    p.add_argument("--K", type=int, required=True, help="number of actions (>= 2)")
    p.add_argument("--gap", type=float, required=True, help="Delta_min (0 < gap < 1)")
    p.add_argument("--epsilon", type=float, required=True, help="privacy level (> 0)")
    p.add_argument("--budget", type=int, default=250, help="exact evaluations (>= 12)")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (>= 0)")
    p.add_argument("--unseen", type=int, default=40, help="instances tried after the search")
    p.add_argument(
        "--tolerance",
        type=float,
        default=1e-3,
        help="relative margin an unseen instance must exceed to beat the search",
    )
    p.add_argument("--horizon", type=int, default=DEFAULT_HORIZON, help="T of Reg_T")
    p.add_argument(
        "--objectives",
        default="theorem1,lower_max,lower_min",
        help=f"comma-separated, of {', '.join(OBJECTIVES)} (eq6: the large-gap part of "
        "Lemma 5 over eq. (6)'s bound, softmax rules only)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="refuse a search whose estimated single-core time (the exact engine's cost model "
        "times its evaluations) is larger (default: an hour, 3600)",
    )
    p.add_argument("--out", help="result JSON (default: print it)")
    p.add_argument("--trace", help="CSV of every evaluated instance and its ratios")
    p.add_argument("--table", help="the instances' exact regret tables (.parquet/.csv)")
    p.add_argument("--proof", help="the theorem1 instance's proof terms (Lemmas 4-5), JSON")
    p.set_defaults(handler=run)

    t = sub.add_parser("searches-table", help="collect search results into one table")
    t.add_argument("--out", required=True, action="append", help=".parquet or .csv")
    t.add_argument("results", nargs="+", help="search result JSON files (with their traces)")
    t.set_defaults(handler=run_table)


def _check(args):
    from privdtol.core import clock
    from privdtol.engine.exact import EXACT_ALGORITHMS
    from privdtol.engine.exact.proof import PROOF_ALGORITHMS
    from privdtol.engine.worst_case import OBJECTIVES
    from privdtol.pipeline.io import check_table_path

    if args.algorithm not in EXACT_ALGORITHMS:
        raise InputError("algorithm", f"got {args.algorithm!r}", ", ".join(EXACT_ALGORITHMS))
    if args.K < 2:
        raise InputError("K", f"got {args.K}", "integers >= 2")
    if not (0 < args.gap < 1):
        raise InputError("gap", f"got {args.gap}", "0 < gap < 1")
    if not (args.epsilon > 0 and math.isfinite(args.epsilon)):
        raise InputError("epsilon", f"got {args.epsilon}", "a finite number > 0")
    _check_ranges(args)
    objectives = [o for o in args.objectives.split(",") if o]
    bad = [o for o in objectives if o not in OBJECTIVES] or ([] if objectives else [""])
    if bad or len(set(objectives)) != len(objectives):
        got = f"got {bad[0]!r}" if bad else f"got {args.objectives!r} (a repeat)"
        raise InputError("objectives", got, ", ".join(OBJECTIVES))
    if "eq6" in objectives and args.algorithm not in PROOF_ALGORITHMS:
        raise InputError(
            "objectives",
            f"eq6 of {args.algorithm!r}, not a softmax rule",
            ", ".join(PROOF_ALGORITHMS),
        )
    if not (args.tolerance >= 0 and math.isfinite(args.tolerance)):
        raise InputError("tolerance", f"got {args.tolerance}", "a finite number >= 0")
    clock.check_horizon(args.horizon)
    if args.out is not None and Path(args.out).suffix != ".json":
        raise InputError("out", f"unknown extension {Path(args.out).suffix!r}", ".json")
    if args.trace is not None and Path(args.trace).suffix != ".csv":
        raise InputError("trace", f"unknown extension {Path(args.trace).suffix!r}", ".csv")
    if args.table is not None:
        check_table_path(args.table, "table")
    if args.proof is not None:
        if Path(args.proof).suffix != ".json":
            raise InputError("proof", f"unknown extension {Path(args.proof).suffix!r}", ".json")
        if args.algorithm not in PROOF_ALGORITHMS:
            raise InputError(
                "proof", f"{args.algorithm!r} is not a softmax rule", ", ".join(PROOF_ALGORITHMS)
            )


def _check_ranges(args) -> None:
    """budget, seed and unseen within the ranges of the config's ``worst_case`` block (the one
    definition of each limit: the schema): a search's cost is its budget and unseen draws."""
    from privdtol.pipeline.config import load_schema

    keys = load_schema()["properties"]["worst_case"]["properties"]
    for name in ("budget", "seed", "unseen"):
        node, value = keys[name], getattr(args, name)
        low, high = node["minimum"], node.get("maximum", math.inf)
        if not low <= value <= high:
            allowed = f"integers {low} .. {high}" if high < math.inf else f"integers >= {low}"
            raise InputError(name, f"got {value}", f"{allowed} (worst_case.{name} in a config)")


def run(args) -> int:
    import json

    from privdtol.pipeline.worst_case import MAX_SECONDS, Search, write_search

    _check(args)
    search = Search(
        args.algorithm,
        args.K,
        args.gap,
        args.epsilon,
        args.horizon,
        args.budget,
        args.seed,
        args.unseen,
        args.tolerance,
        tuple(args.objectives.split(",")),
    )
    limit = MAX_SECONDS if args.max_seconds is None else args.max_seconds
    try:  # the search's cost is checked first (Search.check_cost): one line naming the limit
        if args.out is None:
            result, _ = search.run(limit)
            sys.stdout.write(json.dumps(result, indent=1, sort_keys=True) + "\n")
        else:
            result = write_search(search, args.out, args.trace, args.table, args.proof, limit)
    except InputError:
        raise
    except ValueError as err:  # the engine's limits (eta too small for its kernel)
        raise InputError("epsilon", str(err)) from None
    found = ", ".join(
        f"{name} {o['value']:.6g} (standard {o['standard_value']:.6g})"
        for name, o in result["objectives"].items()
    )
    print(
        f"worst-case {args.algorithm}: K={args.K} gap={args.gap:g} eps={args.epsilon:g}: "
        f"{found}; {result['evaluations']} evaluations" + (f" -> {args.out}" if args.out else ""),
        file=sys.stderr,
    )
    return 0


def run_table(args) -> int:
    from privdtol.pipeline.io import check_table_path, write_table
    from privdtol.pipeline.worst_case import searches_table

    outs = [check_table_path(o, "out") for o in args.out]
    table = searches_table(args.results)
    for out in outs:
        write_table(table, out)
    n = table["search_id"].nunique()
    print(
        f"searches-table: {n} searches, {len(table)} rows (one per objective) -> "
        + ", ".join(map(str, outs)),
        file=sys.stderr,
    )
    return 0
