"""The proof claims (L4, L5, L5a, L5b), the slack budget and the pipeline's proof stage, on
synthetic proof tables built to pass, to fail and to straddle (privdtol.analysis.claims.lemmas,
privdtol.analysis.slack, privdtol.pipeline.proof)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis.claims.lemmas import STEPS, check_step
from privdtol.analysis.registry import CLAIMS, controls_for, proof_algorithms
from privdtol.analysis.slack import proof_slack, slack_table
from privdtol.pipeline import plan as grid
from privdtol.pipeline.proof import PROOF_EXPERIMENTS, flat_row, proof_cells, proof_homes


def _row(i=0, algorithm="rps", **values):
    base = {
        "experiment": "grid",
        "cell_id": f"c{i:03d}",
        "algorithm": algorithm,
        "K": 8,
        "gap": 0.25,
        "epsilon": 1.0,
        "eta": 0.125,
        "eta_selection": 0.125,
        "n_small": 7,
        "n_large": 0,
        "regret": 99.0,
        "regret_err": 1e-6,
        "regret_limit": np.nan,
        "regret_limit_err": np.nan,
        "sum_F": 30.0,
        "sum_F_err": 1e-6,
        "small_gap": 30.0,
        "small_gap_err": 1e-6,
        "large_gap": 0.0,
        "large_gap_err": 0.0,
        "bound_lemma4": 121.0,
        "bound_lemma5": 2000.0,
        "bound_eq5": 1600.0,
        "bound_eq6": 400.0,
    }
    return {**base, **values}


def _verdict(claim, *rows):
    return check_step(pd.DataFrame(list(rows)), claim)["verdict"]


@pytest.mark.parametrize(
    ("values", "verdict"),
    [
        ({"regret": 120.0}, "PASS"),
        ({"regret": 122.0}, "FAIL"),
        # the error bounds straddle the bound: neither side can be asserted
        ({"regret": 121.0, "regret_err": 0.5}, "INCONCLUSIVE"),
        # exactly at the bound once both error bounds are counted: <= holds
        ({"regret": 121.0 - 2e-6, "regret_err": 1e-6, "sum_F_err": 0.25e-6}, "PASS"),
        # the limit over T, when known, is the left side (not Reg_T at the horizon)
        ({"regret": 100.0, "regret_limit": 121.5, "regret_limit_err": 1e-6}, "FAIL"),
    ],
)
def test_lemma4_verdicts_at_and_around_the_bound(values, verdict):
    assert _verdict("L4", _row(**values)) == verdict


def test_one_failing_cell_of_many_fails_the_claim():
    rows = [_row(i, regret=100.0) for i in range(50)] + [_row(50, regret=121.01)]
    record = check_step(pd.DataFrame(rows), "L4")
    assert record["verdict"] == "FAIL"
    assert record["statistic"] == pytest.approx(121.01 / 121.0, rel=1e-5)
    assert record["cells"][0]["verdict"] == "FAIL"  # worst first


@pytest.mark.parametrize(
    ("claim", "column", "bound"),
    [
        ("L5", "sum_F", "bound_lemma5"),
        ("L5a", "small_gap", "bound_eq5"),
        ("L5b", "large_gap", "bound_eq6"),
    ],
)
def test_lemma5_and_its_halves_pass_below_and_fail_above(claim, column, bound):
    at = _row()[bound]
    assert _verdict(claim, _row(**{column: 0.5 * at})) == "PASS"
    assert _verdict(claim, _row(**{column: at * (1 + 1e-4)})) == "FAIL"
    assert _verdict(claim, _row(**{column: at, f"{column}_err": 1e-3})) == "INCONCLUSIVE"


def test_checks_read_only_their_algorithm_and_count_shared_cells_once():
    rows = [_row(0), {**_row(0), "experiment": "actions"}, _row(1, "rps_eta_logk", sum_F=5e3)]
    df = pd.DataFrame(rows)
    own = check_step(df, "L5")
    assert own["verdict"] == "PASS" and len(own["cells"]) == 1
    assert check_step(df, "L5", algorithm="rps_eta_logk")["verdict"] == "FAIL"
    assert check_step(df, "L5", algorithm="rps_full_prefix")["verdict"] == "INCONCLUSIVE"


def test_registry_wires_the_proof_claims_and_their_controls():
    assert {"L4", "L5", "L5a", "L5b"} <= set(CLAIMS) and set(STEPS) == {"L4", "L5", "L5a", "L5b"}
    for claim in STEPS:
        assert CLAIMS[claim].experiments == ("proof",)
        assert CLAIMS[claim].check_function()({"proof": pd.DataFrame([_row()])}, {}, [])
    # the paper's numbers, verbatim in the quotes
    assert "1 + 4 sum_(m>=1) F_m" in CLAIMS["L4"].quote
    assert "200 log K/Delta_min + 4 log K/eta" in CLAIMS["L5"].quote
    assert "(64 log(K+1) + 36)/Delta_min <= 200 log K/Delta_min, (5)" in CLAIMS["L5a"].quote
    assert "<= 4 log K/eta. (6)" in CLAIMS["L5b"].quote
    assert proof_algorithms() == ("rps", "rps_short_prefix", "rps_eta_logk")
    cfg = {"experiments": [{"name": "actions", "algorithms": ["rps", "rps_eta_logk"]}]}
    assert ("L5", "rps_eta_logk") in controls_for(cfg) and ("L5b", "rps_eta_logk") in controls_for(
        cfg
    )
    assert CLAIMS["L5a"].controls == ()  # no natural control: the report shows its slack


def _slack_row(i, **values):
    row = _row(
        i,
        n_large=3,
        groups_sum=30.0,
        groups_bound=900.0,
        bound_eq5_groups=1800.0,
        max_ratio_eq4=0.25,
        median_ratio_eq4=0.1,
        large_gap=20.0,
        sum_V=20.5,
        bound_drift=80.0,
        bound_eq6=100.0,
        bound_theorem1=1 + 4 * 2000.0,
        regret_limit=100.0,
    )
    return {**row, **values}


def test_slack_budget_names_the_loosest_step_from_the_numbers():
    rows = [_slack_row(0), _slack_row(1, small_gap=60.0, epsilon=0.0625)]
    found = proof_slack({"proof": pd.DataFrame(rows)})
    steps = {s["key"]: s for s in found["steps"]}
    # eq. (5): 1600/30 and 1600/60, median 40; eq. (6): 100/20 = 5; Lemma 4: 121/100
    assert steps["eq5"]["median"] == pytest.approx(40.0)
    assert steps["eq6"]["median"] == pytest.approx(5.0)
    assert steps["lemma4"]["median"] == pytest.approx(1.21)
    assert steps["groups"]["max"] == pytest.approx(30.0) and steps["levels"]["min"] == 2.0
    assert steps["drift"]["median"] == pytest.approx(80 / 20.5, rel=1e-5)
    assert found["loosest"] == "eq5" and found["loosest_substep"] == "groups"
    assert "eq. (5)" in found["text"] and "40" in found["text"] and "groups" in found["text"]
    # a regime per cell: eps > gap statistical, eps < gap privacy
    assert set(slack_table(pd.DataFrame(rows))["regime"]) == {"statistical", "privacy"}
    worse = proof_slack({"proof": pd.DataFrame([_slack_row(0, regret_limit=1.0)])})
    assert worse["loosest"] == "lemma4"  # 121/1 is now the loosest


def test_slack_steps_apply_only_where_their_actions_exist():
    tab = slack_table(pd.DataFrame([_slack_row(0, n_small=0, small_gap=0.0, n_large=7)]))
    assert math.isnan(tab.at[0, "eq5"]) and math.isnan(tab.at[0, "groups"])
    assert math.isnan(tab.at[0, "constant"]) and tab.at[0, "eq6"] == pytest.approx(5.0)
    assert not proof_slack({"proof": pd.DataFrame()})["available"]


def _plan(config_experiments):
    config = {
        "seed": 0,
        "runs": 10,
        "exact": "auto",
        "batching": {"target_seconds": 30, "max_cells": 500},
        "experiments": config_experiments,
    }
    from privdtol.pipeline.config import load_config

    return grid.plan(load_config(config))


def test_proof_cells_are_the_exact_softmax_cells_once_each():
    common = {"K": [2, 4], "gap": [0.5], "epsilon": [1.0], "horizon": [1023]}
    plan = _plan(
        [
            {"name": "gap", "algorithms": ["rps", "rnm_ftnl", "ftl"], **common},
            {"name": "grid", "algorithms": ["rps", "rps_eta_logk"], **common},
            {"name": "ablations", "algorithms": ["rps"], **common, "K": [8]},
        ]
    )
    homes = proof_cells(plan, proof_algorithms())
    assert set(homes) == {"gap", "grid"} and "ablations" not in PROOF_EXPERIMENTS
    assert [c.algorithm for c in homes["gap"]] == ["rps", "rps"]  # rnm_ftnl: no softmax
    assert [c.algorithm for c in homes["grid"]] == ["rps_eta_logk"] * 2  # rps: home gap
    ids = proof_homes(plan, proof_algorithms())
    assert ids == {name: {c.cell_id for c in cells} for name, cells in homes.items()}


def test_flat_row_carries_every_number_and_its_error_bound():
    from privdtol.pipeline.proof import cell_terms

    cell = grid.Cell("rps", "bernoulli", "standard", 4, 0.5, None, 0.0625, 1023, 0, None, None, 0)
    row = flat_row(cell_terms(cell))
    for key in ("sum_F", "small_gap", "large_gap", "sum_V", "regret", "regret_limit"):
        assert np.isfinite(row[key]) and 0 <= row[f"{key}_err"] < 1e-6 * max(1.0, row[key])
    assert row["n_small"] == 0 and row["n_large"] == 3 and row["groups"] == 0
    assert row["bound_eq6"] == pytest.approx(4 * math.log(4) / (1 / 32), rel=1e-12)
    assert row["large_gap"] <= row["sum_V"] <= row["bound_drift"] <= row["bound_eq6"]
    assert row["drift_max"] <= row["drift_max_err"]


@pytest.mark.parametrize(
    "algorithm, means, epsilon",
    [
        ("rps", (0.3, 0.4, 0.4, 0.7), 0.0625),  # small and large gaps: the restricted pass too
        ("rps_short_prefix", (0.45, 0.5, 0.5), 4.0),  # its prefix ranges are not the dyadic ones
    ],
)
def test_sums_reusing_the_regret_laws_match_sums_computed_alone(algorithm, means, epsilon):
    """The pipeline's proof terms reuse the averager of the cell's exact regret
    (regret_and_averager): the same sums, within the error bounds, as computed from scratch."""
    from privdtol.engine.exact import expected_regret, regret_and_averager
    from privdtol.engine.exact.proof import sum_terms

    reg, _, avg = regret_and_averager(algorithm, means, epsilon, [(1 << 20) - 1])
    alone_reg, _ = expected_regret(algorithm, means, epsilon, [(1 << 20) - 1])
    assert reg[0] == alone_reg[0]  # the regret itself is computed as before
    shared, alone = (
        sum_terms(algorithm, means, epsilon, base=avg),
        sum_terms(algorithm, means, epsilon),
    )
    for key in ("sum_F", "small_gap", "large_gap", "sum_V"):
        tol = shared["error_bound"][key] + alone["error_bound"][key] + 1e-300
        assert abs(shared[key] - alone[key]) <= tol, key
    assert shared["sum_F"] > 0 and len(shared["F"]) >= len(alone["F"]) // 2


def test_sums_refuse_the_averager_of_another_instance():
    from privdtol.engine.exact import regret_and_averager
    from privdtol.engine.exact.proof import sum_terms

    _, _, avg = regret_and_averager("rps", (0.4, 0.6), 1.0, [1023])
    with pytest.raises(ValueError, match="another instance"):
        sum_terms("rps", (0.4, 0.7), 1.0, base=avg)


def test_simulate_batch_writes_the_proof_cells_terms(tmp_path, capsys):
    """``simulate-batch --proof-dir --proof-cells`` writes the terms of the proof cells only,
    with Reg_T at the horizon taken from the cell's own exact table, and skips a cell only when
    both of its files exist."""
    from privdtol.cli import main
    from privdtol.pipeline.proof import read_terms

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
