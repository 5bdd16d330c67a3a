"""Guards found by mutation testing of ``privdtol.analysis`` (``make mutation GROUPS=analysis``,
docs/testing.md), second batch: the findings page's records and sentences (``_ablation`` and
``cap_cost``, ``competitors``, ``constants``, the proof-slack budget, the worst-instance
summary) on small fabricated tables whose numbers are worked out by hand in the comments, the
power model's fit to the grid, the power table's loop past a skipped control, the thresholds
each notebook draws and the regime of a cell without epsilon."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis import findings, power, registry, slack, worst
from privdtol.analysis.cells import regime
from privdtol.pipeline.config import check_defaults, load_config

ROOT = Path(__file__).resolve().parents[1]


def _table(experiment, cells, env="bernoulli", instance="standard", horizon=1023):
    """An aggregated table: one row per ``(algorithm, K, gap, epsilon, mean)`` of ``cells`` at
    ``horizon``, plus, for each, an earlier checkpoint (horizon 511) with a mean 1000 times
    larger that :func:`~privdtol.analysis.cells.final_rows` must drop."""
    rows = []
    for i, (alg, K, gap, eps, mean) in enumerate(cells):
        for h, m in ((horizon // 2, 1000.0 * mean), (horizon, mean)):
            rows.append(
                {
                    "experiment": experiment,
                    "cell_id": f"{experiment}-{i}",
                    "algorithm": alg,
                    "env": env,
                    "instance": instance,
                    "K": K,
                    "gap": gap,
                    "epsilon": eps,
                    "mu_best": 0.5 - gap / 2,
                    "rho": None,
                    "kappa": None,
                    "horizon": h,
                    "mean": m,
                }
            )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- ablations

#: rps against its two ablations at K = 4, gap = 1/4 and four epsilons; the cap binds where
#: eps/2 > 1/8, i.e. at eps = 0.5, 1 and 2 (not at 0.125)
ABLATION = [
    ("rps", 4, 0.25, 0.125, 10.0),
    ("rps", 4, 0.25, 0.5, 12.0),
    ("rps", 4, 0.25, 1.0, 20.0),
    ("rps", 4, 0.25, 2.0, 30.0),
    ("rps_uncapped", 4, 0.25, 0.125, 10.0),  # ratio 1
    ("rps_uncapped", 4, 0.25, 0.5, 8.0),  # 1.5
    ("rps_uncapped", 4, 0.25, 1.0, 10.0),  # 2
    ("rps_uncapped", 4, 0.25, 2.0, 12.0),  # 2.5
    ("rps_full_prefix", 4, 0.25, 0.125, 40.0),  # 0.25
    ("rps_full_prefix", 4, 0.25, 0.5, 16.0),  # 0.75
    ("rps_full_prefix", 4, 0.25, 1.0, 16.0),  # 1.25
    ("rps_full_prefix", 4, 0.25, 2.0, 15.0),  # 2
]


def test_cap_cost_counts_the_cells_where_the_cap_does_not_bind_apart():
    tables = {"ablations": _table("ablations", ABLATION)}
    assert findings.cap_cost(tables) == {
        "available": True,
        "n": 3,
        "min": 1.5,
        "median": 2.0,
        "max": 2.5,
        "where": "where the cap binds (eps > 1/4)",
        "left_out": 1,
        "text": "Cost of the eta cap: rps / rps_uncapped over 3 cells where the cap binds "
        "(eps > 1/4): median 2 (range [1.5, 2.5]); the 1 other cells, where it does not "
        "matter, are left out.",
    }


@pytest.mark.parametrize("env", ["bernoulli", "beta"])
def test_prefix_cost_is_the_ratio_over_every_common_cell(env):
    """Ratios 0.25, 0.75, 1.25, 2: median (0.75 + 1.25)/2 = 1; the ablations experiment of a
    config may use another loss model (``env: beta``): its cells are still the ablation's."""
    tables = {"ablations": _table("ablations", ABLATION, env=env)}
    assert findings.prefix_cost(tables) == {
        "available": True,
        "n": 4,
        "min": 0.25,
        "median": 1.0,
        "max": 2.0,
        "where": "",
        "left_out": 0,
        "text": "Cost of the random prefix: rps / rps_full_prefix over 4 cells: median 1 "
        "(range [0.25, 2]).",
    }


