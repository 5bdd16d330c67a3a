"""Checks of a config beyond its schema (issue 39): experiment names against the pipeline's
own tables, ordered ranges; called by :func:`privdtol.pipeline.config.validate_semantics`.
(The ``privacy:`` block's cost is the privacy layer's: :func:`privdtol.privacy.cost.
check_privacy_block`.)  Each problem is one :class:`~privdtol.errors.InputError` naming the
key."""

from __future__ import annotations

from privdtol.errors import InputError

#: the aggregated tables the pipeline writes beside the experiments' (``{agg_dir}/<name>``):
#: no experiment may take one of these names
PIPELINE_TABLES = ("privacy", "proof", "worst_case", "searches", "lower_bound")


def check_name(name: str, key: str) -> None:
    """An experiment is not named after one of the pipeline's own tables (its table would
    overwrite theirs, or theirs its: it would never be simulated)."""
    if name in PIPELINE_TABLES:
        raise InputError(
            key,
            f"{name!r} is the name of one of the pipeline's own tables",
            f"a name other than {', '.join(PIPELINE_TABLES)}",
        )


def check_ordered(config: dict, props: dict, ordered: str) -> None:
    """Every range whose schema (``props``: the schema of ``checks``) is marked ``ordered``
    (``checks.exponent_range``), and each of its multiverse values, is ordered: low < high (a
    reversed range no check can pass)."""
    checks = config["checks"]
    for key, node in props.items():
        if not node.get(ordered):
            continue
        values = [(f"checks.{key}", checks.get(key))]
        ranges = (checks.get("multiverse") or {}).get(key) or []
        values += [(f"checks.multiverse.{key}[{i}]", v) for i, v in enumerate(ranges)]
        for where, value in values:
            if value is not None and not value[0] < value[1]:
                raise InputError(where, f"got {value!r}", "[low, high] with low < high")
