"""Check records: the one format of ``results/checks/<claim>.json`` and the one reader of the
aggregated tables the checks start from.

A *check record* is a dict with the keys of :data:`CHECK_KEYS`.  :func:`make_check` assembles
one (JSON-safe values, floats to :data:`SIG` significant digits, sorted ``inputs``),
:func:`write_check` writes it as deterministic JSON (sorted keys, fixed indentation, no
timestamps) atomically, :func:`read_check` reads it back (``None`` if absent) and
:func:`load_check` reads it and validates every key and type, raising one
:class:`~privdtol.errors.InputError` line naming the file and the key.

:func:`load_agg` reads ``<agg_dir>/<experiment>.parquet`` for a list of experiments (the
``results/agg`` contract: one row per cell and checkpoint horizon, see
:mod:`privdtol.pipeline.aggregate`; ``privacy.parquet`` is the table of the privacy audit).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from privdtol.analysis.verdict import INCONCLUSIVE, VERDICTS
from privdtol.errors import InputError
from privdtol.pipeline.io import atomic_path

#: the keys of a check record, in display order, with the JSON type of each value
#: (``(int, float)``: a number or null)
CHECK_KEYS: dict[str, type | tuple[type, ...]] = {
    "claim": str,
    "title": str,
    "quote": str,
    "source": str,
    "algorithm": str,
    "control_of": (str, type(None)),
    "statistic_label": str,
    "statistic": (int, float),
    "ci_low": (int, float),
    "ci_high": (int, float),
    "interval": list,
    "threshold": str,
    "verdict": str,
    "summary": str,
    "cells": list,
    "inputs": list,
}
#: significant digits of the floats written to JSON
SIG = 6


# ----------------------------------------------------------------------------- values


def plain(value):
    """JSON-safe, stably formatted value: floats to :data:`SIG` significant digits, NaN and
    infinities → None, numpy scalars and arrays → Python ones, dict keys → str."""
    kind = type(value)  # the two commonest first (a record holds thousands of values)
    if kind is float:
        return float(f"{value:.{SIG}g}") if math.isfinite(value) else None
    if kind is str:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        if not math.isfinite(value):
            return None
        return float(f"{value:.{SIG}g}")
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    return value


def fmt(x, digits: int = 3) -> str:
    """A number for a check's summary sentence: ``digits`` significant digits, "nan" if
    missing or not finite."""
    return "nan" if x is None or not np.isfinite(x) else f"{x:.{digits}g}"


# ----------------------------------------------------------------------------- records


class Heading(NamedTuple):
    """What a check says before it looks at data: the claim, its title, what the statistic
    is and the threshold it is held to (in words)."""

    claim: str
    title: str
    statistic_label: str
    threshold: str


def claim_words(claim: str) -> tuple[str, str]:
    """The paper's statement of a claim and where it is made (``quote``, ``source``), from the
    registry; a sub-check id such as ``"C5/C2/beta"`` quotes its first part."""
    from privdtol.analysis.registry import CLAIMS  # the registry imports nothing of this module

    c = CLAIMS.get(claim.split("/")[0])
    return (c.quote, c.source) if c is not None else ("", "")


def make_check(
    head: Heading,
    statistic,
    ci_low,
    ci_high,
    verdict,
    summary,
    cells=(),
    inputs=(),
    algorithm: str = "rps",
    control_of: str | None = None,
) -> dict:
    """Assemble a check record with the keys of :data:`CHECK_KEYS`, JSON-safe values: the
    claim's ``quote`` and ``source`` come from the registry, ``interval`` is
    ``[ci_low, ci_high]``, ``algorithm`` is the algorithm checked and ``control_of`` the claim
    whose negative control this record is (None for the claim's own check)."""
    if verdict not in VERDICTS:
        raise ValueError(f"bad verdict {verdict!r}")
    quote, source = claim_words(head.claim)
    return plain(
        {
            "claim": head.claim,
            "title": head.title,
            "quote": quote,
            "source": source,
            "algorithm": algorithm,
            "control_of": control_of,
            "statistic_label": head.statistic_label,
            "statistic": statistic,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "interval": [ci_low, ci_high],
            "threshold": head.threshold,
            "verdict": verdict,
            "summary": summary,
            "cells": list(cells),
            "inputs": sorted({str(p) for p in (inputs or [])}),
        }
    )


def no_data(head: Heading, reason: str, inputs=(), algorithm: str = "rps") -> dict:
    """The INCONCLUSIVE record of a check that found nothing to test (``reason`` says why)."""
    return make_check(head, None, None, None, INCONCLUSIVE, reason, [], inputs, algorithm)


def as_control(check: dict, claim: str) -> dict:
    """A check record marked as the negative control of ``claim`` (its purpose is served when
    its verdict is FAIL)."""
    return {**check, "control_of": claim}


def check_json(check: dict) -> str:
    """The deterministic JSON text of a check record (sorted keys, indent 2, newline)."""
    return json.dumps(plain(check), sort_keys=True, indent=2, allow_nan=False) + "\n"


def write_check(check: dict, path: str | Path) -> Path:
    """Write a check record as deterministic JSON (:func:`check_json`), atomically."""
    missing = [k for k in CHECK_KEYS if k not in check]
    if missing:
        raise ValueError(f"check record lacks {missing}")
    path = Path(path)
    text = check_json(check)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def read_check(path: str | Path) -> dict | None:
    """A written check record validated by :func:`load_check`, or None if the file does not
    exist (e.g. C1 when the config has no privacy audit); a defect is one line on
    ``checks``."""
    return load_check(path, "checks") if Path(path).exists() else None


def load_check(path: str | Path, field: str = "results") -> dict:
    """Read and validate one check record: every key of :data:`CHECK_KEYS` with its type, and a
    verdict of :data:`~privdtol.analysis.verdict.VERDICTS`.  A defect is one
    :class:`~privdtol.errors.InputError` line (field ``field``) naming the file and the key."""
    from privdtol.pipeline.io import read_json_strict

    data = read_json_strict(path, field)  # truncated, NaN or Infinity: one line
    if not isinstance(data, dict):
        raise InputError(field, f"{path}: top level is not an object", "a check record")
    for key, kind in CHECK_KEYS.items():
        if key not in data:
            raise InputError(field, f"{path}: missing key {key!r}")
        value = data[key]
        if kind == (int, float):
            ok = value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))
        elif isinstance(kind, tuple):
            ok = isinstance(value, kind)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise InputError(
                field,
                f"{path}: key {key!r} has type {type(value).__name__}",
                "number or null"
                if kind == (int, float)
                else " or ".join(
                    k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,))
                ),
            )
    if data["verdict"] not in VERDICTS:
        raise InputError(
            field, f"{path}: key 'verdict' is {data['verdict']!r}", ", ".join(VERDICTS)
        )
    return data


