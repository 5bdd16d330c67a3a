"""W1, Wu & Wang's bound as a claim of the cited work: their algorithm's regret (both noise
forms) over log K/gap + log^2 K/eps bounded, on tables whose ratio is known by construction."""

import numpy as np
import pytest
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.claims.w1_wu_wang_bound import RECORD, check
from privdtol.core import clock

HORIZONS = tuple(int(h) for h in clock.checkpoints(2**20 - 1)[0])
GRID = [(K, g, e) for K in (2, 8, 64, 512) for g in (0.5, 0.125, 0.03125) for e in (4.0, 1 / 16)]
TH = {"cited_ratio_max": 256, "cited_growth_max": 0.25, "confidence": 0.95}


def ww_shape(K, g, e):
    return np.log(K) / g + np.log(K) ** 2 / e


def table(ratio, algorithm, experiment="grid"):
    cells = [{"algorithm": algorithm, "K": K, "gap": g, "epsilon": e} for K, g, e in GRID]
    return agg_table(
        cells,
        HORIZONS,
        columns=(*CORE, *INTERVAL),
        experiment=experiment,
        estimator="exact",
        rel_se=0.0,
        mean=lambda c, h: ww_shape(c["K"], c["gap"], c["epsilon"]) * ratio(c["K"], h),
    )


def test_the_record_is_a_claim_of_the_cited_work_about_wu_wang():
    assert RECORD.cited == "wu2026" and RECORD.subject == "wu_wang"
    assert not RECORD.independent and RECORD.controls == ("rps_uniform_mix",)


def test_both_noise_forms_are_held_to_the_bound():
    # Laplace form at ratio 5 on the grid, Gumbel form at 30 on the separation experiment: the
    # claim is of both, so its level is 30; asked of the Laplace form alone, 5
    tables = {
        "grid": table(lambda K, T: 5.0, "wu_wang"),
        "separation": table(lambda K, T: 30.0, "wu_wang_gumbel", "separation"),
    }
    rec = check(tables, TH, [])
    assert rec["verdict"] == "PASS" and rec["statistic"] == pytest.approx(30.0)
    alone = check(tables, TH, [], algorithm="wu_wang_gumbel")
    assert alone["statistic"] == pytest.approx(30.0)


def test_the_shape_by_hand():
    # K = 8, gap 1/2, eps 1: log 8/(1/2) + (log 8)^2 = 4.158883 + 4.324077 = 8.482960
    grid = table(lambda K, T: 1.0, "wu_wang")
    at = (grid["K"] == 8) & (grid["gap"] == 0.5) & (grid["epsilon"] == 4.0) & (grid.horizon == 7)
    grid.loc[at, "mean"] = 50 * (4.158883 + 4.324077 / 4.0)
    rec = check({"grid": grid}, TH, [])
    assert rec["statistic"] == pytest.approx(50.0, rel=1e-6)


def test_a_ratio_growing_like_log_squared_k_past_the_ceiling_fails_and_so_does_linear():
    # regret 40 log2(K)^2 times the shape: growth along log K (slope 2) and above the ceiling
    rec = check({"grid": table(lambda K, T: 40 * np.log2(K) ** 2, "wu_wang")}, TH, [])
    assert rec["verdict"] == "FAIL"
    linear = table(lambda K, T: T / 8, "rps_uniform_mix")
    rec = check({"grid": linear}, TH, [], algorithm="rps_uniform_mix")
    assert rec["verdict"] == "FAIL"


def test_monte_carlo_cells_carry_their_interval():
    grid = table(lambda K, T: 10.0, "wu_wang")
    grid = grid.assign(se=grid["mean"] * 0.01, estimator="mc")
    rec = check({"grid": grid}, TH, [])
    assert rec["ci_low"] < rec["statistic"] < rec["ci_high"]
    assert rec["ci_low"] == pytest.approx(10 * (1 - 1.959964 * 0.01), rel=1e-6)
