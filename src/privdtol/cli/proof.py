"""``privdtol proof-table``: the proof terms of the pipeline's cells (Lemmas 4 and 5;
:mod:`privdtol.pipeline.proof`), which ``privdtol simulate-batch --proof-dir`` writes beside the
cells' exact tables, collected for the cells of a config's plan into
``results/agg/proof.parquet`` (and ``.csv``), one row per (experiment, cell)."""

from __future__ import annotations

import sys

from privdtol.cli.common import add_config_files_option


def add_parser(sub):
    t = sub.add_parser(
        "proof-table",
        help="collect the proof terms of a config's cells into one table",
        description="One row per (experiment, cell) of the proof cells of the config's plan.",
    )
    add_config_files_option(t)
    t.add_argument("--proof-dir", required=True, help="directory of the proof-terms JSON files")
    t.add_argument("--out", required=True, action="append", help=".parquet or .csv (repeatable)")
    t.add_argument("extra", nargs="*", help="more proof-terms JSON files (worst instances)")
    t.set_defaults(handler=run_table)


def run_table(args) -> int:
    from privdtol.analysis.registry import proof_algorithms
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.config import load_config_files
    from privdtol.pipeline.io import check_table_path, write_table
    from privdtol.pipeline.proof import proof_table

    outs = [check_table_path(o, "out") for o in args.out]
    config = load_config_files(args.config)
    table = proof_table(grid.plan(config), proof_algorithms(), args.proof_dir, args.extra)
    for out in outs:
        write_table(table, out)
    print(f"proof-table: {len(table)} rows -> {', '.join(map(str, outs))}", file=sys.stderr)
    return 0
