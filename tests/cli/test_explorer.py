"""Tests of :mod:`privdtol.cli.explorer`: ``privdtol explorer`` refuses a table it cannot show in
one line naming ``--agg``, and writes no page."""

from __future__ import annotations

import pytest
from support.tables import agg_table

from privdtol.cli import main
from privdtol.report.explorer import REQUIRED


@pytest.mark.parametrize(
    ("damage", "message"),
    [("drop", "lacks the columns mean"), ("missing", "does not exist")],
)
def test_explorer_bad_table_is_one_line_exit_2(tmp_path, capsys, damage, message):
    path = tmp_path / "horizon.parquet"
    if damage == "drop":
        agg_table(columns=REQUIRED, drop=["mean"], bound_thm1=1000.0).to_parquet(path)
    out = tmp_path / "explorer" / "index.html"
    rc = main(["explorer", "--agg", str(path), "--checks", str(tmp_path), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and message in err and "--agg" in err
    assert not out.exists()
    assert "mean" in REQUIRED
