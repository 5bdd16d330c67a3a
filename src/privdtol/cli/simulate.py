"""``privdtol simulate``: one cell, written as a tidy table (CSV or Parquet by extension)."""

from __future__ import annotations

import argparse
import sys

from privdtol.algorithms import ALGORITHMS
from privdtol.cli.common import add_cell_arguments, cell_spec_from_args
from privdtol.engine.fast import MODES
from privdtol.engine.runner import CellSpec, run_cell
from privdtol.environments import MODELS
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
    add_cell_arguments(p, list(ALGORITHMS), list(MODELS))
    p.add_argument("--runs", type=int, default=1000, help="independent runs (Monte Carlo)")
    p.add_argument(
        "--seed", type=int, default=0, help="base seed (each run's stream derives from it)"
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default="auto",
        help="fast: exact block sums; explicit: per-round reference",
    )
    p.add_argument("--out", required=True, help="output table (.csv or .parquet)")
    p.add_argument("--actions-out", help="also write block actions (run, block, action)")
    p.set_defaults(handler=run)


def spec_from_args(args) -> CellSpec:
    spec = cell_spec_from_args(args, runs=args.runs, seed=args.seed, mode=args.mode)
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
