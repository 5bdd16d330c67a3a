"""A plugin that fails costs its own cells only (docs/extending.md): when an installed
plugin's algorithm or loss model fails while a cell is simulated (any exception of its code,
actions out of range, a law that is not a probability vector, NaN window sums:
:class:`privdtol.engine.guard.RunFailure`), ``privdtol simulate-batch`` writes the cell's file
with no rows and the reason in its metadata (:data:`FAILURE_ATTR`) instead of failing the
job; the aggregation leaves such a cell out, names it and its reason on its log, and records
them in the aggregated table's metadata (:data:`FAILURES_ATTR`), so the build goes on for
every other cell.  A built-in algorithm's failure still stops the job: it is a bug of this
package, not a plugin's defect."""

from __future__ import annotations

import re

import pandas as pd

#: a cell file's metadata key holding why its plugin failed (no rows then)
FAILURE_ATTR = "privdtol_failure"
#: an aggregated table's metadata key: {cell id: why its plugin failed}
FAILURES_ATTR = "privdtol_failures"


def plugin_of(cell) -> str | None:
    """The registry name of the plugin the cell runs (its algorithm, else its loss model), or
    None when both are built in."""
    from privdtol.algorithms import PLUGINS
    from privdtol.environments import MODELS
    from privdtol.environments import __name__ as env_package

    if cell.algorithm in PLUGINS:
        return cell.algorithm
    model = MODELS.get(cell.env)
    if model is not None and not model.__module__.startswith(env_package):
        return cell.env
    return None


def failed_cell_table(reason: str, columns: dict[str, str]) -> pd.DataFrame:
    """The file of a cell whose plugin failed: the cell file's ``columns`` ({name: "text",
    "int" or "float"}: :data:`privdtol.pipeline.aggregate.CELL_FILE_COLUMNS`), no row, the
    reason in its metadata beside the cell's parameters (written by the caller)."""
    dtypes = {"text": "str", "int": "int64", "float": "float64"}
    table = pd.DataFrame({c: pd.Series([], dtype=dtypes[kind]) for c, kind in columns.items()})
    table.attrs[FAILURE_ATTR] = reason
    return table


def failure_of(table: pd.DataFrame) -> str | None:
    """Why a cell read by :func:`privdtol.pipeline.aggregate.read_cell` has no rows, or None."""
    return table.attrs.get(FAILURE_ATTR)


def failed_cells(agg_dir) -> dict[str, dict[str, str]]:
    """``{experiment: {cell id: reason}}`` of the cells the aggregated tables in ``agg_dir``
    left out (read from each Parquet file's metadata, not its rows); empty when none."""
    import json
    from pathlib import Path

    import pyarrow.parquet as pq

    out = {}
    for path in sorted(Path(agg_dir).glob("*.parquet")):
        try:
            meta = pq.read_schema(path).metadata or {}
            failed = json.loads(meta.get(b"PANDAS_ATTRS", b"{}")).get(FAILURES_ATTR)
        except (OSError, ValueError, AttributeError):
            continue  # not an aggregated table this can read: its own reader says why
        if failed:
            out[path.stem] = {str(k): str(v) for k, v in failed.items()}
    return out


#: a failed cell's reason as :func:`privdtol.cli.batch` writes it: ``plugin '<name>': <why>``
_PLUGIN_REASON = re.compile(r"^plugin '(?P<plugin>[^']+)': (?P<why>.*)$", re.S)


def plugin_failures(agg_dir) -> list[dict]:
    """One entry per plugin whose cells the aggregated tables in ``agg_dir`` left out
    (:func:`failed_cells`), in name order: ``plugin``, ``reason`` (the first cell's one-line
    reason; a plugin failing alike in every cell says the same), ``cells`` (how many) and
    ``experiments`` (which, in name order) -- what the report's body says of it in one
    sentence.  A reason not of that form counts under the plugin ``"unknown"``."""
    out: dict[str, dict] = {}
    for experiment, cells in failed_cells(agg_dir).items():
        for cell_id in sorted(cells):
            found = _PLUGIN_REASON.match(cells[cell_id])
            name, why = (found["plugin"], found["why"]) if found else ("unknown", cells[cell_id])
            entry = out.setdefault(name, {"plugin": name, "reason": why, "cells": 0})
            entry["cells"] += 1
            entry.setdefault("experiments", set()).add(experiment)
    return [{**e, "experiments": sorted(e["experiments"])} for _, e in sorted(out.items())]


__all__ = [
    "FAILURES_ATTR",
    "FAILURE_ATTR",
    "failed_cell_table",
    "failed_cells",
    "failure_of",
    "plugin_failures",
    "plugin_of",
]
