"""What a rule's outputs depend on in the configuration: a *piece* of the run's merged config
(a check's thresholds, a notebook's parameters, the privacy block, the whole config for the
report), never the whole file when the rule reads less.

Every job that reads the config is given the run's merged config
(:data:`privdtol.pipeline.run_config.MERGED`) as an ``ancient`` input: a file to read, whose
modification time triggers nothing.  What triggers it is the *stamp* of the piece it reads,
listed as a plain input: a small file whose name holds the sha256 of the piece's canonical
JSON, written once, when that content is first seen (the mechanism of the code stamps,
:mod:`privdtol.pipeline.staleness`).  Hence, with Snakemake's ``mtime`` and ``input`` triggers
(the only ones the profiles enable):

- an edit of a value gives the pieces that hold it a new name, a new file newer than every
  output: exactly the rules that read the value rerun, and what reads their outputs (a
  threshold reruns its checks, the notebooks that draw it and the report; a description the
  report only);
- an edit that changes no value (a comment, a reordering of keys) writes no stamp: nothing
  reruns (the report's list of source files has its own stamp);
- undoing an edit gives the old name back, whose file is still there: the set of inputs is
  the one the outputs were made from, and nothing is left to do.

A piece is the values themselves (not only their digest), so a stale result can be traced to
the values it was made from.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from privdtol.errors import InputError

#: a stamp's name: what reads the piece (``check-C2``, ``notebook-rates``), safe in a file name
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
#: hex digits of the digest kept in the file name
DIGEST_LENGTH = 16


def canonical_text(value) -> str:
    """The piece as canonical JSON (sorted keys, no spaces, tuples as lists, one line): two
    equal pieces give the same text, whatever the order of their keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False, default=str)


def piece(config: dict, keys) -> dict:
    """``{key: value}`` of the dotted ``keys`` of ``config`` (``"checks.confidence"`` is
    ``config["checks"]["confidence"]``); a key the config does not hold is absent from the
    piece (so adding it is a change)."""
    out: dict = {}
    for key in keys:
        node, found = config, True
        for part in key.split("."):
            if isinstance(node, dict) and part in node:
                node = node[part]
            else:
                found = False
                break
        if found:
            out[key] = node
    return out


def config_stamp(stamp_dir, name: str, value) -> str:
    """The path ``<stamp_dir>/<name>-<digest[:16]>.json`` of the piece ``value`` (its
    canonical JSON's sha256), written (atomically, holding the piece) when it does not exist
    yet; an existing stamp is never touched."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise InputError("stamp", f"{name!r} is not a stamp name", "letters, digits, _ . + -")
    text = canonical_text(value) + "\n"
    digest = hashlib.sha256(text.encode()).hexdigest()
    path = Path(stamp_dir) / f"{name}-{digest[:DIGEST_LENGTH]}.json"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return str(path)


def without_descriptions(config):
    """``config`` without its ``description`` keys (the run's, the experiments' and the slices'):
    the piece of the rules that read every value but the prose (the power and multiverse
    tables), which a description edit does not rerun."""
    if isinstance(config, dict):
        return {k: without_descriptions(v) for k, v in config.items() if k != "description"}
    if isinstance(config, list | tuple):
        return [without_descriptions(v) for v in config]
    return config


def with_checks(config: dict, keys) -> dict:
    """``config`` without its descriptions (:func:`without_descriptions`) and with only the
    ``keys`` of its ``checks:`` block: the piece of a rule that runs the checks of some claims
    (each reads the thresholds its record declares, and nothing else of the block) on the
    config's cells, e.g. the power table, which skips the claims measured elsewhere.  A
    threshold no claim of the rule declares is then not in its piece: editing it does not rerun
    the rule."""
    checks = config.get("checks") or {}
    out = without_descriptions({k: v for k, v in config.items() if k != "checks"})
    out["checks"] = {k: checks[k] for k in sorted(set(keys)) if k in checks}
    return out