# ----------------------------------------------------------------------------- competitors

#: K = 2; cells (gap, eps): (1/4, 1) and (1/2, 2) statistical, (1/4, 1/4) balanced, (1/2, 1/4)
#: privacy.  rnm_ftnl and wu_wang are equal (the same law on {0,1} losses).
COMPETITION = [
    (alg, 2, gap, eps, mean)
    for alg, means in (
        ("rps", (10.0, 6.0, 12.0, 20.0)),
        ("rnm_ftnl", (20.0, 4.0, 12.0, 10.0)),
        ("wu_wang", (20.0, 4.0, 12.0, 10.0)),
        ("wu_wang_gumbel", (40.0, 3.0, 24.0, 40.0)),
    )
    for (gap, eps), mean in zip(
        ((0.25, 1.0), (0.5, 2.0), (0.25, 0.25), (0.5, 0.25)), means, strict=True
    )
]


def test_competitors_per_regime_and_per_competitor_by_hand():
    """best = (20, 3, 12, 10), rps / best = (0.5, 2, 1, 2); per competitor rps / rnm_ftnl =
    rps / wu_wang = (0.5, 1.5, 1, 2), rps / wu_wang_gumbel = (0.25, 2, 0.5, 0.5).  "rps best"
    counts ratios <= 1, "rps better" ratios < 1.  A Beta-loss rps cell, ftl and the earlier
    checkpoints are left out."""
    grid = _table("grid", [*COMPETITION, ("ftl", 2, 0.25, None, 1.0)])
    beta = _table("grid", [("rps", 2, 0.25, 1.0, 0.001)], env="beta").assign(cell_id="b")
    found = findings.competitors({"grid": pd.concat([beta, grid], ignore_index=True)})

    def spread(n, lo, med, hi):
        return {"n": n, "min": lo, "median": med, "max": hi}

    assert found["regimes"] == {
        "balanced": {**spread(1, 1.0, 1.0, 1.0), "rps_best": 1},
        "privacy": {**spread(1, 2.0, 2.0, 2.0), "rps_best": 0},
        "statistical": {**spread(2, 0.5, 1.25, 2.0), "rps_best": 1},
    }
    laplace = [  # rnm_ftnl and wu_wang
        ("balanced", spread(1, 1.0, 1.0, 1.0), 0),
        ("privacy", spread(1, 2.0, 2.0, 2.0), 0),
        ("statistical", spread(2, 0.5, 1.0, 1.5), 1),
    ]
    expected = [
        *[(r, alg, s, k) for alg in ("rnm_ftnl", "wu_wang") for r, s, k in laplace],
        ("balanced", "wu_wang_gumbel", spread(1, 0.5, 0.5, 0.5), 1),
        ("privacy", "wu_wang_gumbel", spread(1, 0.5, 0.5, 0.5), 1),
        ("statistical", "wu_wang_gumbel", spread(2, 0.25, 1.125, 2.0), 1),
        ("balanced", "best", spread(1, 1.0, 1.0, 1.0), 0),
        ("privacy", "best", spread(1, 2.0, 2.0, 2.0), 0),
        ("statistical", "best", spread(2, 0.5, 1.25, 2.0), 1),
    ]
    assert found["table"] == [
        {"regime": r, "competitor": alg, **s, "rps_better": k} for r, alg, s, k in expected
    ]
    assert found["identical"] == {"n": 4, "max_rel_diff": 0.0}
    assert found["regime_definitions"] == findings.REGIMES
    assert found["available"] is True
    assert found["text"] == (
        "balanced: rps / best competitor median 1 over 1 cells (rps best in 1); "
        "privacy: rps / best competitor median 2 over 1 cells (rps best in 0); "
        "statistical: rps / best competitor median 1.25 over 2 cells (rps best in 1)."
    )


# ----------------------------------------------------------------------------- the grid's fit

