"""Guards found by mutation testing of ``privdtol.analysis`` (``make mutation GROUPS=analysis``,
docs/testing.md), fourth batch (a second fresh random sample): the plateau ratio's boundary
checkpoint and cells without epsilon, the index of selected and stacked tables, a diagnosed
cell's epsilon and the follow-up of a FAIL, the findings on an infinite ratio and on dependent
losses without rho or kappa, the theta band's experiment, the synthetic tables' privacy term,
intervals and experiment names, the check records' one-line defects and text, the slack steps
of eq. (6) and the rate searches of the worst-case finding."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from test_mutants_analysis_fresh import _dependent, _failed
from test_mutants_findings import _search, _table
from test_proof_checks import _slack_row

from privdtol.analysis import cells, diagnosis, findings, power, records, slack, worst
from privdtol.errors import InputError
from privdtol.pipeline.config import load_config

ROOT = Path(__file__).resolve().parents[1]
LN2 = np.log(2.0)
HEAD = records.Heading("C4", "Rate form", "largest factor", "within [1/2, 2]")

# ----------------------------------------------------------------------------- cells


def _checkpoints(means, **cols):
    """One cell at the checkpoints 1, 3, 7 with the given means (no experiment, cell_id)."""
    return pd.DataFrame({"algorithm": "rps", "K": 2, "gap": 0.5, **cols, "horizon": [1, 3, 7],
                         "mean": means})  # fmt: skip


def test_plateau_ratio_reference_may_sit_exactly_at_t_max_plus_1_over_2_to_the_octaves():
    """T_max = 7, 3 octaves: (7 + 1)/2^3 = 1, so the reference is the checkpoint T = 1 itself
    (mean 0.5) and the ratio 2/0.5 = 4."""
    out = cells.plateau_ratio(_checkpoints([0.5, 1.0, 2.0], epsilon=1.0), 3)
    assert out["plateau_ratio"].tolist() == [4.0]


def test_plateau_ratio_of_a_cell_without_epsilon_found_by_its_parameters():
    """A table without (experiment, cell_id) keys its cells by their parameters; a non-private
    cell's epsilon is NaN and it still gets its ratio: 1 octave, (7 + 1)/2 = 4, reference T = 3
    (mean 2), ratio 4/2 = 2."""
    out = cells.plateau_ratio(_checkpoints([1.0, 2.0, 4.0], epsilon=np.nan), 1)
    assert out["plateau_ratio"].tolist() == [2.0]
    assert out["horizon"].tolist() == [7]


def test_select_gives_a_fresh_index_and_no_index_column():
    df = pd.DataFrame({"algorithm": ["ftl", "rps", "rps"], "K": [2, 4, 8]}, index=[5, 6, 7])
    out = cells.select(df, "rps")
    assert out.to_dict("list") == {"algorithm": ["rps", "rps"], "K": [4, 8]}
    assert out.index.tolist() == [0, 1]


def test_stack_puts_the_experiments_in_the_order_given_with_a_fresh_index():
    tables = {"a": pd.DataFrame({"K": [2, 4]}), "b": pd.DataFrame({"K": [8]})}
    out = cells.stack(tables, ["b", "a", "absent"])
    assert out["K"].tolist() == [8, 2, 4]
    assert out.index.tolist() == [0, 1, 2]


# ----------------------------------------------------------------------------- diagnosis


def test_a_diagnosed_cell_names_its_epsilon_and_loss_model_parameters():
    cell = {"algorithm": "rps", "env": "correlated", "K": 2, "gap": 0.5, "epsilon": 0.25,
            "rho": 1.0, "horizon": 1023, "verdict": "FAIL"}  # fmt: skip
    assert diagnosis.diagnose(_failed(cell))["cells"] == (
        "1 of 1: algorithm=rps, env=correlated, K=2, gap=0.5, epsilon=0.25, rho=1, horizon=1023"
    )


def test_the_diagnosis_of_a_claim_beyond_its_threshold():
    cell = {"K": 2, "verdict": "FAIL"}
    assert diagnosis.diagnose(_failed(cell)) == {
        "cells": "1 of 1: K=2",
        "cause": "beyond the threshold: the statistic [1.5, 2.5] violates thr",
        "follow_up": "recompute the cells named with the explicit per-round engine (privdtol "
        "simulate --mode explicit) and by the exact engine; if they agree (claim C0), the "
        "finding is about the paper or the check's design, else about the simulator",
    }


# ----------------------------------------------------------------------------- findings


def test_prefix_cost_over_infinite_ratios_only_counts_no_cell():
    """rps_full_prefix's regret 0 makes rps / rps_full_prefix infinite: no finite ratio."""
    ablation = [("rps", 4, 0.25, 1.0, 10.0), ("rps_full_prefix", 4, 0.25, 1.0, 0.0)]
    assert findings.prefix_cost({"ablations": _table("ablations", ablation)}) == {
        "available": True,
        "n": 0,
        "min": None,
        "median": None,
        "max": None,
        "where": "",
        "left_out": 0,
        "text": "Cost of the random prefix: rps / rps_full_prefix over 0 cells: median nan "
        "(range [nan, nan]).",
    }


