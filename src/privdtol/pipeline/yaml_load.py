"""The one strict YAML/JSON reader of configuration files.

A config is plain data, so the reader refuses what a config never needs and a hostile file
could abuse, each as one :class:`~privdtol.errors.InputError` naming the file:

- YAML aliases and anchors (``&a`` / ``*a``): nine levels of nine aliases, under 500 bytes,
  expand to gigabytes in any consumer that walks the data (JSON schema, ``json.dumps``);
- duplicate keys in a mapping (YAML and JSON would silently keep the last one);
- bytes that are not UTF-8, a top level that is not a mapping, and files larger than
  :data:`MAX_CONFIG_BYTES`.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from privdtol.errors import InputError

#: largest config file read (the paper config is about 12 kB)
MAX_CONFIG_BYTES = 1 << 20


class StrictLoader(yaml.SafeLoader):
    """SafeLoader without aliases and without duplicate keys."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, f"alias *{event.anchor} (aliases are not allowed)", event.start_mark
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                dup = key in seen
            except TypeError:  # an unhashable key: SafeLoader's own error follows
                break
            if dup:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _json_constant(name):
    raise ValueError(f"{name} is not a number a config may hold")


def parse_text(text: str, json_format: bool = False):
    """Parse config text (YAML, or JSON when ``json_format``) strictly; raises ValueError or
    yaml.YAMLError with the reason."""
    if json_format:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_json_constant)
    return yaml.load(text, Loader=StrictLoader)


def read_mapping(path: str | Path, field: str = "config") -> dict:
    """The top-level mapping of a YAML/JSON config file (empty file: ``{}``), or one
    InputError on ``field`` naming the file and what is wrong with it."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as err:
        raise InputError(
            field, f"{path}: cannot read ({err.strerror})", "a YAML or JSON file"
        ) from None
    if not path.is_file():
        raise InputError(field, f"{path}: not a file", "a YAML or JSON file")
    if size > MAX_CONFIG_BYTES:
        raise InputError(field, f"{path}: {size} bytes", f"files <= {MAX_CONFIG_BYTES} bytes")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(field, f"{path}: not UTF-8 (byte {err.start})", "UTF-8 text") from None
    except OSError as err:
        raise InputError(
            field, f"{path}: cannot read ({err.strerror})", "a YAML or JSON file"
        ) from None
    try:
        data = parse_text(text, path.suffix == ".json")
    except (ValueError, yaml.YAMLError, RecursionError) as err:
        raise InputError(field, f"{path}: not valid YAML/JSON ({_reason(err)})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(
            field, f"{path}: top level is a {type(data).__name__}", "a mapping of config keys"
        )
    return data


def _reason(err) -> str:
    """A YAML/JSON error in one line: the problem and where."""
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return f"{err.problem or err.context}{where}"
    text = " ".join(str(err).split())
    return text or type(err).__name__