#: four rps cells at K = 2 on the exact law mean = 2 log K/gap + 4 log K/eta + 1 (eta =
#: min(eps/2, 1/8): 1/32, 1/32, 1/8, 1/16), the columns (log K/gap, log K/eta, 1) of full rank
LN2 = np.log(2.0)
GRID = [
    ("rps", 2, gap, eps, 2 * LN2 / gap + 4 * LN2 / min(eps / 2, 1 / 8) + 1)
    for gap, eps in ((0.25, 0.0625), (0.5, 0.0625), (0.25, 0.25), (0.5, 0.125))
]
#: rows the fits must leave out: another algorithm, and rps on another loss model
GRID_OTHERS = [("rps_eta_logk", 2, 0.25, 0.0625, 1.0)]


def _grid_tables():
    other_env = _table("grid", [("rps", 2, 0.5, 0.25, 1.0)], env="beta").assign(cell_id="b")
    grid = _table("grid", GRID + GRID_OTHERS)
    return {"grid": pd.concat([grid, other_env], ignore_index=True)}


def test_constants_recover_an_exact_law_and_compare_it_with_theorem_1():
    found = findings.constants(_grid_tables())
    fit = {k: found.pop(k) for k in ("a", "b", "c")}
    assert fit == pytest.approx({"a": 2.0, "b": 4.0, "c": 1.0}, rel=1e-9)
    assert found == {
        "available": True,
        "paper_a": 800.0,
        "paper_b": 16.0,
        "n": 4,
        "text": "Over 4 rps grid cells regret ~ 2 log K/gap + 4 log K/eta + 1: the constants "
        "are 400 and 4 times below Theorem 1's 800 and 16 (which the paper does not "
        "optimize).",
    }


def test_the_power_model_is_the_fit_to_the_grid_without_lack_of_fit():
    model = power.fitted_model(_grid_tables())
    assert model.pop("source") == "fit over 4 rps grid cells"
    assert model == pytest.approx({"a": 2.0, "b": 4.0, "c": 1.0, "sigma": 0.0}, abs=1e-9)


def test_power_table_goes_on_past_a_skipped_control(monkeypatch):
    """Proof claims (exact values) and loss-model controls get no row, and are skipped, not an
    end of the list: with the registry's order they come last, so the order is forced here (as
    a new claim after them, or a claim listing its loss-model control first, would give)."""
    config = load_config(ROOT / "config" / "smoke.yaml")
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


# ----------------------------------------------------------------------------- proof slack


def test_proof_slack_with_lemma_4_loosest_has_no_sub_step():
    """One statistical cell (K = 8, gap 1/4, eps 1, the proof table's columns of
    tests/test_proof_checks.py): Lemma 4 121/1, eq. (5) 1600/30 = 53.3, eq. (6) 100/20 = 5,
    Theorem 1 500/1; Lemma 4 has no sub-steps, so the sentence names none."""
    from test_proof_checks import _slack_row

    row = _slack_row(0, regret_limit=1.0, bound_theorem1=500.0)
    found = slack.proof_slack({"proof": pd.DataFrame([row])})
    steps = found.pop("steps")
    assert [s["key"] for s in steps] == [s.key for s in slack.STEPS]
    assert found == {
        "available": True,
        "cells": 1,
        "loosest": "lemma4",
        "loosest_factor": 121.0,
        "loosest_substep": None,
        "text": "The loosest step of the proof is Lemma 4: over the 1 rps cells where it "
        "applies its bound exceeds the exact value by a median factor of 121 (from 121 to "
        "121); eq. (5) loses a median 53.3, eq. (6) loses a median 5, and Theorem 1's bound "
        "is a median 500 times the exact regret.",
    }


# ----------------------------------------------------------------------------- worst case


def _search(objective, K, gap, eps, value, standard, evaluations, regret=1.0, bound=1.0):
    return {
        "objective": objective,
        "K": K,
        "gap": gap,
        "epsilon": eps,
        "value": value,
        "standard_value": standard,
        "evaluations": evaluations,
        "regret": regret,
        "bound": bound,
        "means": "0 0.5",
        "standard_means": "0.25 0.75",
    }