def test_dependent_rate_of_a_series_without_rho_or_kappa_names_no_parameter():
    """The seven gaps at eps 8 of the series named by rho in the fresh batch, with no rho (and
    no kappa): the series has no parameter (not "kappa=nan")."""
    gaps = [2.0**-k for k in range(1, 8)]
    cell_list = [("rps", 8, g, 8.0, np.log(8) / g + np.log(8) / 0.125) for g in gaps]
    out = findings.dependent_rate({"dependent": _dependent(cell_list)})
    assert [(s["exponent"], s["n"], s["env"], s["parameter"]) for s in out["series"]] == [
        ("p", 7, "correlated", "")
    ]
    assert "(correlated, , 7 cells)" in out["text"]


def test_theta_band_reads_the_grid_experiment_only():
    """An rps cell of another experiment (the gap one, ratio 100) is not the grid's: one cell,
    Reg / (log 4/min(1/4, 1)) = 8 log 4/(4 log 4) = 2."""
    ln4 = np.log(4.0)
    tables = {
        "gap": _table("gap", [("rps", 4, 0.5, 1.0, 200 * ln4)]),
        "grid": _table("grid", [("rps", 4, 0.25, 1.0, 8 * ln4)]),
    }
    found = findings.theta_band(tables)
    assert (found["n"], found["min"], found["max"]) == (1, 2.0, 2.0)


# ----------------------------------------------------------------------------- power

#: one rps cell at K = 2, gap 1/2, eps 1 (checkpoints 1 and 3); eta = min(1/2, 1/8) = 1/8
ONE_CELL = pd.DataFrame(
    [{"K": 2, "gap": 0.5, "epsilon": 1.0, "horizon": 3, "env": "bernoulli", "rho": None,
      "kappa": None}]
)  # fmt: skip
UNIT = {"a": 1.0, "b": 1.0, "c": 0.0, "sigma": 0.0}


def test_synthetic_regret_of_a_private_cell_has_its_privacy_term():
    """a = b = 1, c = 0: R = log 2/(1/2) + log 2/(1/8) = 10 log 2 and t* = 2 max(log 2/(1/4),
    log 2/(1/8 * 1/2)) = 32 log 2, so Reg_T = 10 log 2 (1 - exp(-T/(32 log 2))): 0.306 at T = 1
    and 0.877 at T = 3, below T gap (no lack of fit: sigma = 0)."""
    tab = power.SyntheticCells("rps", ONE_CELL, UNIT, "grid").table(0)
    expected = [10 * LN2 * -np.expm1(-t / (32 * LN2)) for t in (1.0, 3.0)]
    np.testing.assert_allclose(tab["mean"], expected, rtol=1e-12)
    np.testing.assert_allclose(tab["mean"], [0.30556, 0.87687], rtol=1e-4)


def test_synthetic_intervals_are_the_mean_plus_minus_1_96_se():
    tab = power.SyntheticCells("rps", ONE_CELL, UNIT, "grid").table(0)
    m = tab["mean"].to_numpy()
    np.testing.assert_allclose(tab["se"], 1e-10 * m, rtol=1e-12)
    np.testing.assert_allclose(tab["ci_low"], m * (1 - 1.96e-10), rtol=1e-12)
    np.testing.assert_allclose(tab["ci_high"], m * (1 + 1.96e-10), rtol=1e-12)


