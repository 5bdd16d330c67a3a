"""Atomic table writers: an output file either appears whole or not at all.

Every writer goes to a temporary file in the destination directory and renames it into place
(rename is atomic on POSIX), so a killed job never leaves a truncated CSV/Parquet behind.
The temporary file is created the way ``open()`` creates a file (mode ``0o666 & ~umask``,
so 0644 under the usual umask 022), not with :func:`tempfile.mkstemp` (always 0600): results
on a shared cluster stay readable by the other users of the project.
"""

from __future__ import annotations

import json
import math
import os
import secrets
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from privdtol.errors import InputError

TABLE_FORMATS = (".csv", ".parquet")


def check_table_path(path: str | Path, field: str = "out") -> Path:
    path = Path(path)
    if path.suffix not in TABLE_FORMATS:
        raise InputError(
            field, f"unknown extension {path.suffix!r} in {path}", ", ".join(TABLE_FORMATS)
        )
    if path.parent and not path.parent.exists():
        raise InputError(field, f"directory {path.parent} does not exist", "an existing directory")
    return check_writable(path, field)


def check_writable(path: str | Path, field: str = "out") -> Path:
    """``path`` can be written by :func:`atomic_path` (checked before any work): not a
    directory, in a directory where a file can be created (not ``/proc``, not read-only)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(field, f"{path} is a directory", "a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if parent.exists() and not (parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)):
        raise InputError(field, f"cannot create files in {parent}", "a writable directory")
    if parent.resolve().is_relative_to("/proc") or parent.resolve().is_relative_to("/sys"):
        raise InputError(field, f"cannot create files in {parent}", "a writable directory")
    return path


def _create_temp(path: Path) -> Path:
    """Create a new empty file ``.<name>.<random>.tmp`` beside ``path``, exclusively (like
    mkstemp) but with mode ``0o666`` filtered by the process umask (like ``open()``)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(tmp, flags, 0o666))
        except FileExistsError:
            continue
        return tmp
    raise FileExistsError(f"no free temporary name beside {path}")


@contextmanager
def atomic_path(path: str | Path, field: str = "out"):
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success only.

    The file appears with the permissions ``open()`` would give it (``0o666 & ~umask``).  A
    path that cannot be written (in ``/proc``, onto a directory) is one InputError on
    ``field``, and nothing is left behind."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = _create_temp(path)
    except OSError as err:  # /proc, a read-only or full file system: one line
        raise InputError(field, f"cannot write {path} ({err.strerror or err})") from None
    try:
        yield Path(tmp)
        try:
            os.replace(tmp, path)
        except OSError as err:  # onto a directory
            raise InputError(field, f"cannot write {path} ({err.strerror or err})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_table(df: pd.DataFrame, path: str | Path) -> None:
    """Write CSV or Parquet (by extension) atomically and deterministically."""
    path = Path(path)
    with atomic_path(path) as tmp:
        try:
            if path.suffix == ".parquet":
                df.to_parquet(tmp, index=False, engine="pyarrow", compression="zstd")
            else:
                df.to_csv(tmp, index=False, lineterminator="\n")  # shortest round-trip floats
        except OSError as err:  # a full disk (ENOSPC, EFBIG): the file it was writing, named
            raise OSError(err.errno, err.strerror or _first_line(err), str(path)) from None


def _first_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return text[:200] or type(err).__name__


def read_table(path: str | Path, field: str = "input", **kwargs) -> pd.DataFrame:
    """A CSV or Parquet table (by extension); a missing, truncated or malformed file is one
    InputError on ``field`` naming the file and what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise InputError(field, f"{path}: no such file", "an existing table")
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path, **kwargs)
        return pd.read_csv(path, **kwargs)
    except Exception as err:  # pyarrow and pandas raise many types
        kind = "Parquet" if path.suffix == ".parquet" else "CSV"
        problem = f"{path}: not a readable {kind} file ({_first_line(err)})"
        raise InputError(field, problem) from None


def read_json(
    path: str | Path, field: str = "input", missing_ok: bool = False, strict: bool = False
):
    """A JSON file's value (None when absent and ``missing_ok``); a missing, truncated or
    malformed file is one InputError on ``field`` naming the file and what is wrong.  With
    ``strict``, ``NaN`` and ``Infinity`` (which Python's json reads, and JSON does not allow)
    are refused too."""
    path = Path(path)
    if not path.is_file():
        if missing_ok and not path.exists():
            return None
        raise InputError(field, f"{path}: no such file", "an existing JSON file")
    try:
        return json.loads(
            path.read_bytes().decode("utf-8"), parse_constant=_no_constant if strict else None
        )
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise InputError(field, f"{path}: not readable JSON ({_first_line(err)})") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a finite number")


def read_json_strict(path: str | Path, field: str = "input", missing_ok: bool = False):
    """:func:`read_json` with ``strict``: ``NaN`` and ``Infinity`` refused (one InputError
    line naming the file)."""
    return read_json(path, field, missing_ok, strict=True)


#: the kinds of :func:`check_shape`: a JSON value's type in words, and its test
KINDS = {
    "str": ("a string", lambda v: isinstance(v, str)),
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "num": (
        "a finite number",
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    ),
    "dict": ("an object", lambda v: isinstance(v, dict)),
    "list": ("a list", lambda v: isinstance(v, list)),
}


def check_shape(data, shape: dict, path, field: str, where: str = "") -> None:
    """``data`` (a JSON object) against ``shape``: ``{key: kind}``, a kind one of
    :data:`KINDS`, ``"<kind>?"`` (or null), a nested shape (an object of that shape) or
    ``[shape]`` (a list of objects of that shape).  The first defect is one InputError line
    naming the file and the key."""
    if not isinstance(data, dict):
        raise InputError(field, f"{path}: {where or 'top level'} is not an object")
    for key, kind in shape.items():
        name = f"{where}.{key}" if where else key
        if key not in data:
            raise InputError(field, f"{path}: missing key {name!r}")
        value = data[key]
        if isinstance(kind, dict):
            check_shape(value, kind, path, field, name)
        elif isinstance(kind, list):
            if not isinstance(value, list):
                raise InputError(field, f"{path}: key {name!r} is not a list")
            for i, item in enumerate(value):
                check_shape(item, kind[0], path, field, f"{name}[{i}]")
        elif not (kind.endswith("?") and value is None):
            words, ok = KINDS[kind.rstrip("?")]
            if not ok(value):
                got = value if isinstance(value, (int, float)) else type(value).__name__
                raise InputError(
                    field,
                    f"{path}: key {name!r} is {got!r}",
                    words + (" or null" if kind.endswith("?") else ""),
                )
