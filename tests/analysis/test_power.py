"""Tests of :mod:`privdtol.analysis.power`: the two-term regret model (its plateau, the
controls' departures from it, the fit to the grid) and the power table (the checks' false-fail
rate on synthetic tables of the model and their fail rate on the controls')."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from support.paths import CONFIG, SMOKE
from support.tables import exact_law_tables, final_rows_table

from privdtol.analysis import power
from privdtol.analysis.power import (
    DEFAULT_MODEL,
    EXCLUDED,
    control_regret,
    null_regret,
    power_table,
)
from privdtol.analysis.registry import CLAIMS, ENV_CONTROLS
from privdtol.pipeline.config import load_config

REPLICATES = 20
LN2, LN4 = np.log(2.0), np.log(4.0)


@pytest.fixture(scope="module")
def default_power():
    config = load_config(CONFIG / "config.yaml")
    return power_table(config, {**DEFAULT_MODEL, "source": "test"}, REPLICATES, seed=0)


@pytest.mark.slow
def test_every_control_of_the_default_config_has_a_row(default_power):
    expected = {
        (c.id, ctrl)
        for c in CLAIMS.values()
        if c.id not in EXCLUDED
        for ctrl in c.controls
        if ctrl not in ENV_CONTROLS  # a loss-model control has no synthetic form
    }
    assert {(r["claim"], r["control"]) for r in default_power["rows"]} == expected


@pytest.mark.slow
def test_size_under_the_null(default_power):
    for row in default_power["rows"]:
        assert row["false_fail_rate"] <= 0.05, row


@pytest.mark.slow
def test_power_against_the_controls(default_power):
    for row in default_power["rows"]:
        assert row["control_fail_rate"] >= 0.95, row


def test_models_reach_their_plateau_and_controls_differ():
    """The null plateaus at a log K/gap + b log K/eta + c; each control departs from it in the
    coordinate its check tests."""
    m = {**DEFAULT_MODEL, "sigma": 0.0}
    T = np.array([2**40 - 1])
    full = m["a"] * np.log(8) / 0.125 + m["b"] * np.log(8) / 0.5**0 * 8 + m["c"]  # eta = 1/8
    assert null_regret(m, 8, 0.125, 8.0, T)[0] == pytest.approx(full, rel=1e-9)
    # log K exponent: rps_eta_logk's privacy term carries an extra log2 K
    r = [control_regret("rps_eta_logk", m, K, 0.5, 0.0625, T)[0] for K in (4, 4096)]
    n = [null_regret(m, K, 0.5, 0.0625, T)[0] for K in (4, 4096)]
    assert r[1] / r[0] > 5 * n[1] / n[0]
    # 1/gap exponent: rps_short_prefix pays 1/gap^2
    s = [control_regret("rps_short_prefix", m, 8, g, 8.0, T)[0] for g in (1 / 16, 1 / 128)]
    assert s[1] / s[0] > 40
    # uniform: linear in T
    assert control_regret("uniform", m, 4, 0.5, 1.0, T)[0] == pytest.approx(T[0] * 0.375)


def test_c3_power_per_cell_is_lost_at_small_gaps():
    """C3's control (ftl_egreedy, regret + gap (K - 1) ln T) is caught in the default config's
    large-gap cells and in none of its small-gap ones (K = 2 and 16, gap 2^-5): its log-T slope
    there is below (r - 1) Reg(T0)/ln(T_max/T0), the scope C3 states.  Only C3 (10 synthetic
    tables, about 1 s)."""
    from privdtol.analysis import power

    config = load_config(CONFIG / "config.yaml")
    only_c3 = [(c, k) for c, k in power.controls_for(config) if c == "C3"]
    original = power.controls_for
    try:
        power.controls_for = lambda cfg: only_c3
        table = power_table(config, {**DEFAULT_MODEL, "source": "test"}, 10, seed=0)
    finally:
        power.controls_for = original
    (row,) = table["rows"]
    assert row["control_fail_rate"] == 1.0
    assert row["control_fail_rate_by_cell"] == {
        "K=2, gap=0.03125": 0.0,
        "K=2, gap=0.25": 1.0,
        "K=16, gap=0.03125": 0.0,
        "K=16, gap=0.25": 1.0,
    }


def test_null_regret_plateaus_at_the_papers_time_scale():
    """Reg_T = min(T gap, R (1 - exp(-T / t*))), t* = 2 max(log K / gap^2, log K / (eta gap))
    (the power model's null): K = 4, gap = 1/2; without privacy R = log 4 / gap = 2 log 4 and
    t* = 8 log 4; at eps = 1 (eta = 1/8) R = 2 log 4 + 8 log 4 and t* = 32 log 4."""
    from privdtol.analysis.power import null_regret

    lk = np.log(4.0)
    T = np.array([1.0, 10.0, 100.0])
    got = null_regret({"a": 1.0, "b": 0.0, "c": 0.0}, 4, 0.5, np.inf, T)
    np.testing.assert_allclose(got, np.minimum(T / 2, 2 * lk * -np.expm1(-T / (8 * lk))))
    got = null_regret({"a": 1.0, "b": 1.0, "c": 0.0}, 4, 0.5, 1.0, T)
    np.testing.assert_allclose(got, np.minimum(T / 2, 10 * lk * -np.expm1(-T / (32 * lk))))


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
        final_rows_table("grid", [("rps", 4, 0.25, 1.0, m)], instance=inst).assign(
            cell_id=f"grid-{inst}"
        )
        for inst, m in zip("abcd", (1.0, 1.0, 2.0, 2.0), strict=True)
    ]
    model = power.fitted_model({"grid": pd.concat(parts, ignore_index=True)})
    assert model["sigma"] == pytest.approx(np.log(2.0), rel=1e-9)
    assert model["source"] == "fit over 4 rps grid cells"
    # x_gap = log 4/(1/4), x_eta = log 4/(1/8): the fit's value at the cells is s = 1.2
    assert model["a"] * 4 * LN4 + model["b"] * 8 * LN4 + model["c"] == pytest.approx(1.2)


def test_config_cells_go_on_past_experiments_of_other_claims():
    """The smoke config lists the ablations experiment seventh: its two rps cells are read."""
    config = load_config(SMOKE)
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
    config = load_config(SMOKE)
    power.power_table(config, {**power.DEFAULT_MODEL, "source": "test"}, replicates=1)
    rps = [("rps", e, [e]) for e in ("horizon", "gap", "epsilon", "actions", "grid")]
    assert seen == [*rps, ("uniform", "horizon", ["horizon"])]


#: a model with distinct a, b, c and no lack of fit; b = a/2 keeps the initial slope full/t*
#: below gap in the cells below, so that the cap T gap does not hide t* at T = 1
ABC = {"a": 1.0, "b": 0.5, "c": 0.25, "sigma": 0.0}


def _plateau(full, gap, t_star, T):
    """min(T gap, full (1 - exp(-T/t*))), the module docstring's plateau, by hand."""
    T = np.asarray(T, dtype=float)
    return np.minimum(T * gap, full * -np.expm1(-T / t_star))


#: four distinct rps cells (K = 4, eps = 1, gaps 1/2 .. 1/16), enough for the form fit
FOUR_RPS = [
    ("rps", 4, g, 1.0, m) for g, m in ((0.5, 5.0), (0.25, 9.0), (0.125, 18.0), (0.0625, 40.0))
]


def test_fitted_model_reads_the_grid_experiment_only():
    """Four rps cells in the ``horizon`` experiment and none in ``grid``: the fit is over the
    grid's rps cells only, so the model is :data:`DEFAULT_MODEL` with its stated source."""
    model = power.fitted_model({"horizon": final_rows_table("horizon", FOUR_RPS)})
    assert model == {"a": 1.2, "b": 3.6, "c": 1.0, "sigma": 0.05,
                     "source": "default (no grid experiment)"}  # fmt: skip


def test_rps_without_privacy_has_no_privacy_term_and_the_statistical_time_scale():
    """eps = inf (eta infinite): Reg = a log K/gap + c, t* = 2 log K/gap^2.  K = 2, gap = 1:
    full = log 2 + 1/4 and t* = 2 log 2 (below 1: the time scale is not floored at 1); at
    T = 1 full (1 - exp(-1/(2 log 2))) = 0.4847 is below T gap = 1."""
    T = [1.0, 2.0**20]
    got = power.control_regret("rps", ABC, 2, 1.0, np.inf, T)
    np.testing.assert_allclose(
        got,
        _plateau(LN2 + 0.25, 1.0, 2 * LN2, T),
        rtol=1e-12,
    )
    assert got[0] == pytest.approx(0.4847, abs=1e-4)


def test_rps_short_prefix_pays_log_k_to_the_1_5_over_gap_squared():
    """K = 4, gap 1/4: the statistical term is a log^1.5 4/gap^2 = 16 log^1.5 4 and the time
    scale t* = 2 max((log 4/gap^2)^1.5, log 4/(eta gap)) = 2 max((16 log 4)^1.5, 4 log 4/eta).
    Without privacy (eps = inf) the identification time (16 log 4)^1.5 = 104.5 sets it; at
    eps = 1/64 (eta = 1/128) the privacy time 512 log 4 = 709.8 does, and full gains
    b 128 log 4 = 64 log 4."""
    T = [1.0, 3.0, 300.0, 2.0**30]
    stat = 16 * LN4**1.5
    got = power.control_regret("rps_short_prefix", ABC, 4, 0.25, np.inf, T)
    t_id = 2 * (16 * LN4) ** 1.5
    np.testing.assert_allclose(got, _plateau(stat + 0.25, 0.25, t_id, T), rtol=1e-12)
    assert got[0] < 0.25
    got = power.control_regret("rps_short_prefix", ABC, 4, 0.25, 1 / 64, T)
    full = stat + 64 * LN4 + 0.25
    np.testing.assert_allclose(got, _plateau(full, 0.25, 1024 * LN4, T), rtol=1e-12)
    assert got[0] < 0.25


def test_ftl_egreedy_is_the_statistical_plateau_plus_its_exploration():
    """K = 4, gap 1/2, a = 1: the statistical term plateaus at a log 4/gap + 1 = 2 log 4 + 1
    (t* = 2 log 4/gap^2 = 8 log 4, no privacy term), plus gap (K - 1) ln(T/K + 1) =
    1.5 ln(T/4 + 1); T = 1/2 counts as one round (ln(1/4 + 1))."""
    T = [0.5, 1, 7, 2**70]  # 2^70: a Python int past 64 bits, a float horizon all the same
    got = power.control_regret("ftl_egreedy", ABC, 4, 0.5, 1.0, T)
    expl = 1.5 * np.log(np.maximum(np.asarray(T, dtype=float), 1.0) / 4 + 1)
    np.testing.assert_allclose(
        got,
        _plateau(2 * LN4 + 1, 0.5, 8 * LN4, T) + expl,
        rtol=1e-12,
    )


def test_null_regret_takes_horizons_past_64_bits():
    """T = 2^70 (a Python int numpy cannot hold as an integer) is a float horizon: the null has
    long reached its plateau a log 2/gap + c = 2 log 2 + 1/4 (K = 2, gap 1/2, no privacy)."""
    got = power.null_regret(ABC, 2, 0.5, np.inf, [2**70])
    np.testing.assert_allclose(got, [2 * LN2 + 0.25], rtol=1e-15)


def _two_cells():
    """rps at K = 2, gap 1/2 without epsilon (horizon 3: checkpoints 1, 3) and at K = 4,
    gap 1/4, eps 1/2 on correlated losses (horizon 7: checkpoints 1, 3, 7); K given as floats
    and epsilon as objects (None, as the plan gives for a cell without privacy)."""
    return pd.DataFrame(
        {"K": [2.0, 4.0], "gap": [0.5, 0.25], "epsilon": pd.Series([None, 0.5], dtype=object),
         "horizon": [3, 7], "env": ["bernoulli", "correlated"], "rho": [None, 0.5],
         "kappa": [None, None]}
    )  # fmt: skip


def test_synthetic_cells_columns_of_every_checkpoint():
    """The aggregated columns of every checkpoint row, by cell.  Cell 0: eta infinite, full =
    a log 2/(1/2) + c = 2 log 2 + 1/4, t* = 8 log 2.  Cell 1: eta = min(1/4, 1/8) = 1/8,
    full = a log 4/(1/4) + b 8 log 4 + c = 8 log 4 + 1/4, t* = 2 max(16 log 4, 32 log 4)."""
    tab = power.SyntheticCells("rps", _two_cells(), ABC, "grid").table(0)
    assert list(tab.columns) == [
        "experiment", "cell_id", "algorithm", "env", "instance", "K", "gap", "epsilon",
        "mu_best", "rho", "kappa", "horizon", "runs", "mean", "se", "ci_low", "ci_high",
    ]  # fmt: skip
    assert tab.drop(columns=["mean", "se", "ci_low", "ci_high", "epsilon", "rho"]).to_dict(
        "list"
    ) == {
        "experiment": ["grid"] * 5,
        "cell_id": ["rps-0", "rps-0", "rps-1", "rps-1", "rps-1"],
        "algorithm": ["rps"] * 5,
        "env": ["bernoulli", "bernoulli", "correlated", "correlated", "correlated"],
        "instance": ["standard"] * 5,
        "K": [2, 2, 4, 4, 4],
        "gap": [0.5, 0.5, 0.25, 0.25, 0.25],
        "mu_best": [0.25, 0.25, 0.375, 0.375, 0.375],
        "kappa": [None] * 5,
        "horizon": [1, 3, 1, 3, 7],
        "runs": [0] * 5,
    }
    assert tab["K"].dtype == np.int64
    np.testing.assert_array_equal(tab["epsilon"], [np.nan, np.nan, 0.5, 0.5, 0.5])
    np.testing.assert_array_equal(tab["rho"], [np.nan, np.nan, 0.5, 0.5, 0.5])
    expected = np.concatenate(
        [_plateau(2 * LN2 + 0.25, 0.5, 8 * LN2, [1, 3]),
         _plateau(8 * LN4 + 0.25, 0.25, 64 * LN4, [1, 3, 7])]
    )  # fmt: skip
    np.testing.assert_allclose(tab["mean"], expected, rtol=1e-12)


def test_synthetic_cells_give_float_gaps_and_epsilons():
    """Integer epsilons (``epsilon: [1]`` in a config) and gaps held as Python objects come out
    as float columns, as in the aggregated tables."""
    cells = pd.DataFrame(
        {"K": [2], "gap": pd.Series([0.5], dtype=object), "epsilon": [1], "horizon": [1],
         "env": ["bernoulli"], "rho": [None], "kappa": [None]}
    )  # fmt: skip
    tab = power.SyntheticCells("rps", cells, ABC, "grid").table(0)
    assert (tab["gap"].dtype, tab["epsilon"].dtype) == (np.float64, np.float64)
    assert (tab["gap"].tolist(), tab["epsilon"].tolist()) == ([0.5], [1.0])


def test_a_cell_whose_epsilon_is_any_missing_value_has_no_privacy():
    """Epsilon None, NaN or NaT (pandas' missing time): a cell without privacy, NaN in the
    table.  K = 2, gap 1/2, horizon 1: full = a log 2/(1/2) + c = 2 log 2 + 1/4, t* = 8 log 2."""
    missing = pd.Series([None, np.nan, pd.NaT], dtype=object)
    cells = pd.DataFrame(
        {"K": 2, "gap": 0.5, "epsilon": missing, "horizon": 1, "env": "bernoulli", "rho": None,
         "kappa": None}
    )  # fmt: skip
    tab = power.SyntheticCells("rps", cells, ABC, "grid").table(0)
    assert tab["epsilon"].isna().tolist() == [True] * 3
    expected = _plateau(2 * LN2 + 0.25, 0.5, 8 * LN2, [1.0])[0]
    np.testing.assert_allclose(tab["mean"], [expected] * 3, rtol=1e-12)


def test_synthetic_cells_of_no_cells_give_an_empty_table():
    cells = pd.DataFrame(columns=["K", "gap", "epsilon", "horizon", "env", "rho", "kappa"])
    synthetic = power.SyntheticCells("rps", cells, ABC, "grid")
    assert synthetic.n_cells == 0
    assert synthetic.table(0).empty and synthetic.base.empty


def test_each_cell_draws_its_own_lack_of_fit_from_the_given_seed():
    """sigma = 1/2: cell i's rows are its regret times exp(z_i/2), z the first two standard
    normals of ``default_rng(7)`` in the cells' order, the same factor at all its checkpoints
    (the regret without lack of fit is the table at sigma = 0)."""
    cells = _two_cells()
    tab = power.synthetic_table("rps", cells, {**ABC, "sigma": 0.5}, 7, "grid")
    exact = power.synthetic_table("rps", cells, ABC, 7, "grid")["mean"].to_numpy()
    z = np.random.default_rng(7).standard_normal(2)
    factor = np.exp(0.5 * z)[[0, 0, 1, 1, 1]]
    np.testing.assert_allclose(tab["mean"], exact * factor, rtol=1e-12)
    np.testing.assert_allclose(tab["se"], 1e-10 * exact * factor, rtol=1e-12)


def test_fails_by_cell_counts_a_k_and_gap_once_if_any_of_its_cells_fails():
    """Cells without a gap or without a verdict of PASS/FAIL/INCONCLUSIVE are left out; a
    (K, gap) with one FAIL among its cells is 1, one with PASS and INCONCLUSIVE only is 0."""
    record = {
        "cells": [
            {"K": 2, "gap": 0.5, "verdict": "FAIL"},
            {"K": 2, "gap": 0.5, "verdict": "PASS"},
            {"K": 16, "gap": 0.125, "verdict": "PASS"},
            {"K": 16, "gap": 0.125, "verdict": "PASS"},
            {"K": 32, "gap": 0.0625, "verdict": "INCONCLUSIVE"},
            {"K": 4, "gap": 0.25, "verdict": "NOT REACHED"},
            {"K": 4, "gap": None, "verdict": "FAIL"},
            {"K": 8, "verdict": "FAIL"},
            {"K": 8, "gap": 0.25},
        ]
    }
    assert power._fails_by_cell(record) == {(2.0, 0.5): 1, (16.0, 0.125): 0, (32.0, 0.0625): 0}
    assert power._fails_by_cell({"verdict": "PASS"}) == {}


def test_power_table_rates_rows_and_per_cell_power(monkeypatch):
    """Two fabricated checks on the smoke config's ``horizon`` experiment (one rps cell and one
    cell of each control), 4 replicates.  The checks' verdicts are scripted per call: C2 FAILs
    rps once and uniform 3 times (size 1/4, power 3/4); C3 FAILs rps twice and ftl_egreedy in
    every replicate, with per-cell verdicts: (K=16, gap 1/8) FAILs in replicates 1 and 3,
    (K=2, gap 1/2) in all four, so its rates are 0.5 and 1, sorted by K numerically; the
    null's cells (all FAIL) count for nothing, nor do C2's cells (C2 is not by gap)."""
    cells = [{"K": 16, "gap": 0.125, "verdict": "FAIL"}, {"K": 2, "gap": 0.5, "verdict": "FAIL"}]
    half = [{"K": 16, "gap": 0.125, "verdict": "PASS"}, {"K": 2, "gap": 0.5, "verdict": "FAIL"}]
    script = {
        ("C2", "rps"): ["FAIL", "PASS", "PASS", "INCONCLUSIVE"],
        ("C2", "uniform"): ["FAIL", "FAIL", "PASS", "FAIL"],
        ("C3", "rps"): ["PASS", "FAIL", "FAIL", "PASS"],
        ("C3", "ftl_egreedy"): ["FAIL"] * 4,
    }
    calls = []

    def check_of(claim_id):
        def check(tables, thresholds, inputs, algorithm):
            calls.append((claim_id, algorithm, sorted(tables), inputs, thresholds))
            i = sum(c[:2] == (claim_id, algorithm) for c in calls) - 1
            by_cell = half if (algorithm == "ftl_egreedy" and i % 2 == 0) else cells
            return {"verdict": script[claim_id, algorithm][i], "cells": by_cell}

        return lambda: check

    claims = {
        c: SimpleNamespace(experiments=("horizon",), statistic=f"statistic of {c}",
                           check_function=check_of(c))
        for c in ("C2", "C3")
    }  # fmt: skip
    monkeypatch.setattr(power, "CLAIMS", claims)
    config = load_config(SMOKE)
    pairs = [("C2", "uniform"), ("C3", "ftl_egreedy")]
    monkeypatch.setattr(power, "controls_for", lambda cfg: pairs if cfg is config else [])
    model = {"a": 1.2, "b": 3.6, "c": 1.0, "sigma": 0.25, "source": "test", "extra": 1}
    table = power.power_table(config, model, replicates=4, seed=3)
    assert table == {
        "replicates": 4,
        "noise": 0.25,
        "model": {"a": 1.2, "b": 3.6, "c": 1.0, "sigma": 0.25, "source": "test"},
        "rows": [
            {"claim": "C2", "check": "statistic of C2", "control": "uniform",
             "false_fail_rate": 0.25, "control_fail_rate": 0.75},
            {"claim": "C3", "check": "statistic of C3", "control": "ftl_egreedy",
             "false_fail_rate": 0.5, "control_fail_rate": 1.0,
             "control_fail_rate_by_cell": {"K=2, gap=0.5": 1.0, "K=16, gap=0.125": 0.5}},
        ],
    }  # fmt: skip
    assert list(table["rows"][1]["control_fail_rate_by_cell"]) == [
        "K=2, gap=0.5",
        "K=16, gap=0.125",
    ]
    assert calls[0] == ("C2", "rps", ["horizon"], [], config["checks"])
    assert [c[:2] for c in calls] == [
        *[("C2", "rps")] * 4, *[("C2", "uniform")] * 4,
        *[("C3", "rps")] * 4, *[("C3", "ftl_egreedy")] * 4,
    ]  # fmt: skip


def test_power_table_replicate_i_uses_seed_plus_i(monkeypatch):
    """Each replicate's table is the synthetic table of seed + i: the check sees, for seed 5
    and 3 replicates, the tables of seeds 5, 6 and 7 (the same for the null and the control);
    by default 40 tables, of seeds 0 to 39.  The smoke config's ``horizon`` experiment has one
    cell of each algorithm: one standard normal per table."""
    seen = []

    def check(tables, thresholds, inputs, algorithm):
        seen.append((algorithm, tables["horizon"]["mean"].to_numpy()))
        return {"verdict": "PASS", "cells": []}

    claim = SimpleNamespace(experiments=("horizon",), statistic="s", check_function=lambda: check)
    monkeypatch.setattr(power, "CLAIMS", {"C2": claim})
    monkeypatch.setattr(power, "controls_for", lambda cfg: [("C2", "uniform")])
    config = load_config(SMOKE)
    model = {**ABC, "sigma": 0.5, "source": "test"}
    for kwargs, seeds in (({"replicates": 3, "seed": 5}, [5, 6, 7]), ({}, range(40))):
        seen.clear()
        assert power.power_table(config, model, **kwargs)["replicates"] == len(seeds)
        for alg in ("rps", "uniform"):
            cells = power.config_cells(config, ("horizon",), alg)["horizon"]
            exact = power.SyntheticCells(alg, cells, {**model, "sigma": 0.0}, "horizon").table(0)
            means = [m for a, m in seen if a == alg]
            assert len(means) == len(seeds) and len(cells) == 1
            for seed, m in zip(seeds, means, strict=True):
                z = np.random.default_rng(seed).standard_normal(1)[0]
                np.testing.assert_allclose(m, exact["mean"] * np.exp(0.5 * z), rtol=1e-12)


def test_the_power_model_is_the_fit_to_the_grid_without_lack_of_fit():
    model = power.fitted_model(exact_law_tables())
    assert model.pop("source") == "fit over 4 rps grid cells"
    assert model == pytest.approx({"a": 2.0, "b": 4.0, "c": 1.0, "sigma": 0.0}, abs=1e-9)


def test_power_table_goes_on_past_a_skipped_control(monkeypatch):
    """Proof claims (exact values) and loss-model controls get no row, and are skipped, not an
    end of the list: with the registry's order they come last, so the order is forced here (as
    a new claim after them, or a claim listing its loss-model control first, would give)."""
    config = load_config(SMOKE)
    pairs = [("L4", "rps_short_prefix"), ("C5", "blocked"), ("C2", "uniform")]
    monkeypatch.setattr(power, "controls_for", lambda cfg: pairs)
    model = {**power.DEFAULT_MODEL, "source": "test"}
    assert power.power_table(config, model, replicates=2)["rows"] == [
        {
            "claim": "C2",
            "check": "largest regret / bound over cells and checkpoint horizons (upper "
            "confidence limit)",
            "control": "uniform",
            "false_fail_rate": 0.0,
            "control_fail_rate": 1.0,
        }
    ]
