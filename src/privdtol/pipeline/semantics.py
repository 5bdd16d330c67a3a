"""Checks of a config beyond its schema that know of other layers (issue 39): experiment
names against the pipeline's own tables, ordered ranges, and the ``privacy:`` block's cost
(:mod:`privdtol.privacy.cost`); called by :func:`privdtol.pipeline.config.validate_semantics`.
Each problem is one :class:`~privdtol.errors.InputError` naming the key."""

from __future__ import annotations

from privdtol.errors import InputError


def check_name(name: str, key: str) -> None:
    """An experiment is not named after one of the pipeline's own tables (its table would
    overwrite theirs, or theirs its: it would never be simulated)."""
    from privdtol.pipeline.aggregate import PIPELINE_TABLES

    if name in PIPELINE_TABLES:
        raise InputError(
            key,
            f"{name!r} is the name of one of the pipeline's own tables",
            f"a name other than {', '.join(PIPELINE_TABLES)}",
        )


def check_ordered(config: dict) -> None:
    """Every range the schema marks ``x-ordered`` (``checks.exponent_range``), and each of
    its multiverse values, is ordered: low < high (a reversed range no check can pass)."""
    from privdtol.pipeline.config import ORDERED, load_schema

    props = load_schema()["properties"]["checks"]["properties"]
    checks = config["checks"]
    for key, node in props.items():
        if not node.get(ORDERED):
            continue
        values = [(f"checks.{key}", checks.get(key))]
        ranges = (checks.get("multiverse") or {}).get(key) or []
        values += [(f"checks.multiverse.{key}[{i}]", v) for i, v in enumerate(ranges)]
        for where, value in values:
            if value is not None and not value[0] < value[1]:
                raise InputError(where, f"got {value!r}", "[low, high] with low < high")


def check_privacy_cost(config: dict) -> None:
    """The ``privacy:`` block's audits against ``limits.max_memory_gb`` (and the sequence's
    enumeration bound), before any audit runs: one line naming the ``privacy.`` key.  (The
    privacy layer sits above this one: imported here only, when the block is present.)"""
    from privdtol.privacy.audit_grid import merge_grid
    from privdtol.privacy.cost import check_grid

    max_bytes = config["limits"]["max_memory_gb"] * 1e9
    check_grid(merge_grid(config["privacy"]), max_bytes, "limits.max_memory_gb")