def test_worst_case_without_a_rate_min_search_has_no_range():
    """Two Theorem-1 searches: the largest value 0.375 (standard 0.125, gain 3) and a smaller
    one with the largest gain 0.25/0.03125 = 8.  Rescaled to the rate (log K/gap + log K/eps:
    3 log 2 and 12 log 2) the first is 3/(3 log 2) = 1/log 2, its standard 1/(3 log 2); the gain
    does not change."""
    df = pd.DataFrame(
        [
            _search("theorem1", 2, 0.5, 1.0, 0.375, 0.125, 40, regret=3.0, bound=8.0),
            _search("theorem1", 4, 0.25, 0.5, 0.25, 0.03125, 30, regret=2.0, bound=8.0),
        ]
    )
    found = worst.worst_case({"searches": df})
    assert found["theorem1"] == {
        "searches": 2,
        "value": 0.375,
        "standard_value": 0.125,
        "standard_extreme": 0.125,
        "K": 2,
        "gap": 0.5,
        "epsilon": 1.0,
        "means": "0 0.5",
        "evaluations": 40,
        "gain_max": 8.0,
    }
    rate = found["rate"]  # to plain()'s 6 significant digits
    assert (rate["value"], rate["standard_extreme"], rate["gain_max"]) == (1.4427, 0.480898, 8.0)
    assert found["lemma5"] is None and found["rate_min"] is None
    assert found["text"] == (
        "The worst instance found reaches 0.375 of Theorem 1's bound (the standard instance "
        "of that search: 0.125; K=2, gap=0.5, eps=1, 2 searches of up to 40 exact "
        "evaluations). A search finds the largest value it evaluated, not a supremum."
    )


def test_worst_case_sentence_joins_every_objective_and_the_range():
    """Theorem 1 as above, a Lemma-5 search, and a rate_min search of 0.25 (standard 0.4):
    the rate ranges from 0.25 to 1/log 2 = 1.44 (standard instances 0.4 to 1/(3 log 2) =
    0.481)."""
    df = pd.DataFrame(
        [
            _search("theorem1", 2, 0.5, 1.0, 0.375, 0.125, 40, regret=3.0, bound=8.0),
            _search("lemma5", 4, 0.25, 0.5, 0.5, 0.25, 20),
            _search("rate_min", 2, 0.5, 1.0, 0.25, 0.4, 10),
        ]
    )
    found = worst.worst_case({"searches": df})
    assert found["rate_min"]["gain_max"] == 1.6  # 0.4 / 0.25
    assert found["text"] == (
        "The worst instance found reaches 0.375 of Theorem 1's bound (the standard instance "
        "of that search: 0.125; K=2, gap=0.5, eps=1, 1 searches of up to 40 exact "
        "evaluations); the worst instance found reaches 0.5 of Lemma 5's bound (sum_m F_m "
        "over it) (the standard instance of that search: 0.25; K=4, gap=0.25, eps=0.5, 1 "
        "searches of up to 20 exact evaluations); Reg / (log K/gap + log K/eps) ranges from "
        "0.25 to 1.44 over the instances found (the standard instances: 0.4 to 0.481). A "
        "search finds the largest value it evaluated, not a supremum."
    )


# ----------------------------------------------------------------------------- registry, cells


def test_each_notebook_draws_the_thresholds_of_its_claims():
    """From the claim list: horizon shows C3, rates C4a and C4b, actions C4c, heatmap C4,
    bounds C2 and C2b, dependent C5, agreement C0; privacy (C1) and proof (L4, L5, ...) use
    no threshold, ablations and worst show no claim."""
    rate = ["confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"]
    expected = {
        "horizon": ["confidence", "horizon_free_ratio_max", "horizon_free_c"],
        "rates": rate,
        "actions": rate,
        "heatmap": ["confidence", "rate_form_factor"],
        "bounds": ["confidence"],
        "dependent": ["confidence"],
        "ablations": [],
        "privacy": [],
        "agreement": ["agreement_z_max", "agreement_min_events"],
        "proof": [],
        "worst": [],
    }
    assert {name: registry.notebook_thresholds(name) for name in registry.NOTEBOOKS} == expected
    assert {k for keys in expected.values() for k in keys} <= set(check_defaults())


def test_regime_of_an_object_column_with_a_missing_epsilon():
    """A table column with gaps is an object column holding None (a non-private cell): the
    private cells get their regime, the cell without epsilon a label (which the actions
    notebook drops), not a TypeError."""
    gap = pd.Series([0.5, 0.5, 0.5, 0.5])
    eps = pd.Series([1.0, 0.25, 0.5, None], dtype=object)
    out = regime(gap, eps)
    assert out.shape == (4,)
    assert out[:3].tolist() == ["statistical", "privacy", "balanced"]
