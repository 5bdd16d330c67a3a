"""Guards found by mutation testing of ``privdtol.analysis`` (``make mutation GROUPS=analysis``,
docs/testing.md), third batch (a fresh random sample): the columns and keys of the cell helpers,
a diagnosed cell's label, the findings' records on small fabricated tables (theta band,
ablations on another loss model, dependent losses), the power model's plateau cap, its lack of
fit and the cells it reads from a config, the check records' one-line defects and the record of
a check without data, and the worst-case summary's keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_mutants_findings import _search, _table

from privdtol.analysis import cells, diagnosis, findings, power, records, registry, worst
from privdtol.errors import InputError
from privdtol.pipeline.config import load_config

ROOT = Path(__file__).resolve().parents[1]
LN4 = np.log(4.0)

# ----------------------------------------------------------------------------- cells


def test_dedupe_cells_keeps_the_first_of_repeated_cells_with_a_fresh_index():
    df = pd.DataFrame(
        {
            "algorithm": ["rps", "rps", "rps"],
            "K": [2, 2, 4],
            "horizon": [7, 7, 7],
            "mean": [1.0, 2.0, 3.0],
        },
        index=[5, 6, 7],
    )
    out = cells.dedupe_cells(df)
    assert out.to_dict("list") == {
        "algorithm": ["rps", "rps"],
        "K": [2, 4],
        "horizon": [7, 7],
        "mean": [1.0, 3.0],
    }
    assert out.index.tolist() == [0, 1]


def test_series_keys_add_the_loss_model_columns_present_only():
    df = pd.DataFrame({"K": [2], "gap": [0.5], "rho": [0.5]})
    assert cells.series_keys(df, ["K"]) == ["K", "rho"]
    assert cells.series_keys(df, ["K", "rho"]) == ["K", "rho"]


# ----------------------------------------------------------------------------- diagnosis


def _failed(*cell_list):
    return records.make_check(
        records.Heading("C2", "t", "s", "thr"), 2.0, 1.5, 2.5, "FAIL", "sum", cells=cell_list
    )


def test_a_diagnosed_cell_is_labelled_by_its_horizon_and_a_bare_series_by_its_word():
    cell = {"algorithm": "rps", "K": 2, "horizon": 1023, "verdict": "FAIL"}
    assert diagnosis.diagnose(_failed(cell))["cells"] == "1 of 1: algorithm=rps, K=2, horizon=1023"
    bare = {"K": None, "verdict": "FAIL"}
    assert diagnosis.diagnose(_failed(bare))["cells"] == "1 of 1: (series)"


# ----------------------------------------------------------------------------- findings


def test_theta_band_over_the_rps_grid_cells_by_hand():
    """Reg / (log K/min(gap, eps)) at K = 4: gap 1/4, eps 1 (lower 4 log 4, regret 8 log 4:
    2); gap 1/2, eps 1/8 (lower 8 log 4, regret 24 log 4: 3); gap 1/4, eps 1/4 (lower 4 log 4,
    regret 20 log 4: 5).  The ftl cell is not rps's."""
    grid = _table(
        "grid",
        [
            ("rps", 4, 0.25, 1.0, 8 * LN4),
            ("rps", 4, 0.5, 0.125, 24 * LN4),
            ("rps", 4, 0.25, 0.25, 20 * LN4),
            ("ftl", 4, 0.25, 1.0, 1.0),
        ],
    )
    assert findings.theta_band({"grid": grid}) == {
        "available": True,
        "n": 3,
        "min": 2.0,
        "median": 3.0,
        "max": 5.0,
        "text": "Reg / (log K/min(gap, eps)) ranges over [2, 5] over 3 rps grid cells (bounded "
        "on any finite grid: a finding, not a verdict).",
    }


def test_theta_band_without_rps_cells():
    grid = _table("grid", [("ftl", 4, 0.25, 1.0, 1.0)])
    assert findings.theta_band({"grid": grid}) == {
        "available": False,
        "text": "No rps cells in the grid.",
    }


def _dependent(cell_list, **columns):
    df = _table("dependent", cell_list, env="correlated").assign(**columns)
    return df.assign(se=1e-10 * df["mean"])


def test_dependent_rate_names_each_series_by_its_rho():
    """Seven gaps at eps 8 (the p series) and four eps at gap 1/2 (the q series, eta = eps/2),
    all at rho = 0.5: both series are named by their rho."""
    gaps = [2.0**-k for k in range(1, 8)]
    grid = [(8, g, 8.0) for g in gaps] + [(8, 0.5, e) for e in (0.25, 0.125, 0.0625, 0.03125)]
    cell_list = [
        ("rps", K, g, e, np.log(K) / g + np.log(K) / min(e / 2, 1 / 8)) for K, g, e in grid
    ]
    out = findings.dependent_rate({"dependent": _dependent(cell_list, rho=0.5)})
    assert [(s["exponent"], s["n"], s["env"], s["parameter"]) for s in out["series"]] == [
        ("p", 7, "correlated", "rho=0.5"),
        ("q", 4, "correlated", "rho=0.5"),
    ]
    assert "(correlated, rho=0.5, 7 cells)" in out["text"]
    assert "(correlated, rho=0.5, 4 cells)" in out["text"]


def test_dependent_rate_without_a_series_of_three_cells():
    cell_list = [("rps", 8, 0.5, 8.0, 10.0), ("rps", 8, 0.25, 8.0, 20.0)]
    out = findings.dependent_rate({"dependent": _dependent(cell_list, rho=0.5)})
    assert out == {"available": False, "text": "No series of three dependent cells."}


# ----------------------------------------------------------------------------- power


