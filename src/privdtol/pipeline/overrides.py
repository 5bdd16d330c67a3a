"""``snakemake --config`` overrides typed by the config's schema: Snakemake reads a
nested override (``--config checks="{confidence: 0.9}"``) with YAML's base loader, so its
numbers arrive as strings, which the schema would refuse; :func:`coerce_overrides` makes them
the schema's types again, before validation (``workflow/rules/common.smk``)."""

from __future__ import annotations

from privdtol.pipeline.config import load_schema


def coerce_overrides(config: dict, overrides: dict, schema: dict | None = None) -> dict:
    """Snakemake's ``--config KEY=VALUE`` gives a nested value (``checks="{confidence: 0.9}"``)
    as strings (YAML's base loader): each string of ``overrides`` that the schema declares a
    number, an integer or a boolean becomes one, in ``config`` (in place; a string that is not
    one is left for the schema to refuse, naming the key).  Returns ``config``."""
    schema = schema if schema is not None else load_schema()
    _coerce(config, overrides, schema, schema)
    return config


def _resolve(node: dict, root: dict) -> dict:
    ref = node.get("$ref", "")
    if ref.startswith("#/$defs/"):
        return {
            **root["$defs"][ref.split("/")[-1]],
            **{k: v for k, v in node.items() if k != "$ref"},
        }
    return node


def _coerce_leaf(value, node: dict, root: dict):
    node = _resolve(node, root)
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [_coerce_leaf(v, node["items"], root) for v in value]
    if not isinstance(value, str):
        return value
    types = node.get("type", [])
    types = [types] if isinstance(types, str) else types
    casts = {"integer": int, "number": float}
    for kind in ("integer", "number"):
        if kind in types:
            try:
                return casts[kind](value)
            except ValueError:
                pass
    if "boolean" in types and value in ("true", "false"):
        return value == "true"
    if "null" in types and value in ("null", "~"):
        return None
    return value


def _coerce(config, overrides, node: dict, root: dict) -> None:
    node = _resolve(node, root)
    if not (isinstance(config, dict) and isinstance(overrides, dict)):
        return
    props = node.get("properties", {})
    for key, value in overrides.items():
        if key not in props or key not in config:
            continue
        if isinstance(value, dict):
            _coerce(config[key], value, props[key], root)
        else:
            config[key] = _coerce_leaf(config[key], props[key], root)
