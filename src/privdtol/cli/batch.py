"""``privdtol simulate-batch``: simulate a batch of pipeline cells, one Parquet file per cell.

The cells come either from the pipeline (``--cells``: the batch's canonical JSON, see
:meth:`privdtol.pipeline.plan.Batch.cells_json`) or from a config (``--config FILE --experiment NAME
--batch N``).  Each cell is written atomically to ``OUT_DIR/<cell_id>.parquet``; a cell whose
file already exists (complete, since writes are atomic) is skipped, so a batch that was killed
halfway, or whose membership changed because a grid list grew, only computes what is missing.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from privdtol.engine.runner import exact_table_and_averager, run_cell
from privdtol.errors import InputError
from privdtol.pipeline.io import write_table


def add_parser(sub):
    p = sub.add_parser(
        "simulate-batch",
        help="simulate a batch of pipeline cells",
        description=__doc__.split("\n\n")[0],
    )
    src = p.add_argument_group("cells: --cells JSON, or --config/--experiment/--batch")
    src.add_argument("--cells", help="cells as JSON, {field: [values]} (privdtol.pipeline.plan)")
    src.add_argument("--config", help="pipeline config (YAML)")
    src.add_argument("--experiment", help="experiment name in --config")
    src.add_argument("--batch", type=int, help="batch index within the experiment")
    p.add_argument("--out-dir", required=True, help="directory of the cell files")
    p.add_argument("--force", action="store_true", help="recompute cells that already exist")
    p.add_argument(
        "--proof-dir",
        help="also write the proof terms (Lemmas 4-5) of the --proof-cells to PROOF_DIR/<id>.json",
    )
    p.add_argument(
        "--proof-cells",
        default="",
        help="comma-separated ids of the exact cells whose proof terms are wanted",
    )
    p.set_defaults(handler=run)


def batch_cells(args):
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.config import load_config

    if args.cells is not None:
        try:
            return grid.cells_from_json(args.cells)
        except (ValueError, TypeError, KeyError) as err:
            raise InputError(
                "cells",
                f"not a JSON list of cells ({err})",
                "the output of privdtol.pipeline.plan.Batch.cells_json",
            ) from None
    if not (args.config and args.experiment and args.batch is not None):
        raise InputError(
            "cells", "no cells given", "--cells JSON, or --config, --experiment and --batch"
        )
    config = load_config(args.config)
    _, batches = grid.plan(config)[grid.experiment(config, args.experiment)["name"]]
    if not 0 <= args.batch < len(batches):
        raise InputError("batch", f"got {args.batch}", f"0 .. {len(batches) - 1}")
    return list(batches[args.batch].cells)


def is_complete(path: Path, cell) -> bool:
    """A cell file is trusted when its reader accepts it
    (:func:`privdtol.pipeline.aggregate.read_cell`: the cell's parameters, id, rows and finite
    values) and it was computed by the code that runs now (the digest of
    :func:`privdtol.pipeline.staleness.cell_code`: the simulation layers and the cell's plugin
    modules); anything else is computed again."""
    from privdtol.pipeline.aggregate import read_cell
    from privdtol.pipeline.staleness import cell_code

    if not path.exists():
        return False
    try:
        read_cell(path, cell, code=cell_code(cell.algorithm, cell.env))
    except InputError:
        return False
    return True


def cell_table(cell, proof_path=None):
    """The cell's table: the engine's table of the cell's
    :meth:`~privdtol.pipeline.plan.Cell.spec` (every parameter column included) keyed by the
    cell's id; with ``proof_path`` (an exact cell), its proof terms are written there too, from
    the laws of its exact regret (:func:`privdtol.pipeline.proof.cell_terms`)."""
    spec = cell.spec()
    if spec.mode == "exact":
        table, avg = exact_table_and_averager(spec)
    else:
        table, avg = run_cell(spec)[0], None
    if proof_path is not None:
        from privdtol.pipeline.proof import cell_terms, horizon_regret, write_terms

        if avg is None:
            raise InputError("proof-cells", f"cell {cell.cell_id} is not exact", "exact cells")
        write_terms(cell_terms(cell, horizon_regret(table, cell), avg), proof_path)
    table.insert(0, "cell_id", cell.cell_id)  # the pipeline's key (the engine has every other)
    from privdtol.pipeline.plan import CELL_ATTR, CODE_ATTR
    from privdtol.pipeline.staleness import cell_code

    table.attrs[CELL_ATTR] = cell.params()  # the promise read_cell holds the file to
    table.attrs[CODE_ATTR] = cell_code(cell.algorithm, cell.env)  # and the code that kept it
    return table


def _cell_or_failure(cell, proof):
    """:func:`cell_table`; where the cell's plugin fails (a :class:`~privdtol.engine.guard.
    RunFailure` of a plugin's algorithm or loss model), the cell's file with no rows and the
    reason (:mod:`privdtol.pipeline.failures`): the plugin costs its own cells only.  A
    built-in algorithm's failure is raised (a bug of this package)."""
    from privdtol.engine.guard import RunFailure
    from privdtol.pipeline import failures
    from privdtol.pipeline.aggregate import CELL_FILE_COLUMNS
    from privdtol.pipeline.plan import CELL_ATTR, CODE_ATTR
    from privdtol.pipeline.staleness import cell_code

    try:
        return cell_table(cell, proof)
    except RunFailure as err:
        plugin = failures.plugin_of(cell)
        if plugin is None or proof is not None:
            raise
        print(f"cell {cell.cell_id}: plugin {plugin!r} failed, no rows: {err}", file=sys.stderr)
        table = failures.failed_cell_table(f"plugin {plugin!r}: {err}", CELL_FILE_COLUMNS)
        table.attrs[CELL_ATTR] = cell.params()
        table.attrs[CODE_ATTR] = cell_code(cell.algorithm, cell.env)
        return table


def run(args) -> int:
    cells = batch_cells(args)
    proof_ids = {c for c in args.proof_cells.split(",") if c}
    if proof_ids and not args.proof_dir:
        raise InputError("proof-dir", "missing", "a directory, with --proof-cells")
    unknown = proof_ids - {c.cell_id for c in cells}
    if unknown:
        raise InputError(
            "proof-cells", f"not cells of the batch: {sorted(unknown)}", "ids of --cells"
        )
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    done = skipped = 0
    for cell in cells:
        path = out_dir / f"{cell.cell_id}.parquet"
        proof = Path(args.proof_dir) / f"{cell.cell_id}.json" if cell.cell_id in proof_ids else None
        proof_done = proof is None or proof.exists()  # written atomically: complete if there
        if not args.force and is_complete(path, cell) and proof_done:
            skipped += 1
            print(f"skip {path} (exists)", file=sys.stderr)
            continue
        t0 = time.perf_counter()
        write_table(_cell_or_failure(cell, proof), path)
        done += 1
        print(
            f"cell {cell.cell_id} {cell.algorithm} {cell.env} K={cell.K} gap={cell.gap:g} "
            f"eps={cell.epsilon} T={cell.horizon} runs={cell.runs}: "
            f"{time.perf_counter() - t0:.3f} s -> {path}" + (f", {proof}" if proof else ""),
            file=sys.stderr,
        )
    print(
        f"simulate-batch: {done} cells computed, {skipped} skipped, "
        f"compute {time.perf_counter() - start:.3f} s",
        file=sys.stderr,
    )
    return 0
