"""The files the pipeline reads back: a real cell file with values set to NaN, infinities or
extremes, rows dropped or duplicated, or a column dropped, through ``privdtol aggregate`` (exit
0, or exit 2 with one line naming the file, never a traceback, within a time and a memory
limit: the contract of :mod:`support.fuzz`; a non-finite or out-of-range regret is refused and
no table written), and an unpacked archive whose check record was edited after packing,
through ``privdtol archive-compare`` (the file named).  A file deleted from or changed in an
unpacked archive: tests/archive/test_build.py."""

from __future__ import annotations

import math
import shutil

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import archive_run, committed_run, run_cli, unpacked
from support.fuzz import FAST, assert_contract

from privdtol.cli import main
from privdtol.cli.batch import cell_table
from privdtol.pipeline import plan as grid

# ----------------------------------------------------------------------------- cell files
CELL = grid.Cell("rps", "bernoulli", "standard", 2, 0.5, None, 1.0, 255, 10, None, None, 0)
VALUES = st.sampled_from([math.nan, math.inf, -math.inf, -1e300, 1e300, -1.0, 0.0, 1e6])


@st.composite
def corruption(draw):
    kind = draw(st.sampled_from(["value", "value", "drop", "duplicate", "column"]))
    column = draw(st.sampled_from(["regret", "regret_realized", "K", "gap", "horizon", "run"]))
    return kind, column, draw(VALUES), draw(st.integers(0, 10**6))


@pytest.fixture(scope="module")
def cell_bytes(tmp_path_factory):
    path = tmp_path_factory.mktemp("cell") / f"{CELL.cell_id}.parquet"
    cell_table(CELL).to_parquet(path, index=False)
    return path.read_bytes()


@settings(FAST, max_examples=30)
@given(case=corruption())
def test_fuzz_cell_files(tmp_path_factory, cell_bytes, case):
    kind, column, value, seed = case
    tmp = tmp_path_factory.mktemp("fuzz")
    path = tmp / f"{CELL.cell_id}.parquet"
    path.write_bytes(cell_bytes)
    df = pd.read_parquet(path)
    row = seed % len(df)
    if kind == "value":
        df[column] = df[column].astype(float)
        df.loc[row, column] = value
    elif kind == "drop":
        df = df.drop(index=row)
    elif kind == "duplicate":
        df = pd.concat([df, df.iloc[[row]]])
    else:
        df = df.drop(columns=[column])
    df.to_parquet(path, index=False)
    out = tmp / "agg.parquet"
    run = run_cli(
        "aggregate", "--experiment", "x", "--out", out, path, in_process=True, limited=True
    )
    code, err = run.returncode, run.stderr
    assert_contract(code, err, [str(path)])
    regret_bad = kind == "value" and column == "regret" and not 0 <= value <= 255
    regret_bad |= kind == "value" and column == "regret_realized" and not abs(value) <= 255
    if regret_bad or kind in ("drop", "duplicate", "column"):
        assert code == 2 and not out.exists(), err


# ----------------------------------------------------------------------------- archive
def test_a_tampered_archive_fails_archive_compare_naming_the_file(tmp_path, capsys):
    """``privdtol archive-compare`` (the end of ``make replay``) on an unpacked archive whose
    check record was edited after packing: exit 1, the record named, whatever was rebuilt."""
    top = unpacked(archive_run(committed_run(tmp_path), tmp_path / "a"), tmp_path / "x")
    rebuilt = tmp_path / "rebuilt"
    for sub in ("agg", "checks"):
        shutil.copytree(top / "run" / "results" / sub, rebuilt / sub)
    record = top / "run" / "results" / "checks" / "C2.json"
    assert '"PASS"' in record.read_text()
    record.write_text(record.read_text().replace('"PASS"', '"FAIL"'))  # a verdict flipped
    code = main(["archive-compare", "--run", str(top / "run"), "--results", str(rebuilt)])
    err = capsys.readouterr().err
    named = f"results/checks/{record.name}"
    assert code == 1, err
    assert f"run/{named}: sha256 differs from the one ro-crate-metadata.json records" in err
    assert f"{named}: differs (sha256 " in err
