"""``privdtol optimal``: the true floor OPT_T of one two-level instance
(:mod:`privdtol.engine.optimal`), the smallest placement-averaged pseudo-regret of any
event-level ε-DP online algorithm, by a linear program solved with HiGHS, as one JSON object."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: the keys of the JSON object, in order
KEYS = (
    "K",
    "mu",
    "gap",
    "epsilon",
    "horizon",
    "optimal",
    "status",
    "duality_gap",
    "variables",
    "rows",
    "first_decisions",
)


def add_parser(sub):
    p = sub.add_parser(
        "optimal",
        help="the best regret any ε-DP algorithm can reach on a small instance (exact LP)",
        description="Compute OPT_T, the smallest pseudo-regret, averaged over the place of the "
        "best action, of any event-level ε-DP online algorithm on the instance with one action "
        "at mean loss mu - gap and K - 1 at mu (independent Bernoulli losses), exactly: a "
        "linear program over the algorithm's law of action sequences (sequence form), solved "
        "by HiGHS.  --epsilon inf drops the privacy constraint (the Bayes rule).  Problems "
        "beyond the budget are refused, naming the largest horizon solvable at that K.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--K", type=int, required=True, help="number of actions (>= 2)")
    p.add_argument("--mu", type=float, required=True, help="mean loss of the K - 1 others")
    p.add_argument("--gap", type=float, required=True, help="gap Δ, in (0, 1], <= mu")
    p.add_argument("--epsilon", type=float, required=True, help="privacy ε >= 0, or inf")
    p.add_argument("--horizon", type=int, required=True, help="horizon T >= 1")
    p.add_argument("--out", help="output JSON file; default: print it")
    p.set_defaults(handler=run)
    add_table_parser(sub)


def run(args) -> int:
    from privdtol.engine.optimal import optimal
    from privdtol.engine.optimal.size import check
    from privdtol.errors import InputError

    out = Path(args.out) if args.out else None
    if out is not None and out.suffix != ".json":
        raise InputError("out", f"unknown extension {out.suffix!r} in {out}", ".json")
    check(args.K, args.mu, args.gap, args.epsilon, args.horizon)
    record = optimal(args.K, args.mu, args.gap, args.epsilon, args.horizon)
    if record["epsilon"] == float("inf"):
        record["epsilon"] = "inf"  # JSON has no infinity
    text = json.dumps({k: record.get(k) for k in KEYS}, indent=2, allow_nan=False) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        from privdtol.pipeline.io import atomic_path

        with atomic_path(out) as tmp:
            tmp.write_text(text, encoding="utf-8")
        print(f"OPT_T {record['optimal']} ({record['status']}) -> {out}", file=sys.stderr)
    return 0 if record["status"] == "optimal" else 1


def add_table_parser(sub):
    t = sub.add_parser(
        "floor-table",
        help="the floor experiment: OPT_T, LB_T and every private algorithm's exact Reg_T",
        description="At every cell (K, gap, epsilon) of the config's floor: block (the "
        "standard two-level instance) and every horizon up to the largest its budget solves: "
        "OPT_T (the exact linear program of `privdtol optimal`), the lower bound LB_T and its "
        "terms, and the exact Reg_T of every registered private algorithm, of follow-the-leader "
        "and of rps_hot (the controls); one row per (cell, horizon, algorithm).",
    )
    t.add_argument("--grid-json", required=True, help="the floor: block as JSON")
    t.add_argument("--out", required=True, action="append", help=".parquet or .csv (repeatable)")
    t.set_defaults(handler=run_table)


def run_table(args) -> int:
    from privdtol.errors import InputError
    from privdtol.pipeline.floor import check_floor_block, floor_table
    from privdtol.pipeline.io import write_table

    outs = [Path(o) for o in args.out]
    for out in outs:
        if out.suffix not in (".parquet", ".csv"):
            raise InputError("out", f"unknown extension {out.suffix!r} in {out}", ".parquet, .csv")
    try:
        block = json.loads(args.grid_json)
    except json.JSONDecodeError as err:
        raise InputError("grid-json", f"not JSON: {err.msg}", "a JSON object") from None
    table = floor_table(check_floor_block(block))
    for out in outs:
        write_table(table, out)
    cells = table[["K", "gap", "epsilon"]].drop_duplicates()
    print(
        f"floor: {len(cells)} cells, {len(table)} rows -> {', '.join(map(str, outs))}",
        file=sys.stderr,
    )
    return 0