def test_null_regret_is_capped_by_t_gap_before_its_plateau():
    """a = 1, b = 0, c = 100 at K = 2, gap 1/2, no privacy: R = 2 log 2 + 100 = 101.4 and
    t* = 2 log 2/gap^2 = 8 log 2 = 5.55, so R (1 - exp(-T/t*)) is 16.7 at T = 1 and 42.4 at
    T = 3, both above T gap = 0.5 and 1.5: the cap binds."""
    got = power.null_regret({"a": 1.0, "b": 0.0, "c": 100.0}, 2, 0.5, np.inf, [1.0, 3.0])
    np.testing.assert_allclose(got, [0.5, 1.5], rtol=1e-12)


def test_the_power_models_lack_of_fit_has_three_degrees_of_freedom_less():
    """Four rps grid cells with the same K = 4, gap 1/4, eps 1 (instances a-d) and regrets 1,
    1, 2, 2: the relative least-squares fit is the one value s minimizing sum (s/m - 1)^2,
    s = sum(1/m)/sum(1/m^2) = 3/2.5 = 1.2; the log ratios log(m/1.2) are log 2/2 either side of
    their mean, so sigma = sqrt(4 (log 2/2)^2/(4 - 3)) = log 2."""
    parts = [
        _table("grid", [("rps", 4, 0.25, 1.0, m)], instance=inst).assign(cell_id=f"grid-{inst}")
        for inst, m in zip("abcd", (1.0, 1.0, 2.0, 2.0), strict=True)
    ]
    model = power.fitted_model({"grid": pd.concat(parts, ignore_index=True)})
    assert model["sigma"] == pytest.approx(np.log(2.0), rel=1e-9)
    assert model["source"] == "fit over 4 rps grid cells"
    # x_gap = log 4/(1/4), x_eta = log 4/(1/8): the fit's value at the cells is s = 1.2
    assert model["a"] * 4 * LN4 + model["b"] * 8 * LN4 + model["c"] == pytest.approx(1.2)


def test_config_cells_go_on_past_experiments_of_other_claims():
    """The smoke config lists the ablations experiment seventh: its two rps cells are read."""
    config = load_config(ROOT / "config" / "smoke.yaml")
    out = power.config_cells(config, ("ablations",), "rps")
    assert list(out) == ["ablations"]
    cols = ["algorithm", "env", "K", "gap", "epsilon", "horizon"]
    assert out["ablations"][cols].to_dict("records") == [
        {"algorithm": "rps", "env": "bernoulli", "K": 4, "gap": 0.25, "epsilon": 0.25,
         "horizon": 1073741823},
        {"algorithm": "rps", "env": "bernoulli", "K": 4, "gap": 0.25, "epsilon": 4.0,
         "horizon": 1073741823},
    ]  # fmt: skip


def test_a_synthetic_table_is_labelled_by_its_experiment():
    cells_df = pd.DataFrame(
        [{"K": 2, "gap": 0.5, "epsilon": 1.0, "horizon": 3, "env": "bernoulli", "rho": None,
          "kappa": None}]
    )  # fmt: skip
    tab = power.synthetic_table("rps", cells_df, power.DEFAULT_MODEL, 0, "grid")
    assert tab["experiment"].tolist() == ["grid", "grid"]  # checkpoints 1 and 3
    assert tab["cell_id"].tolist() == ["rps-0", "rps-0"]


# ----------------------------------------------------------------------------- records


def test_an_unreadable_parquet_file_is_one_line_on_the_agg_dir(tmp_path):
    path = tmp_path / "grid.parquet"
    path.write_text("not parquet")
    with pytest.raises(InputError) as err:
        records.load_agg(tmp_path, ["grid"])
    assert err.value.field == "agg-dir"
    assert str(err.value) == (
        f"agg-dir: {path}: not a readable parquet file (Could not open Parquet input source "
        f"'{path}': Parquet magic bytes not found in footer. Either the file is corrupted or "
        "this is not a parquet file.)"
    )


def test_load_check_refuses_a_top_level_list(tmp_path):
    path = tmp_path / "c.json"
    path.write_text("[1]")
    with pytest.raises(InputError) as err:
        records.load_check(path, field="checks")
    assert str(err.value) == f"checks: {path}: top level is not an object"


def test_the_record_of_a_check_without_data():
    head = records.Heading("C4", "Rate form", "largest factor", "within [1/2, 2]")
    got = records.no_data(head, "2 rps cells; the form fit needs 4.", ["b.parquet", "a.parquet"])
    quote, source = records.claim_words("C4")
    assert got == {
        "claim": "C4",
        "title": "Rate form",
        "quote": quote,
        "source": source,
        "algorithm": "rps",
        "control_of": None,
        "statistic_label": "largest factor",
        "statistic": None,
        "ci_low": None,
        "ci_high": None,
        "interval": [None, None],
        "threshold": "within [1/2, 2]",
        "verdict": "INCONCLUSIVE",
        "summary": "2 rps cells; the form fit needs 4.",
        "cells": [],
        "inputs": ["a.parquet", "b.parquet"],
    }
    assert quote and source


# ----------------------------------------------------------------------------- registry, worst


def test_paper_claims_and_diagnostics_split_the_registry():
    paper = ["C1", "C2", "C2b", "C3", "C4", "C5", "L4", "L5", "L5a", "L5b"]
    assert registry.paper_claims() == paper
    assert registry.diagnostics() == ["C0", "C4a", "C4b", "C4c"]
    assert len(registry.CLAIMS) == 14


def test_worst_case_record_keys():
    df = pd.DataFrame([_search("lemma5", 4, 0.25, 0.5, 0.5, 0.25, 20)])
    found = worst.worst_case({"searches": df})
    assert found["available"] is True and found["searches"] == 1
    assert set(found) == {"available", "searches", "theorem1", "lemma5", "rate", "rate_min", "text"}
