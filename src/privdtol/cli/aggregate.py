"""``privdtol aggregate``: cell files -> one experiment's aggregated table (Parquet + CSV)."""

from __future__ import annotations

import sys

from privdtol.errors import InputError
from privdtol.pipeline.io import check_table_path, write_table


def add_parser(sub):
    p = sub.add_parser(
        "aggregate",
        help="aggregate cell files into an experiment table",
        description="One row per (cell, checkpoint horizon): runs, mean regret, "
        "se, 95%% CI, quantiles, realized regret, bound shapes.",
    )
    p.add_argument("--experiment", required=True, help="experiment name (a column)")
    p.add_argument(
        "--out",
        required=True,
        action="append",
        help="output table(s), .parquet or .csv (repeatable)",
    )
    p.add_argument("cells", nargs="*", help="cell files (results/sim/<experiment>/*.parquet)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from privdtol.pipeline.aggregate import aggregate_files

    outs = [check_table_path(o, "out") for o in args.out]
    if not args.cells:
        raise InputError("cells", "no cell files given", "one or more cell Parquet files")
    table = aggregate_files(args.cells, args.experiment)
    from privdtol.pipeline.failures import FAILURES_ATTR

    for cell_id, reason in table.attrs.get(FAILURES_ATTR, {}).items():
        print(f"aggregate {args.experiment}: cell {cell_id} left out: {reason}", file=sys.stderr)
    for out in outs:
        write_table(table, out)
    print(
        f"aggregate {args.experiment}: {len(args.cells)} cells, {len(table)} rows -> "
        f"{', '.join(map(str, outs))}",
        file=sys.stderr,
    )
    return 0
