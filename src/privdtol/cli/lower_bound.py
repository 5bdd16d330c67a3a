"""``privdtol lower-bound``: the explicit lower bound on the pseudo-regret of every ε-DP
algorithm on the two-level instance (``--K --mu --gap``,
:func:`privdtol.core.lower_bound.lower_bound`) or on any mean vector (``--means``, Bernoulli or
deterministic losses, :func:`privdtol.core.lower_bound_means.lower_bound_means`) at one
horizon, as one JSON object: the statistical (Fano) and privacy (group privacy) parts, their
maximum round by round (``combined``), the two-point (Bretagnolle-Huber) part and the best of
the three round by round (``best``, the bound the pipeline's checks use), each a certified lower
value with the width of its sandwich."""

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
    "statistical",
    "privacy",
    "combined",
    "two_point",
    "best",
    "statistical_error",
    "privacy_error",
    "combined_error",
    "two_point_error",
    "best_error",
    "exact",
)
#: the keys for an instance given by ``--means`` (``gap`` is Delta_min = mu_2 - mu_1)
MEANS_KEYS = ("means", "K", "model", "gap", *KEYS[3:])


def add_parser(sub):
    p = sub.add_parser(
        "lower-bound",
        help="an explicit lower bound on the regret of every ε-DP algorithm (Corollary 1)",
        description="Compute LB_T = gap * sum_(t<=T) max(0, s_t, p_t), a lower bound on the "
        "pseudo-regret of every ε-DP algorithm on the instance with one action at mu - gap and "
        "K - 1 at mu (Bernoulli losses): s_t from Fano's inequality, p_t from group privacy; "
        "and with the two-point (Bretagnolle-Huber) term b_t, best = gap * sum max(0, s_t, p_t, "
        "b_t). Each value is certified from below, with the width of its sandwich as the error. "
        "--means gives any instance instead (its own bound: the best action's placement against "
        "each other action's, docs/lower-bound.md).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--K", type=int, help="number of actions (>= 2), with --mu and --gap")
    p.add_argument("--mu", type=float, help="mean loss of the K - 1 others")
    p.add_argument("--gap", type=float, help="gap Δ, in (0, 1], <= mu")
    p.add_argument(
        "--means",
        help="instead of --K --mu --gap: every action's mean loss, comma-separated, in [0, 1] "
        "with a single smallest (e.g. 0.25,0.375,0.5,0.5)",
    )
    p.add_argument(
        "--model",
        default="bernoulli",
        help="with --means: the losses, bernoulli (independent coordinates) or deterministic",
    )
    p.add_argument("--epsilon", type=float, required=True, help="privacy ε > 0")
    p.add_argument("--horizon", type=int, required=True, help="horizon T, 1 to 2^40 - 1")
    p.add_argument("--out", help="output JSON file; default: print it")
    p.set_defaults(handler=run)
    t = sub.add_parser(
        "lower-bound-table",
        help="LB_T at every standard-instance cell and checkpoint of the regret experiments",
        description="Compute the best lower bound (and its parts) at every standard-instance "
        "cell and checkpoint horizon of the aggregated regret experiments in --agg-dir, once "
        "per run: the table the lower-bound claims (C6, C7), the notebooks and the finding "
        "read (privdtol.analysis.price.bounds_table).",
    )
    t.add_argument("--agg-dir", required=True, help="directory of the aggregated tables")
    t.add_argument("--out", required=True, action="append", help=".parquet or .csv (repeatable)")
    t.add_argument("--jobs", type=int, default=1, help="processes sharing the instances (>= 1)")
    t.set_defaults(handler=run_table)


def run(args) -> int:
    from privdtol.core.lower_bound import lower_bound
    from privdtol.errors import InputError

    out = Path(args.out) if args.out else None
    if out is not None and out.suffix != ".json":
        raise InputError("out", f"unknown extension {out.suffix!r} in {out}", ".json")
    two = {"K": args.K, "mu": args.mu, "gap": args.gap}
    if args.means is not None:
        given = [k for k, v in two.items() if v is not None]
        if given:
            raise InputError(given[0], "given with --means", "either --means or --K --mu --gap")
        record, keys = _means_record(args), MEANS_KEYS
    else:
        missing = [k for k, v in two.items() if v is None]
        if missing:
            raise InputError(missing[0], "missing", "--K, --mu and --gap together, or --means")
        if args.model != "bernoulli":
            raise InputError("model", f"got {args.model!r} without --means", "bernoulli")
        row = lower_bound(args.K, args.mu, args.gap, args.epsilon, [args.horizon]).iloc[0]
        record = two | {"epsilon": args.epsilon, "horizon": int(row["horizon"])}
        record |= {name: float(row[name]) for name in KEYS[5:-1]} | {"exact": bool(row["exact"])}
        keys = KEYS
    text = json.dumps({k: record[k] for k in keys}, indent=2, allow_nan=False) + "\n"
    if out is None:
        sys.stdout.write(text)
        return 0
    from privdtol.pipeline.io import atomic_path

    with atomic_path(out) as tmp:
        tmp.write_text(text, encoding="utf-8")
    print(
        f"lower bound {record['best']:.6g} (+ {record['best_error']:.2g}) -> {out}",
        file=sys.stderr,
    )
    return 0


def _means_record(args) -> dict:
    """The JSON record of the instance ``--means`` (validated before any work)."""
    from privdtol.core.lower_bound_means import check_means, lower_bound_means
    from privdtol.errors import InputError

    try:
        values = [float(v) for v in args.means.split(",")]
    except ValueError:
        raise InputError("means", f"got {args.means!r}", "comma-separated numbers") from None
    mu = check_means(values, args.model)
    row = lower_bound_means(values, args.epsilon, [args.horizon], args.model).iloc[0]
    record = {"means": values, "K": len(values), "model": args.model}
    record |= {"gap": float(mu[1] - mu[0]), "epsilon": args.epsilon}
    record |= {"horizon": int(row["horizon"]), "exact": bool(row["exact"])}
    return record | {name: float(row[name]) for name in KEYS[5:-1]}


def run_table(args) -> int:
    from privdtol.analysis.cells import stack
    from privdtol.analysis.claim_types import LOWER_EXPERIMENTS
    from privdtol.analysis.price import bounds_table
    from privdtol.analysis.records import load_agg
    from privdtol.errors import InputError
    from privdtol.pipeline.io import write_table

    outs = [Path(o) for o in args.out]
    for out in outs:
        if out.suffix not in (".parquet", ".csv"):
            raise InputError("out", f"unknown extension {out.suffix!r} in {out}", ".parquet, .csv")
    if args.jobs < 1:
        raise InputError("jobs", f"got {args.jobs}", "integers >= 1")
    tables = load_agg(args.agg_dir, LOWER_EXPERIMENTS)
    table = bounds_table(stack(tables), args.jobs)
    for out in outs:
        write_table(table, out)
    print(
        f"lower bounds of {len(table[['K', 'mu', 'gap', 'epsilon']].drop_duplicates())} "
        f"instances at {len(table)} (instance, horizon) pairs -> {', '.join(map(str, outs))}",
        file=sys.stderr,
    )
    return 0