# ----------------------------------------------------------------------------- inputs


def agg_path(agg_dir: str | Path, experiment: str) -> Path:
    """``<agg_dir>/<experiment>.parquet``."""
    return Path(agg_dir) / f"{experiment}.parquet"


def load_agg(
    agg_dir: str | Path, experiments: Sequence[str], field: str = "agg-dir"
) -> dict[str, pd.DataFrame]:
    """The aggregated tables ``<agg_dir>/<experiment>.parquet`` of ``experiments`` that exist,
    as ``{experiment: table}`` in the order given (absent experiments are skipped; the dict may
    be empty).  The files read are ``[agg_path(agg_dir, e) for e in tables]``.  An unreadable
    file, or an experiment's table that breaks the aggregated-table contract
    (:func:`privdtol.pipeline.aggregate.check_agg_table`: columns, types, finite values, one row
    per cell and horizon), is one :class:`~privdtol.errors.InputError` line (field ``field``)
    naming the file; the pipeline's own tables (privacy, proof ...) are read as they are."""
    from privdtol.pipeline.aggregate import check_agg_table
    from privdtol.pipeline.io import read_table
    from privdtol.pipeline.semantics import PIPELINE_TABLES

    out = {}
    for exp in experiments:
        path = agg_path(agg_dir, exp)
        if path.exists():
            out[exp] = read_table(path, field)  # unreadable: one line naming the file
            if exp not in PIPELINE_TABLES:
                check_agg_table(out[exp], path, exp, field)
    return out
