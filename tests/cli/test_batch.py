"""Tests of :mod:`privdtol.cli.batch`: ``privdtol simulate-batch`` writes one table per cell of
a batch (and the proof terms of the proof cells), skips what exists, and names bad arguments;
a batch's cell tables by the exact engine lie in the Monte Carlo interval of the same cells,
and a cell's proof terms do not depend on the cell computed before it."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from support.configs import bernoulli_cell, exact_config, planned_cells
from support.paths import SMOKE

from privdtol.cli import main
from privdtol.cli.batch import cell_table
from privdtol.engine import exact
from privdtol.engine.exact import EXACT_ALGORITHMS
from privdtol.engine.runner import exact_table_and_averager
from privdtol.pipeline import plan as grid
from privdtol.pipeline.aggregate import aggregate_tables
from privdtol.pipeline.config import load_config
from privdtol.pipeline.proof import cell_terms, horizon_regret, read_terms


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


def test_a_cell_table_is_the_engines_keyed_by_the_cell_id():
    """A correlated staircase cell (rho 0.25; K = 3, gap 1/4, T = 7, 2 runs): every parameter
    column comes from the engine's table (instance, rho; kappa NaN), the cell id first; the
    file's columns are those its reader checks."""
    from privdtol.cli.batch import cell_table
    from privdtol.pipeline.aggregate import CELL_FILE_COLUMNS

    cell = grid.Cell("rps", "correlated", "staircase", 3, 0.25, None, 1.0, 7, 2, 0.25, None, 0)
    table = cell_table(cell)
    columns = list(table.columns)
    assert columns[0] == "cell_id" and set(columns) == set(CELL_FILE_COLUMNS)
    assert columns[-3:] == ["instance", "rho", "kappa"]
    assert set(table["cell_id"]) == {cell.cell_id} and set(table["instance"]) == {"staircase"}
    assert set(table["rho"]) == {0.25} and table["kappa"].isna().all() and len(table) == 6


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


# ----------------------------------------------------------------- exact against Monte Carlo
def assert_within_monte_carlo(exact, mc):
    """Every checkpoint within 4 standard errors of the Monte Carlo mean, plus float round-off
    (a Rao-Blackwellised estimate can have almost no variance).  A realized-action estimate
    (Laplace noise: no explicit law) whose runs all agree has a plug-in se of 0 although the
    rare event it missed has positive probability: such rows say nothing and are skipped."""
    both = exact.merge(mc, on="horizon", suffixes=("_x", "_mc"))
    blind = (both["se_mc"] == 0) & (both["estimator_mc"] == "block_realized")
    slack = 4 * both["se_mc"].fillna(0) + 1e-9 * both["mean_x"].abs()
    gap = (both["mean_x"] - both["mean_mc"]).abs()
    assert (gap <= slack)[~blind].all(), (gap / slack)[~blind].max()
    assert (~blind).sum() >= len(both) // 2


@pytest.mark.parametrize(
    "algorithm, env",
    [
        pytest.param(a, env, marks=[] if (a, env) == ("rps", "bernoulli") else [pytest.mark.slow])
        for a, env in [(a, "bernoulli") for a in EXACT_ALGORITHMS]
        + [("rps", "deterministic"), ("wu_wang", "deterministic")]
    ],
)
def test_exact_cell_lies_in_the_monte_carlo_interval_of_the_same_cell(algorithm, env):
    """The same cell by both engines: the exact value within 4 standard errors of the Monte
    Carlo mean at every checkpoint (a fixed seed; 4 SE is a 6e-5 two-sided level each)."""
    spec = {"algorithms": [algorithm], "env": env, "instance": "staircase"}
    exact = aggregate_tables([cell_table(planned_cells(exact_config(**spec))[algorithm])], "e")
    mc_cell = planned_cells(exact_config(exact="off", runs=2000, **spec))[algorithm]
    mc = aggregate_tables([cell_table(mc_cell)], "e")
    assert_within_monte_carlo(exact, mc)


@pytest.mark.slow
@pytest.mark.parametrize(
    "algorithm, K, instance",
    [
        (a, K, inst)
        for a in EXACT_ALGORITHMS
        for K, inst in ((8, "standard"), (64, "standard"), (1024, "standard"), (8, "staircase"))
    ],
)
def test_exact_agrees_with_monte_carlo_over_instance_sizes(algorithm, K, instance):
    """K in {8, 64, 1024} on standard instances and K = 8 on a staircase (the K = 64 and 1024
    staircases are left out: tens of seconds each for rps): every checkpoint within 4 standard
    errors of 1000 Monte Carlo runs, plus round-off slack."""
    spec = {"algorithms": [algorithm], "K": [K], "gap": [1 / 16], "instance": instance}
    exact = aggregate_tables([cell_table(planned_cells(exact_config(**spec))[algorithm])], "e")
    mc = aggregate_tables(
        [cell_table(planned_cells(exact_config(exact="off", runs=1000, **spec))[algorithm])], "e"
    )
    assert_within_monte_carlo(exact, mc)


# ----------------------------------------------------------------- proof terms, cell by cell
def _terms(cell):
    table, avg = exact_table_and_averager(cell.spec())
    terms = cell_terms(cell, horizon_regret(table, cell), avg)
    return table.to_json(), json.dumps(terms, sort_keys=True)


@pytest.mark.parametrize(
    "order",
    [
        (("rps", 2.0), ("rps", 4.0)),  # one law
        (("rps", 4.0), ("rps", 2.0)),
        (("rps", 8.0), ("rps_short_prefix", 8.0)),  # one temperature, two prefix rules
        (("rps_short_prefix", 8.0), ("rps", 8.0)),
    ],
)
def test_proof_terms_do_not_depend_on_the_cell_before(order, monkeypatch):
    from privdtol.pipeline import proof

    alone = {}
    for cell in order:
        exact._RECENT.clear()
        monkeypatch.setattr(proof, "_SUMS", {})
        alone[cell] = _terms(bernoulli_cell(*cell))
    exact._RECENT.clear()
    monkeypatch.setattr(proof, "_SUMS", {})
    together = {cell: _terms(bernoulli_cell(*cell)) for cell in order}
    assert together == alone
    assert alone[order[0]][1] != alone[order[1]][1]  # eps or the prefix rule matters
