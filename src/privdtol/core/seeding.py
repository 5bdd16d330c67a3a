"""Stable, parameter-derived random streams.

Seeds never depend on worker order, wall-clock time or Python's salted ``hash()``: a cell's
parameters are serialised to canonical JSON, hashed with SHA-256, and the digest seeds a
:class:`numpy.random.SeedSequence`.  The same parameters give the same bytes on any machine
(for a fixed numpy version, whose bit generators are stable).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np


def _canonical(value: Any) -> Any:
    """Turn numpy scalars/arrays and tuples into plain JSON types, recursively."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_canonical(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float):
        # repr() of a float is the shortest round-tripping decimal: stable across platforms.
        return repr(value)
    return value


def stable_digest(params: Mapping[str, Any]) -> str:
    """SHA-256 hex digest of the canonical JSON form of ``params``."""
    text = json.dumps(_canonical(params), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seed_sequence(params: Mapping[str, Any]) -> np.random.SeedSequence:
    """A SeedSequence whose entropy is the 256-bit digest of ``params``."""
    return np.random.SeedSequence(int(stable_digest(params), 16))


def generator(params: Mapping[str, Any]) -> np.random.Generator:
    """A PCG64 generator keyed by ``params`` (see :func:`seed_sequence`)."""
    return np.random.Generator(np.random.PCG64(seed_sequence(params)))
