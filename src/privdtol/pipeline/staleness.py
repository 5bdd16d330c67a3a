"""What a rule's outputs depend on in the code: a digest of the *content* of the layers it runs,
never their location (issue 25, item 6).

A rule that runs the analysis layer lists ``code_stamp(stamp_dir, "analysis", "core")`` as an
input: a small file whose *name* holds the sha256 of those layers' files (their paths relative
to the package and their bytes), written once, when that content is first seen.  Hence

- two installations of the same commit (an editable ``.venv``, a second virtual environment with
  ``pip install .``, a copied source tree on ``PYTHONPATH``) give the same name, so the same input
  with the same modification time: after one has built, the other has nothing to do;
- an edit of a module gives a new name, a new file newer than every output: exactly the rules
  that run that layer rerun (Snakemake's ``mtime`` and ``input`` triggers, the only ones the
  profiles enable), and what reads their outputs;
- undoing the edit gives the old name back, whose file is still there with its old time: nothing
  to do again.

The stamp lists each file's sha256 and package-relative path (no absolute path), so a stale
result can be traced to the edit that made it so.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import privdtol
from privdtol.errors import InputError

#: package data suffixes besides the Python sources (pyproject.toml's package-data)
DATA_SUFFIXES = (".py", ".j2", ".yaml", ".js", ".json")


def package_root() -> Path:
    """The directory of the imported ``privdtol`` package."""
    return Path(privdtol.__file__).resolve().parent


def layer_files(layers, root: Path | None = None) -> list[Path]:
    """The source and data files of the subpackages ``layers`` (e.g. "analysis"), sorted by
    their path relative to the package."""
    root = Path(root) if root is not None else package_root()
    files = []
    for layer in layers:
        base = root / layer
        if not base.is_dir():
            raise InputError("layer", f"{layer!r} is not a subpackage of {root}", "subpackages")
        files += [
            p
            for p in base.rglob("*")
            if p.suffix in DATA_SUFFIXES and p.is_file() and "__pycache__" not in p.parts
        ]
    return sorted(set(files), key=lambda p: p.relative_to(root).as_posix())


def manifest(layers, root: Path | None = None) -> str:
    """One line per file, ``<sha256>  privdtol/<relative path>`` (``sha256sum`` format)."""
    root = Path(root) if root is not None else package_root()
    return "".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  privdtol/{p.relative_to(root).as_posix()}\n"
        for p in layer_files(layers, root)
    )


def layer_digest(layers, root: Path | None = None) -> str:
    """sha256 of :func:`manifest`: a function of the files' relative paths and bytes only."""
    return hashlib.sha256(manifest(layers, root).encode()).hexdigest()


def code_stamp(stamp_dir, layers, root: Path | None = None) -> str:
    """The path ``<stamp_dir>/<layers joined by +>-<digest[:16]>.sha256``, written (atomically,
    with the manifest) when it does not exist yet; an existing stamp is never touched."""
    layers = list(layers)
    text = manifest(layers, root)
    digest = hashlib.sha256(text.encode()).hexdigest()
    path = Path(stamp_dir) / f"{'+'.join(layers)}-{digest[:16]}.sha256"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return str(path)
