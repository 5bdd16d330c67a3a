"""Checks of a config beyond its schema: before it, the values (how many, string keys, finite
numbers: :func:`check_values`); after it, experiment names against the pipeline's
own tables and ordered ranges, called by :func:`privdtol.pipeline.config.validate_semantics`;
and the output directories inside the working directory (:func:`check_out_dirs`).
(The ``privacy:`` block's cost is the privacy layer's: :func:`privdtol.privacy.cost.
check_privacy_block`.)  Each problem is one :class:`~privdtol.errors.InputError` naming the
key."""

from __future__ import annotations

import math
from pathlib import Path

from privdtol.errors import InputError

#: the aggregated tables the pipeline writes beside the experiments' (``{agg_dir}/<name>``):
#: no experiment may take one of these names
PIPELINE_TABLES = ("privacy", "proof", "worst_case", "searches", "lower_bound", "floor")


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


def key_path(path) -> str:
    """A key's path as the messages name it: ``experiments[0].slices[1].name``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


#: most values (list items and mapping entries, nested) in a config: the paper's has ~800; a
#: YAML alias bomb (shared sub-lists) walked by a JSON schema would hold billions
MAX_VALUES = 100_000
#: the config keys that name output directories (inside the working directory unless
#: ``allow_outside`` is true)
OUT_DIR_KEYS = ("sim_dir", "agg_dir")


def check_values(config, root: list | None = None) -> None:
    """Before the schema: at most :data:`MAX_VALUES` values, string keys, and every number
    finite (NaN passes every range check, and an infinite threshold silently changes a
    verdict).  One InputError naming the first offending key."""
    stack, count = [(config, root or [])], 0
    while stack:
        node, path = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise InputError(
                key_path(path), f"the config holds more than {MAX_VALUES} values", "a small config"
            )
        if isinstance(node, dict):
            for key, value in reversed(list(node.items())):
                if not isinstance(key, str):
                    raise InputError(key_path(path), f"key {key!r} is not a string", "names")
                stack.append((value, [*path, key]))
        elif isinstance(node, list):
            stack.extend((v, [*path, i]) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, float) and not math.isfinite(node):
            raise InputError(key_path(path), f"got {node!r}", "finite numbers")


def check_out_dirs(config: dict, cwd: Path | None = None) -> None:
    """``sim_dir`` and ``agg_dir`` inside the working directory unless ``allow_outside``
    (the workflow's parse and ``check-config``; the commands of its jobs re-read the config
    files without Snakemake's ``--config`` overrides, so they do not repeat it)."""
    if config.get("allow_outside") in (True, "true"):
        return
    cwd = (cwd or Path.cwd()).resolve()
    for key in OUT_DIR_KEYS:
        if not (cwd / config[key]).resolve().is_relative_to(cwd):
            err = InputError(
                key,
                f"{config[key]!r} lies outside the working directory {cwd}",
                "a path inside it, or allow_outside: true (--config allow_outside=true)",
            )
            err.config_key = True  # the CLI names it as a key, not as a --flag
            raise err
