"""Tests of :mod:`privdtol.cli.explorer`: ``privdtol explorer`` refuses a table it cannot show in
one line naming ``--agg`` (or the view's option), and writes no page."""

from __future__ import annotations

import pandas as pd
import pytest
from support.explorer_tables import privacy_table
from support.tables import agg_table

from privdtol.cli import main
from privdtol.report.html.explorer import REQUIRED


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


@pytest.mark.parametrize("view", ["privacy", "proof", "searches"])
def test_explorer_bad_view_table_is_one_line_naming_it_exit_2(tmp_path, capsys, view):
    """A view's table (--privacy, --proof, --searches) missing, or lacking a column: one line
    naming the option and the file, no page."""
    agg = tmp_path / "horizon.parquet"
    agg_table(columns=REQUIRED, bound_thm1=1000.0).to_parquet(agg)
    table = tmp_path / f"{view}.parquet"
    out = tmp_path / "explorer" / "index.html"
    args = ["explorer", "--agg", str(agg), "--checks", str(tmp_path), "--out", str(out)]
    rc = main([*args, f"--{view}", str(table)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1, err
    assert f"--{view}" in err and str(table) in err and "does not exist" in err
    pd.DataFrame({"algorithm": ["rps"]}).to_parquet(table)
    rc = main([*args, f"--{view}", str(table)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "lacks the columns" in err, err
    assert not out.exists()


def test_explorer_writes_the_views_it_is_given(tmp_path, capsys):
    agg = tmp_path / "horizon.parquet"
    agg_table(columns=REQUIRED, bound_thm1=1000.0).to_parquet(agg)
    privacy_table().to_parquet(tmp_path / "privacy.parquet")
    out = tmp_path / "explorer" / "index.html"
    rc = main(["explorer", "--agg", str(agg), "--checks", str(tmp_path), "--out", str(out),
               "--privacy", str(tmp_path / "privacy.parquet")])  # fmt: skip
    assert rc == 0 and out.is_file()
    assert '"rps_eta_eps"' in out.read_text() and '"proof":null' in out.read_text()


def test_explorer_given_a_csv_is_one_line(tmp_path, capsys):
    """Before the fix: a traceback."""
    agg = tmp_path / "horizon.csv"
    agg_table(columns=REQUIRED, bound_thm1=1000.0).to_csv(agg, index=False)
    out = tmp_path / "explorer" / "index.html"
    rc = main(["explorer", "--agg", str(agg), "--checks", str(tmp_path), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "--agg" in err and str(agg) in err, err
    assert not out.exists()
