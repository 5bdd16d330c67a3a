"""``privdtol simulate``: one cell, written as a tidy table (CSV or Parquet by extension)."""

from __future__ import annotations

import argparse
import sys

from privdtol.algorithms import ALGORITHMS
from privdtol.engine.fast import MODES
from privdtol.engine.runner import CellSpec, make_spec, run_cell
from privdtol.environments import INSTANCES, MODELS
from privdtol.errors import InputError
from privdtol.pipeline.io import check_table_path, write_table


def add_parser(sub):
    p = sub.add_parser(
        "simulate",
        help="simulate one algorithm on one instance",
        description="Simulate runs of one algorithm; one output row per run and checkpoint "
        "horizon 2^k - 1 <= T (plus T).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--algorithm", required=True, choices=list(ALGORITHMS))
    p.add_argument("--epsilon", type=float, help="privacy level (required for private ones)")
    inst = p.add_argument_group("instance: --means, or --K and --gap")
    inst.add_argument("--means", help="comma-separated mean losses, e.g. 0.4,0.6")
    inst.add_argument("--K", type=int, help="number of actions of a generated instance")
    inst.add_argument("--gap", type=float, help="Delta_min of a generated instance")
    inst.add_argument("--mu-best", type=float, help="best mean (default 1/2 - gap/2)")
    inst.add_argument("--instance", choices=INSTANCES, default="standard")
    p.add_argument("--env", choices=list(MODELS), default="bernoulli", help="loss model")
    p.add_argument("--rho", type=float, default=0.5, help="shared-shock probability (correlated)")
    p.add_argument("--kappa", type=float, default=2.0, help="Beta concentration (beta)")
    p.add_argument("--losses", help="CSV loss matrix, T rows x K columns (replay)")
    p.add_argument("--horizon", type=int, required=True)
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--mode",
        choices=MODES,
        default="auto",
        help="fast: exact block sums; explicit: per-round reference",
    )
    p.add_argument("--out", required=True, help="output table (.csv or .parquet)")
    p.add_argument("--actions-out", help="also write block actions (run, block, action)")
    p.set_defaults(handler=run)


def parse_means(text: str):
    try:
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise InputError(
            "means", f"not a list of numbers: {text!r}", "comma-separated numbers in [0, 1]"
        ) from None


def spec_from_args(args) -> CellSpec:
    alg = ALGORITHMS[args.algorithm]
    if alg.private and args.epsilon is None:
        raise InputError("epsilon", f"{args.algorithm} is private and needs it", "numbers > 0")
    given = {}  # replay: no means (the loss file is the instance)
    if args.env == "replay":
        if args.losses is None:
            raise InputError("losses", "--env replay needs a loss file", "a CSV path")
    elif args.means is not None:
        if args.K is not None or args.gap is not None:
            raise InputError("means", "given together with --K/--gap", "one of the two forms")
        given = {"means": parse_means(args.means)}
    elif args.K is not None and args.gap is not None:
        given = {"K": args.K, "gap": args.gap, "mu_best": args.mu_best}
    else:
        raise InputError("means", "no instance given", "--means LIST, or --K N --gap G")
    spec = make_spec(  # generates the instance: its errors come before those of --runs
        args.algorithm,
        args.epsilon,
        args.horizon,
        args.runs,
        **given,
        instance=args.instance,
        env=args.env,
        rho=args.rho,
        kappa=args.kappa,
        losses=args.losses,
        seed=args.seed,
        mode=args.mode,
    )
    if args.runs < 1:
        raise InputError("runs", f"got {args.runs}", "integers >= 1")
    return spec


def run(args) -> int:
    spec = spec_from_args(args)
    out = check_table_path(args.out, "out")
    acts_out = check_table_path(args.actions_out, "actions-out") if args.actions_out else None
    table, actions, result = run_cell(
        spec, progress=sys.stderr.isatty(), keep_actions=acts_out is not None
    )
    write_table(table, out)
    if acts_out is not None:
        write_table(actions, acts_out)
    final = table[table.horizon == table.horizon.max()]
    se = final.regret.std(ddof=1) / max(1, len(final)) ** 0.5 if len(final) > 1 else float("nan")
    print(
        f"{spec.algorithm}: K={final.K.iloc[0]} gap={final.gap.iloc[0]:.6g} "
        f"T={int(final.horizon.iloc[0])} runs={spec.runs} estimator={result.estimator} "
        f"regret={final.regret.mean():.6g} ± {1.96 * se:.3g} (95% CI) -> {out}",
        file=sys.stderr,
    )
    return 0
