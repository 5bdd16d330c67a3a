"""Tests of :mod:`privdtol.cli.aggregate`: ``privdtol aggregate`` on real cell tables, and its
refusal of bad input in one line."""

from __future__ import annotations

import pandas as pd
import pytest
from support.cli import one_line_error

from privdtol.cli import main
from privdtol.cli.batch import cell_table
from privdtol.pipeline import aggregate
from privdtol.pipeline import plan as grid

T30 = (1 << 30) - 1


def test_cli_on_real_cells_is_byte_deterministic(tmp_path):
    cells = [
        grid.Cell("rps", "bernoulli", "standard", 4, 0.25, None, 1.0, T30, 20, None, None, 0),
        grid.Cell("hedge", "correlated", "standard", 4, 0.25, None, None, T30, 20, 0.5, None, 0),
    ]
    files = []
    for c in cells:
        path = tmp_path / f"{c.cell_id}.parquet"
        cell_table(c).to_parquet(path, index=False)
        files.append(str(path))
    outs = []
    for i, order in enumerate((files, files[::-1])):
        out = tmp_path / f"agg{i}.parquet"
        csv = tmp_path / f"agg{i}.csv"
        assert (
            main(["aggregate", "--experiment", "x", "--out", str(out), "--out", str(csv), *order])
            == 0
        )
        outs.append((out.read_bytes(), csv.read_bytes()))
    assert outs[0] == outs[1]
    df = pd.read_parquet(tmp_path / "agg0.parquet")
    assert list(df.columns) == aggregate.COLUMNS
    assert set(df.cell_id) == {c.cell_id for c in cells}
    hedge = df[df.algorithm == "hedge"]
    assert hedge.rho.eq(0.5).all() and hedge.epsilon.isna().all() and hedge.kappa.isna().all()
    assert df.horizon.max() == T30


def test_an_out_file_of_an_unknown_format_is_named(tmp_path, capsys):
    assert (
        main(
            [
                "aggregate",
                "--experiment",
                "x",
                "--out",
                str(tmp_path / "a.txt"),
                str(tmp_path / "c.parquet"),
            ]
        )
        == 2
    )
    assert "--out" in capsys.readouterr().err


def test_truncated_parquet_named_by_aggregate(tmp_path, capsys):
    good = tmp_path / "a.parquet"
    pd.DataFrame({"x": range(100)}).to_parquet(good)
    bad = tmp_path / "b.parquet"
    bad.write_bytes(good.read_bytes()[:50])
    out = tmp_path / "agg.parquet"
    args = ["aggregate", "--experiment", "horizon", "--out", out, bad]
    one_line_error(capsys, args, str(bad))
    assert not out.exists()


# ----------------------------------------------------------------- corrupt cell files
SMALL_CELLS = [
    grid.Cell("rps", "bernoulli", "standard", 2, 0.5, None, 1.0, 1023, 20, None, None, 0),
    grid.Cell("ftl", "bernoulli", "standard", 2, 0.5, None, None, 1023, 20, None, None, 0),
]


def _write_cells(tmp_path):
    paths = []
    for c in SMALL_CELLS:
        path = tmp_path / f"{c.cell_id}.parquet"
        cell_table(c).to_parquet(path, index=False)
        paths.append(path)
    return paths


def _nan(df):
    df.loc[3, "regret"] = float("nan")
    return df


def _huge_negative(df):
    df.loc[3, "regret"] = -1e300
    return df


def _half(df):
    return df.iloc[: len(df) // 2]


def _no_params(df):
    df.attrs.clear()
    return df


@pytest.mark.parametrize(
    ("corrupt", "says"),
    [
        (_nan, "column 'regret' holds nan"),
        (_huge_negative, "column 'regret' holds -1e+300"),
        (_half, "rows where the cell promises"),
        (_no_params, "carries no cell parameters"),
        ("copy", "another cell's bytes"),
        ("twice", "given twice"),
    ],
)
def test_corrupt_cell_file_refused_in_one_line(tmp_path, capsys, corrupt, says):
    """Before the fix each was aggregated (exit 0): NaN and -1e300 regrets reached the checks,
    half a cell gave a table with 10 runs, a copy of another cell's bytes gave 2 rows of one
    cell where 2 cells were given."""
    a, b = _write_cells(tmp_path)
    args = [a, b]
    if corrupt == "copy":
        b.write_bytes(a.read_bytes())
    elif corrupt == "twice":
        args = [a, b, a]
    else:
        corrupt(pd.read_parquet(a)).to_parquet(a, index=False)
    out = tmp_path / "agg.parquet"
    line = one_line_error(capsys, ["aggregate", "--experiment", "x", "--out", out, *args], says)
    assert line.startswith("privdtol aggregate: error: --cells: ")
    assert str(b if corrupt == "copy" else a) in line
    assert not out.exists()
