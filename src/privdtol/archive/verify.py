"""An unpacked run archive checked against its manifest, the RO-Crate
(``ro-crate-metadata.json`` in the archive's top directory, :mod:`privdtol.archive.crate`):
every file it lists with a ``sha256`` must be present and hash to that value.  A file
deleted from ``run/`` (a check record, an aggregated table, ``findings.json``, a CSV table, the
PDF, a notebook page) or changed after the archive was built is a difference, named by its
path; an archive without its crate is one too.  :func:`privdtol.archive.build.compare` adds
these to the byte-for-byte comparison of the replayed files."""

from __future__ import annotations

import json
from pathlib import Path

from privdtol.archive.layout import sha256_file

#: the manifest's name, in the archive's top directory (beside run/ and source/)
CRATE = "ro-crate-metadata.json"


def listed_files(top: Path) -> dict[str, str] | None:
    """``{path below the top directory: sha256}`` of every File the crate in ``top`` lists
    with a sha256; None when there is no crate (or it is not a JSON object with a graph)."""
    path = Path(top) / CRATE
    try:
        graph = json.loads(path.read_text(encoding="utf-8")).get("@graph")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(graph, list):
        return None
    return {
        str(e["@id"]): str(e["sha256"])
        for e in graph
        if isinstance(e, dict) and isinstance(e.get("@id"), str) and "sha256" in e
    }


def verify_crate(top: Path) -> tuple[list[str], dict[str, str]]:
    """``(problems, listed)``: a line per listed file that is missing below ``top`` or whose
    sha256 differs from the crate's, and what the crate lists (empty without a crate, and
    then one problem saying so)."""
    listed = listed_files(top)
    if listed is None:
        return [f"{CRATE}: missing or unreadable in {top}: the archive is incomplete"], {}
    problems = []
    for name, digest in sorted(listed.items()):
        path = Path(top) / name
        if not path.is_file():
            problems.append(f"{name}: listed in {CRATE}, missing from the archive")
        elif sha256_file(path) != digest:
            problems.append(f"{name}: sha256 differs from the one {CRATE} records")
    return problems, listed


__all__ = ["CRATE", "listed_files", "verify_crate"]
