"""Tests of :mod:`privdtol.cli.aggregate`."""

from __future__ import annotations

import pandas as pd

from privdtol.cli import main

# --- from tests/test_bad_input.py


def one_line(capsys, args, naming: str) -> str:
    """Run the CLI; assert exit 2 with one stderr line that names ``naming``, no stdout."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert naming in lines[0], lines[0]
    assert "Traceback" not in err and out == ""
    return lines[0]


# ----------------------------------------------------------------- readers name the bad file
def test_truncated_parquet_named_by_aggregate(tmp_path, capsys):
    good = tmp_path / "a.parquet"
    pd.DataFrame({"x": range(100)}).to_parquet(good)
    bad = tmp_path / "b.parquet"
    bad.write_bytes(good.read_bytes()[:50])
    out = tmp_path / "agg.parquet"
    args = ["aggregate", "--experiment", "horizon", "--out", out, bad]
    one_line(capsys, args, str(bad))
    assert not out.exists()
