"""``privdtol exact``: the exact expected regret of one cell (:mod:`privdtol.engine.exact`),
written with the columns of ``simulate`` (``run`` 0, ``estimator`` exact) plus ``error_bound``."""

from __future__ import annotations

import argparse
import sys

from privdtol.cli.common import add_cell_arguments, cell_spec_from_args
from privdtol.engine.exact import EXACT_ALGORITHMS, EXACT_ENVS
from privdtol.pipeline.io import check_table_path, write_table


def add_parser(sub):
    p = sub.add_parser(
        "exact",
        help="exact expected regret of a block algorithm (no Monte Carlo)",
        description="Compute E[Reg_T] of a block algorithm on Bernoulli or deterministic "
        "losses exactly, at every checkpoint horizon 2^k - 1 <= T (plus T), with a bound on "
        "the numerical error.  Deterministic: no seed, no runs.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_cell_arguments(p, EXACT_ALGORITHMS, EXACT_ENVS)
    p.add_argument("--out", help="output table (.csv or .parquet); default: print the table")
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.engine.runner import exact_table

    spec = cell_spec_from_args(args, mode="exact")
    out = check_table_path(args.out, "out") if args.out else None
    table = exact_table(spec)
    if out is None:
        table[["horizon", "regret", "error_bound"]].to_csv(sys.stdout, index=False)
        return 0
    write_table(table, out)
    last = table.iloc[-1]
    print(
        f"{spec.algorithm}: K={last.K} gap={last.gap:.6g} T={int(last.horizon)} "
        f"regret={last.regret:.10g} ± {last.error_bound:.2g} (numerical) -> {out}",
        file=sys.stderr,
    )
    return 0
