"""``privdtol proof-batch`` and ``privdtol proof-table``: the proof terms of the pipeline's
cells (Lemmas 4 and 5; :mod:`privdtol.pipeline.proof`).

``proof-batch`` computes the terms of a batch of cells (``--cells``: the batch's canonical JSON)
and writes ``OUT_DIR/<cell_id>.json`` each, reading Reg_T at the cell's horizon from its exact
table in ``--sim-dir``; ``proof-table`` collects them, for the cells of a config's plan, into
``results/agg/proof.parquet`` (and ``.csv``), one row per (experiment, cell)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from privdtol.cli.common import add_config_files_option
from privdtol.errors import InputError


def add_parser(sub):
    p = sub.add_parser(
        "proof-batch",
        help="the exact proof terms (Lemmas 4-5) of a batch of pipeline cells",
        description="Compute the terms of Lemmas 4 and 5 for each cell of a batch and write "
        "OUT_DIR/<cell_id>.json (atomically).",
    )
    p.add_argument("--cells", required=True, help="cells as JSON (privdtol.pipeline.plan)")
    p.add_argument("--sim-dir", required=True, help="directory of the cells' exact tables")
    p.add_argument("--out-dir", required=True, help="directory of the proof-terms JSON files")
    p.set_defaults(handler=run_batch)

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


def run_batch(args) -> int:
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.proof import cell_regret, cell_terms, proof_path, write_terms

    try:
        cells = grid.cells_from_json(args.cells)
    except (ValueError, TypeError, KeyError) as err:
        raise InputError("cells", f"not a JSON list of cells ({err})", "Batch.cells_json") from None
    out_dir = Path(args.out_dir)
    start = time.perf_counter()
    for cell in cells:
        t0 = time.perf_counter()
        regret = cell_regret(Path(args.sim_dir) / f"{cell.cell_id}.parquet", cell)
        terms = cell_terms(cell, regret)
        path = proof_path(out_dir, cell)
        write_terms(terms, path)
        print(
            f"cell {cell.cell_id} {cell.algorithm} K={cell.K} gap={cell.gap:g} "
            f"eps={cell.epsilon}: {time.perf_counter() - t0:.3f} s -> {path}",
            file=sys.stderr,
        )
    print(f"proof-batch: {len(cells)} cells, {time.perf_counter() - start:.3f} s", file=sys.stderr)
    return 0


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
