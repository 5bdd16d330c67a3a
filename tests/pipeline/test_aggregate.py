"""Tests of :mod:`privdtol.pipeline.aggregate`: the agg-table contract (columns as documented in
docs/pipeline.md, mean, se, normal interval, quantiles, bounds and paired tails per horizon), an
exact cell aggregated to its value with its error bound as interval, and the exact engine's
values inside the Monte Carlo interval of the same cell."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from support.configs import exact_config, planned_cells
from support.paths import ROOT

from privdtol.cli.batch import cell_table
from privdtol.core import bounds
from privdtol.pipeline import aggregate
from privdtol.pipeline.aggregate import aggregate_tables
from privdtol.pipeline.semantics import PIPELINE_TABLES


def documented_columns() -> list[str]:
    """The agg-table columns in the order docs/pipeline.md documents them: the contract the
    notebooks and checks are written against, so a change of aggregate.COLUMNS that the
    documentation does not make too fails here."""
    text = (ROOT / "docs" / "pipeline.md").read_text()
    listed = re.search(r"\*\*Aggregation\.\*\*.*?with\s+columns\s+`([^`]+)`", text, re.DOTALL)
    assert listed, "docs/pipeline.md no longer lists the agg-table columns"
    return [c.strip() for c in listed.group(1).split(",")]


def fake_cell(cell_id="c1", algorithm="rps", epsilon=1.0, runs=5, horizons=(1, 3, 7), seed=0):
    rng = np.random.default_rng(seed)
    n = runs * len(horizons)
    return pd.DataFrame(
        {
            "cell_id": cell_id,
            "algorithm": algorithm,
            "env": "bernoulli",
            "K": 4,
            "gap": 0.25,
            "mu_best": 0.375,
            "epsilon": epsilon,
            "eta": 0.125 if epsilon == epsilon else np.nan,
            "horizon": np.tile(horizons, runs),
            "run": np.repeat(np.arange(runs), len(horizons)),
            "regret": rng.random(n) * 10,
            "regret_realized": rng.random(n) * 10,
            "estimator": "block_rb",
            "instance": "standard",
            "rho": np.nan,
            "kappa": np.nan,
        }
    )


def test_contract_columns_and_statistics():
    t = fake_cell()
    df = aggregate.aggregate_tables([t], "exp")
    assert list(df.columns) == aggregate.COLUMNS == documented_columns()
    assert len(df) == 3 and list(df.horizon) == [1, 3, 7]
    for h, row in df.set_index("horizon").iterrows():
        x = t.loc[t.horizon == h, "regret"].to_numpy()
        y = t.loc[t.horizon == h, "regret_realized"].to_numpy()
        se = x.std(ddof=1) / np.sqrt(x.size)
        assert row["runs"] == 5
        assert row["mean"] == pytest.approx(x.mean())
        assert row["se"] == pytest.approx(se)
        assert row["ci_low"] == pytest.approx(x.mean() - 1.96 * se)
        assert row["ci_high"] == pytest.approx(x.mean() + 1.96 * se)
        for name, q in aggregate.QUANTILES.items():
            assert row[name] == pytest.approx(np.quantile(x, q))
        assert row["mean_realized"] == pytest.approx(y.mean())
        assert row["se_realized"] == pytest.approx(y.std(ddof=1) / np.sqrt(y.size))
        assert row["bound_thm1"] == pytest.approx(bounds.theorem1(4, 0.25, 1.0))
        assert row["bound_corollary"] == pytest.approx(bounds.corollary(4, 0.25, 1.0))
        assert row["rate"] == pytest.approx(np.log(4) / 0.25 + np.log(4))
        assert row["lower_shape"] == pytest.approx(np.log(4) / 0.25)
        assert row["wu_wang_shape"] == pytest.approx(np.log(4) / 0.25 + np.log(4) ** 2)


def test_non_private_bounds_are_nan_and_single_run_se_is_nan():
    df = aggregate.aggregate_tables([fake_cell(algorithm="ftl", epsilon=np.nan, runs=1)], "e")
    for col in (
        "bound_thm1",
        "bound_corollary",
        "rate",
        "lower_shape",
        "wu_wang_shape",
        "se",
        "ci_low",
        "epsilon",
        "tail_se",
    ):
        assert df[col].isna().all(), col
    assert (df["runs"] == 1).all()
    assert df["tail_mean"].iloc[-1] == 0.0  # the largest horizon's tail is empty


def test_paired_tail_by_hand():
    """tail = per run, regret at the largest horizon (7) minus regret at the row's horizon.

    run  T=1  T=3  T=7   tail(1)  tail(3)  tail(7)
     0    1    2    4       3        2        0
     1    2    2    2       0        0        0
     2    0    3    6       6        3        0

    tail(1): mean 3, sd 3 (ddof=1), se 3/sqrt(3) = sqrt(3);
    tail(3): mean 5/3, var 7/3, se sqrt(7/9) = sqrt(7)/3; tail(7): 0 and 0.
    """
    t = fake_cell(runs=3, horizons=(1, 3, 7))
    t["regret"] = [1.0, 2.0, 4.0, 2.0, 2.0, 2.0, 0.0, 3.0, 6.0]
    t = t.iloc[::-1].reset_index(drop=True)  # row order of the run table must not matter
    df = aggregate.aggregate_tables([t], "exp").set_index("horizon")
    assert list(df.columns[-2:]) == ["tail_mean", "tail_se"]
    assert df.loc[1, "tail_mean"] == pytest.approx(3.0)
    assert df.loc[1, "tail_se"] == pytest.approx(np.sqrt(3.0))
    assert df.loc[3, "tail_mean"] == pytest.approx(5 / 3)
    assert df.loc[3, "tail_se"] == pytest.approx(np.sqrt(7.0) / 3)
    assert df.loc[7, "tail_mean"] == 0.0 and df.loc[7, "tail_se"] == 0.0
    # the mean of the per-run increments is the difference of the means
    assert df.loc[1, "tail_mean"] == pytest.approx(df.loc[7, "mean"] - df.loc[1, "mean"])
    assert df.loc[1, "mean"] == pytest.approx(1.0) and df.loc[7, "mean"] == pytest.approx(4.0)
    # unchanged regret at every horizon: every increment is exactly 0
    t["regret"] = 5.0
    flat = aggregate.aggregate_tables([t], "exp")
    assert (flat["tail_mean"] == 0.0).all() and (flat["tail_se"] == 0.0).all()


def test_order_of_cells_does_not_matter():
    cells = [
        fake_cell(f"c{i}", algorithm=a, epsilon=e, seed=i)
        for i, (a, e) in enumerate([("rps", 1.0), ("ftl", np.nan), ("rps", 0.5), ("wu_wang", 0.25)])
    ]
    a = aggregate.aggregate_tables(cells, "e")
    b = aggregate.aggregate_tables(cells[::-1], "e")
    pd.testing.assert_frame_equal(a, b)
    assert list(a.algorithm.unique()) == ["ftl", "rps", "wu_wang"]


def test_ragged_cell_is_refused():
    t = fake_cell().iloc[:-1]
    with pytest.raises(ValueError, match="ragged"):
        aggregate.summarize_cell(t)


def test_exact_cell_aggregates_to_its_value_with_the_error_bound_as_interval():
    cell = planned_cells(exact_config())["rps"]
    table = cell_table(cell)
    assert set(table["run"]) == {0} and set(table["estimator"]) == {"exact"}
    agg = aggregate_tables([table], "e")
    assert (agg["runs"] == 0).all()
    np.testing.assert_array_equal(agg["mean"], table.sort_values("horizon")["regret"])
    eb = table.sort_values("horizon")["error_bound"].to_numpy()
    np.testing.assert_array_equal(agg["ci_high"], agg["mean"] + eb)
    np.testing.assert_array_equal(agg["ci_low"], agg["mean"] - eb)
    assert agg["q50"].isna().all() and agg["mean_realized"].isna().all()
    assert agg["tail_mean"].iloc[-1] == 0.0


def test_pipeline_tables_are_every_table_the_workflow_writes_beside_the_experiments():
    """One definition: every ``{AGG_DIR}/<name>.parquet`` of the rules (and the lower bounds'
    BOUNDS_TABLE) is in PIPELINE_TABLES, so check-config refuses an experiment named so."""
    from support.paths import ROOT

    from privdtol.analysis.claim_types import BOUNDS_TABLE

    text = "".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    written = set(re.findall(r"\{AGG_DIR\}/([a-z_]+)\.parquet", text)) | {BOUNDS_TABLE}
    assert written == set(PIPELINE_TABLES)


@pytest.mark.parametrize("exact", [False, True], ids=["monte-carlo", "exact"])
def test_one_infinite_regret_in_a_smoke_cell_at_nine_runs_is_one_line(tmp_path, exact):
    """config/smoke.yaml with ``--config runs=9``: a cell file holding one +inf regret was an
    aggregation traceback ("ValueError: not enough values to unpack") where the default config's
    was refused; now one line naming the file, for a Monte Carlo cell (FTL, 9 runs) and an exact
    one (RPS) of the smoke plan alike."""
    from support.paths import SMOKE

    from privdtol.errors import InputError
    from privdtol.pipeline.config import load_config_files
    from privdtol.pipeline.plan import plan

    config = load_config_files([SMOKE])
    config["runs"] = 9
    cells, _ = plan(config)["horizon"]
    cell = next(c for c in cells if c.algorithm == ("rps" if exact else "ftl"))
    assert cell.exact is exact and cell.runs == (0 if exact else 9)
    table = cell_table(cell)
    table.loc[table.index[3], "regret"] = np.inf
    path = tmp_path / f"{cell.cell_id}.parquet"
    table.to_parquet(path, index=False)  # pandas keeps the cell's parameters (attrs)
    with pytest.raises(InputError) as err:
        aggregate.aggregate_files([path], "horizon")
    assert str(err.value) == (
        f"cells: {path}: column 'regret' holds inf (allowed: finite pseudo-regrets in [0, T])"
    )