def test_power_table_labels_each_synthetic_table_by_its_experiment(monkeypatch):
    """C2's check sees one synthetic table per experiment of the smoke config with the
    algorithm's cells (rps: horizon, gap, epsilon, actions, grid; uniform: horizon only), each
    labelled by its experiment (not None: cell ids repeat across experiments)."""
    seen = []

    def check(tables, thresholds, inputs, algorithm):
        seen.extend((algorithm, e, sorted(set(t["experiment"]))) for e, t in tables.items())
        return {"verdict": "PASS", "cells": []}

    claim = SimpleNamespace(experiments=power.CLAIMS["C2"].experiments, statistic="s",
                            check_function=lambda: check)  # fmt: skip
    monkeypatch.setattr(power, "CLAIMS", {"C2": claim})
    monkeypatch.setattr(power, "controls_for", lambda cfg: [("C2", "uniform")])
    config = load_config(ROOT / "config" / "smoke.yaml")
    power.power_table(config, {**power.DEFAULT_MODEL, "source": "test"}, replicates=1)
    rps = [("rps", e, [e]) for e in ("horizon", "gap", "epsilon", "actions", "grid")]
    assert seen == [*rps, ("uniform", "horizon", ["horizon"])]


# ----------------------------------------------------------------------------- records


def _write(tmp_path, data):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    return path


def test_load_check_names_the_first_missing_key(tmp_path):
    path = _write(tmp_path, {"title": "t"})
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert err.value.field == "results"
    assert str(err.value) == f"results: {path}: missing key 'claim'"


def test_load_check_names_the_types_a_key_allows(tmp_path):
    good = records.no_data(HEAD, "no cells")
    path = _write(tmp_path, {**good, "claim": 3})
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert str(err.value) == f"results: {path}: key 'claim' has type int (allowed: str)"
    path = _write(tmp_path, {**good, "control_of": 5})
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert str(err.value) == (
        f"results: {path}: key 'control_of' has type int (allowed: str or NoneType)"
    )


def test_read_check_refuses_a_top_level_list(tmp_path):
    path = _write(tmp_path, [1])
    with pytest.raises(InputError) as err:
        records.read_check(path)
    assert str(err.value) == (
        f"checks: {path}: top level is not an object (allowed: a check record)"
    )


def test_as_control_marks_the_record_with_its_claim():
    rec = {"claim": "C2", "control_of": None, "verdict": "FAIL"}
    assert records.as_control(rec, "C2") == {"claim": "C2", "control_of": "C2", "verdict": "FAIL"}


def test_check_text_of_a_record_without_an_interval():
    rec = records.no_data(HEAD, "2 rps cells; the form fit needs 4.")
    assert records.check_text("C4", rec) == (
        "**C4: INCONCLUSIVE**: Rate form\n"
        "- statistic: largest factor = None\n"
        "- threshold: within [1/2, 2]\n"
        "- summary: 2 rps cells; the form fit needs 4."
    )


# ----------------------------------------------------------------------------- slack, worst


def test_eq6_steps_do_not_apply_without_a_large_gap_action():
    """n_large = 0: eq. (6) and its sub-steps are NaN whatever the columns hold (the row's
    bound_eq6/large_gap = 100/20 = 5 is left out); eq. (5) still applies (1600/30)."""
    tab = slack.slack_table(pd.DataFrame([_slack_row(0, n_large=0)]))
    for key in ("eq6", "restriction", "drift", "entropy"):
        assert np.isnan(tab.at[0, key]), key
    assert tab.at[0, "eq5"] == pytest.approx(1600 / 30)


def test_eq6_steps_apply_with_one_large_gap_action():
    """n_large = 1 (K = 2, one suboptimal action of large gap): eq. (6) is 100/20 = 5, the
    restriction 20.5/20, the drift 80/20.5 and the entropy 100/80."""
    tab = slack.slack_table(pd.DataFrame([_slack_row(0, n_large=1)]))
    got = [tab.at[0, k] for k in ("eq6", "restriction", "drift", "entropy")]
    assert got == pytest.approx([5.0, 20.5 / 20, 80 / 20.5, 1.25])


def test_rate_rows_keep_the_rate_searches():
    """A rate search at K = 2, gap 1/2, eps 1: rate 2 log 2 + log 2 = 3 log 2, so its regret 3
    is 1/log 2 = 1.4427 times the rate and its standard instance's 0.1 x bound 6 = 0.6 is
    0.2/log 2 = 0.28854."""
    df = pd.DataFrame([_search("rate", 2, 0.5, 1.0, 0.9, 0.1, 10, regret=3.0, bound=6.0)])
    out = worst.rate_rows(df)
    assert out["objective"].tolist() == ["rate"]
    assert out["value"].tolist() == pytest.approx([1.4427], rel=1e-4)
    assert out["standard_value"].tolist() == pytest.approx([0.28854], rel=1e-4)
