"""``privdtol exact``: the exact expected regret of one cell (:mod:`privdtol.engine.exact`),
written with the columns of ``simulate`` (``run`` 0, ``estimator`` exact) plus ``error_bound``."""

from __future__ import annotations

import argparse
import sys

from privdtol.cli.common import add_cell_arguments, cell_spec_from_args
from privdtol.engine.exact import EXACT_ALGORITHMS, EXACT_ENVS
from privdtol.errors import InputError
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
    p.add_argument(
        "--max-seconds",
        type=float,
        default=MAX_SECONDS,
        help="refuse a cell whose estimated single-core time (the batching cost model) is larger",
    )
    p.set_defaults(handler=run)


#: ``--max-seconds``'s default: a cell the cost model puts past a minute is refused (an
#: instance whose gap is tiny against T = 2^40 takes minutes and GBs: it was run without a word)
MAX_SECONDS = 60.0


def check_seconds(spec, limit: float) -> None:
    """The cell's single-core time estimated before it runs (:func:`~privdtol.engine.exact.
    cost_units` times the batching model's seconds per unit), refused past ``limit``."""
    from privdtol.engine.exact import cost_units
    from privdtol.pipeline.plan import SECONDS_PER_CELL, SECONDS_PER_EXACT_UNIT

    if not limit > 0:
        raise InputError("max-seconds", f"got {limit}", "numbers > 0")
    work = cost_units(spec.algorithm, spec.means, spec.epsilon, spec.horizon, spec.env)
    seconds = SECONDS_PER_CELL + SECONDS_PER_EXACT_UNIT * work
    if seconds > limit:
        raise InputError(
            "max-seconds",
            f"{spec.algorithm} at K={len(spec.means)}, T={spec.horizon}, epsilon={spec.epsilon} "
            f"takes about {seconds:.3g} s by the cost model, past the limit of {limit:g} s",
            "raise --max-seconds, or a larger gap, epsilon or a smaller horizon",
        )


def run(args) -> int:
    from privdtol.engine.runner import exact_table

    spec = cell_spec_from_args(args, mode="exact")
    out = check_table_path(args.out, "out") if args.out else None
    if spec.means is not None:
        check_seconds(spec, args.max_seconds)
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
