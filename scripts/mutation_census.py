"""A census of a module group for ``make mutation`` (scripts/mutation.py, docs/testing.md): every
mutant of the group run, not a sample, so that its score is the module's own, not an estimate.

mutmut forgets every verdict of a group whose test selection changes (a new test file added to
tests/mutants/groups.yaml), so a census would be lost by the very tests written for its
survivors.  The first complete measurement is therefore frozen in
``results/mutation/<group>-census.json`` (the verdict of every mutant, the commit, and a digest
of the group's mutated source files) and merged with later runs: a mutant run again (``--rerun``
runs the survivors) takes its new verdict, the others keep the census's.  That is sound while
the sources are the same (the digest: a changed source starts a new census) and tests are only
added, never weakened (a mutant killed at the census stays killed).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def source_digest(root: Path, patterns: list[str]) -> str:
    """sha256 over the group's mutated files (``mutate`` globs of groups.yaml), names included."""
    h = hashlib.sha256()
    for path in sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()}):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def merge(path: Path, codes: dict, digest: str, commit: str) -> tuple[dict, dict | None]:
    """``(codes to count, census)``: ``codes`` ({module: {mutant: exit code or None}}, what
    mutmut holds now) with every mutant mutmut holds no verdict for taking the census's; the
    census is the frozen first complete measurement of these sources, written here when
    ``codes`` is complete and no census of the same sources exists (None while neither)."""
    census = json.loads(path.read_text()) if path.exists() else None
    if census is not None and census["digest"] != digest:
        census = None  # other sources: the old verdicts are not theirs
    if census is None:
        if not codes or any(c is None for module in codes.values() for c in module.values()):
            return codes, None
        census = {"commit": commit, "digest": digest, "codes": codes}
        path.write_text(json.dumps(census, indent=0, sort_keys=True) + "\n")
    old = census["codes"]
    merged = {
        module: {
            key: code if code is not None else old.get(module, {}).get(key)
            for key, code in keys.items()
        }
        for module, keys in codes.items()
    }
    return merged, census
