"""Changes confirmed out of sample: the held-out cells are exactly those no tuned-on config
simulates, and the result says yes only when the claim PASSes and every control FAILs there."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest
from support.paths import ROOT

from privdtol.analysis import held_out as oos


def _table(rows):
    base = {"env": "bernoulli", "instance": "standard", "rho": math.nan, "kappa": math.nan}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_a_cell_key_ignores_the_horizon_and_reads_nan_as_none():
    row = {"algorithm": "rps", "env": "bernoulli", "instance": "standard", "K": 8,
           "gap": 0.5, "epsilon": 1.0, "rho": math.nan, "kappa": None, "horizon": 7}  # fmt: skip
    cell = SimpleNamespace(**{**row, "K": 8.0, "rho": None, "horizon": 1 << 40})
    assert oos.cell_key(row) == oos.cell_key(cell) == (
        "rps", "bernoulli", "standard", 8.0, 0.5, 1.0, None, None,
    )  # fmt: skip
    assert oos.cell_key({**row, "rho": 0.5}) != oos.cell_key(row)


def test_the_default_config_fixes_its_own_cells_and_not_the_paper_configs():
    tuned = oos.tuned_cells(["config"], ROOT / "config")
    assert ("rps", "bernoulli", "standard", 8.0, 0.5, 1.0, None, None) in tuned
    # eps = 2 is a paper-config grid value only (the default's grid has eps 4, 1, 1/4, ...)
    assert ("rps", "bernoulli", "standard", 8.0, 0.5, 2.0, None, None) not in tuned
    assert oos.config_files("paper", "config")[-1].name == "paper.yaml"
    assert [p.name for p in oos.config_files("config", "config")] == ["config.yaml"]


def test_held_out_drops_the_tuned_cells_and_keeps_the_auxiliary_tables_whole():
    cells = [(2, 1), (2, 3), (4, 1)]  # (K, horizon)
    grid = _table(
        [{"algorithm": "rps", "K": k, "gap": 0.5, "epsilon": 1.0, "horizon": h, "mean": 1.0}
         for k, h in cells]
    )  # fmt: skip
    bounds = pd.DataFrame({"K": [2, 4], "gap": [0.5, 0.5], "best": [0.1, 0.2]})
    tuned = {oos.cell_key({"algorithm": "rps", "env": "bernoulli", "instance": "standard",
                           "K": 2, "gap": 0.5, "epsilon": 1.0})}  # fmt: skip
    out = oos.held_out_tables({"grid": grid, "lower_bound": bounds}, tuned, {"grid"})
    assert out["grid"]["K"].tolist() == [4]
    assert out["lower_bound"] is bounds
    # every simulated row tuned on: nothing is held out, the auxiliary table alone is no sample
    everything = tuned | {oos.cell_key(out["grid"].iloc[0].to_dict())}
    assert oos.held_out_tables({"grid": grid, "lower_bound": bounds}, everything, {"grid"}) == {}
    # a table outside the config's experiments (a search's instances) holds nothing out: a run
    # whose experiment cells were all tuned on is not confirmed by its searches alone
    found = _table([{"algorithm": "rps", "K": 4, "gap": 0.25, "epsilon": 1.0, "mean": 9.0}])
    assert oos.held_out_tables({"grid": grid, "worst_case": found}, everything, {"grid"}) == {}


def _claim(threshold):
    """A stand-in claim: PASS when every mean of the algorithm is below ``threshold``."""

    def check(tables, thresholds, inputs, algorithm="rps"):
        means = pd.concat([t[t["algorithm"] == algorithm]["mean"] for t in tables.values()])
        verdict = "PASS" if len(means) and means.max() < threshold else "FAIL"
        return {"verdict": verdict, "statistic": float(means.max()) if len(means) else None}

    return SimpleNamespace(check_function=lambda: check, controls=("bad",))


@pytest.mark.parametrize(
    ("rps_mean", "bad_mean", "result"),
    [(1.0, 50.0, "yes"), (20.0, 50.0, "no"), (1.0, 2.0, "no")],
)
def test_confirm_says_yes_only_when_the_claim_passes_and_every_control_fails(
    rps_mean, bad_mean, result
):
    table = _table([
        {"algorithm": "rps", "K": 4, "gap": 0.5, "epsilon": 1.0, "mean": rps_mean},
        {"algorithm": "bad", "K": 4, "gap": 0.5, "epsilon": 1.0, "mean": bad_mean},
    ])  # fmt: skip
    rec = oos.confirm(_claim(10.0), {"grid": table}, {})
    assert rec["result"] == result
    assert rec["controls"] == {"bad": "FAIL" if bad_mean >= 10 else "PASS"}


def test_confirm_is_not_run_without_a_held_out_rps_cell():
    table = _table([{"algorithm": "bad", "K": 4, "gap": 0.5, "epsilon": 1.0, "mean": 50.0}])
    assert oos.confirm(_claim(10.0), {"grid": table}, {})["result"] == "not run"


def test_every_changed_claim_has_a_row_and_tuned_files_exist():
    from privdtol.analysis.diagnosis import DEVIATIONS

    assert oos.changed_claims() == list(dict.fromkeys(d["claim"] for d in DEVIATIONS))
    files = oos.tuned_config_files(ROOT / "config")
    assert files and all(ROOT.joinpath(f).exists() for f in files)
