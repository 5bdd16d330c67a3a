"""Tests of :mod:`privdtol.pipeline.io`: written files are readable by all, and a failed write
leaves neither the file nor its temporary."""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest

from privdtol.pipeline.io import atomic_path, write_table


# ----------------------------------------------------------------------------- permissions
@contextmanager
def umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    "mask, expected",
    [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)],
    ids=["umask022", "umask027", "umask002"],
)
def test_written_files_have_open_permissions(tmp_path, mask, expected):
    """Like open(): mode 0o666 & ~umask (0644 under the usual 022), not mkstemp's 0600."""
    df = pd.DataFrame({"a": [1, 2], "b": [0.5, 0.25]})
    with umask(mask):
        write_table(df, tmp_path / "t.csv")
        write_table(df, tmp_path / "t.parquet")
        with atomic_path(tmp_path / "sub" / "x.json") as tmp:
            tmp.write_text("{}\n")
        (tmp_path / "old.txt").write_text("old")
        os.chmod(tmp_path / "old.txt", 0o600)
        with atomic_path(tmp_path / "old.txt") as tmp:  # replacing a file gives the new mode
            tmp.write_text("new")
    for name in ("t.csv", "t.parquet", "sub/x.json", "old.txt"):
        assert _mode(tmp_path / name) == expected, f"{name}: {oct(_mode(tmp_path / name))}"
    assert _mode(tmp_path / "sub") == 0o777 & ~mask
    assert (tmp_path / "old.txt").read_text() == "new"
    assert pd.read_parquet(tmp_path / "t.parquet").equals(df)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt", "sub", "t.csv", "t.parquet"]


def test_failed_write_leaves_neither_file_nor_temporary(tmp_path):
    (tmp_path / "keep.csv").write_text("a\n1\n")
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "keep.csv") as tmp:
        tmp.write_text("a\n2\n")
        raise RuntimeError("killed halfway")
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "new.csv") as tmp:
        raise RuntimeError("killed before writing")
    assert [p.name for p in tmp_path.iterdir()] == ["keep.csv"]
    assert (tmp_path / "keep.csv").read_text() == "a\n1\n"
