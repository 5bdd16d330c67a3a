"""Tests of :mod:`privdtol.cli.batch`: ``privdtol simulate-batch`` writes one table per cell of
a batch (and the proof terms of the proof cells), skips what exists, and names bad arguments."""

from __future__ import annotations

import pandas as pd
from support.paths import SMOKE

from privdtol.cli import main
from privdtol.pipeline import plan as grid
from privdtol.pipeline.config import load_config
from privdtol.pipeline.proof import read_terms


def test_simulate_batch_cli_writes_skips_and_forces(tmp_path, capsys):
    out = tmp_path / "sim"
    args = [
        "simulate-batch",
        "--config",
        str(SMOKE),
        "--experiment",
        "horizon",
        "--batch",
        "0",
        "--out-dir",
        str(out),
    ]
    assert main(args) == 0
    files = sorted(out.glob("*.parquet"))
    cfg = load_config(SMOKE)
    cells = grid.plan(cfg)["horizon"][1][0].cells
    assert [f.stem for f in files] == sorted(c.cell_id for c in cells)
    first = {f: f.read_bytes() for f in files}
    assert f"{len(cells)} cells computed, 0 skipped" in capsys.readouterr().err
    assert main(args) == 0  # everything exists: skipped
    assert f"0 cells computed, {len(cells)} skipped" in capsys.readouterr().err
    files[0].write_bytes(b"PAR1 truncated")  # an untrustworthy file
    assert main(args) == 0
    assert f"1 cells computed, {len(cells) - 1} skipped" in capsys.readouterr().err
    assert main([*args, "--force"]) == 0
    assert {f: f.read_bytes() for f in files} == first  # same bytes, recomputed
    # the pipeline's --cells form gives the same files
    other = tmp_path / "other"
    batch = grid.plan(cfg)["horizon"][1][0]
    assert main(["simulate-batch", "--cells", batch.cells_json(), "--out-dir", str(other)]) == 0
    assert {f.name: f.read_bytes() for f in files} == {
        f.name: f.read_bytes() for f in sorted(other.glob("*.parquet"))
    }


def test_simulate_batch_writes_the_proof_cells_terms(tmp_path, capsys):
    """``simulate-batch --proof-dir --proof-cells`` writes the terms of the proof cells only,
    with Reg_T at the horizon taken from the cell's own exact table, and skips a cell only when
    both of its files exist."""
    cells = [
        grid.Cell("rps", "bernoulli", "standard", 4, 0.25, None, 1.0, 1023, 0, None, None, 0),
        grid.Cell("rnm_ftnl", "bernoulli", "standard", 4, 0.25, None, 1.0, 1023, 0, None, None, 0),
    ]
    cells_json = grid.Batch("x", 0, tuple(cells)).cells_json()
    ids = cells[0].cell_id
    args = ["simulate-batch", "--cells", cells_json, "--out-dir", str(tmp_path / "sim")]
    assert main([*args, "--proof-dir", str(tmp_path / "proof"), "--proof-cells", ids]) == 0
    assert sorted(p.name for p in (tmp_path / "proof").iterdir()) == [f"{ids}.json"]
    terms = read_terms(tmp_path / "proof" / f"{ids}.json")
    table = pd.read_parquet(tmp_path / "sim" / f"{ids}.parquet")
    assert terms["regret"] == float(table.loc[table["horizon"] == 1023, "regret"].iloc[0])
    assert terms["cell_id"] == ids and terms["sum_F"] > 0
    (tmp_path / "proof" / f"{ids}.json").unlink()
    capsys.readouterr()
    assert main([*args, "--proof-dir", str(tmp_path / "proof"), "--proof-cells", ids]) == 0
    log = capsys.readouterr().err
    assert "1 cells computed, 1 skipped" in log and (tmp_path / "proof" / f"{ids}.json").exists()
    assert main([*args, "--proof-cells", ids]) == 2  # no --proof-dir
    assert main([*args, "--proof-dir", str(tmp_path), "--proof-cells", "0" * 16]) == 2
    assert "--proof-cells: not cells of the batch" in capsys.readouterr().err


def test_cli_errors_name_the_argument(tmp_path, capsys):
    assert main(["simulate-batch", "--out-dir", str(tmp_path)]) == 2
    assert "--cells: no cells given" in capsys.readouterr().err
    assert (
        main(
            [
                "simulate-batch",
                "--config",
                str(SMOKE),
                "--experiment",
                "nope",
                "--batch",
                "0",
                "--out-dir",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert (
        "--experiment: unknown experiment 'nope' (allowed: horizon, gap" in capsys.readouterr().err
    )


def test_a_cell_computed_by_other_code_is_computed_again(tmp_path, capsys, monkeypatch):
    """Editing the simulator (a factor 2 on the regret) or a plugin reran nothing: a cell file
    records the digest of the code that computed it, and simulate-batch recomputes a cell
    whose digest is not the running code's."""
    from privdtol.pipeline import staleness
    from privdtol.pipeline.plan import CODE_ATTR

    out = tmp_path / "sim"
    args = ["simulate-batch", "--config", str(SMOKE), "--experiment", "horizon"]
    args += ["--batch", "0", "--out-dir", str(out)]
    assert main(args) == 0
    files = sorted(out.glob("*.parquet"))
    cell = grid.plan(load_config(SMOKE))["horizon"][1][0].cells[0]
    assert pd.read_parquet(files[0]).attrs[CODE_ATTR] == staleness.cell_code(
        cell.algorithm, cell.env
    )
    capsys.readouterr()
    monkeypatch.setattr(staleness, "cell_code", lambda algorithm, env: "an edited engine")
    assert main(args) == 0
    assert f"{len(files)} cells computed, 0 skipped" in capsys.readouterr().err
    assert main(args) == 0  # computed by the running code: trusted
    assert f"0 cells computed, {len(files)} skipped" in capsys.readouterr().err
