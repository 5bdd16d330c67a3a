"""Tests of :mod:`privdtol.analysis.findings.slack`: how loose each step of the proof of Theorem
1 is (Lemma 4, Lemma 5, eqs. (5) and (6) and their sub-steps) on the exact proof terms, per cell
and per regime."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.tables import proof_row

from privdtol.analysis.findings import slack
from privdtol.analysis.findings.slack import proof_slack, slack_table


def test_proof_slack_without_proof_terms():
    assert slack.proof_slack({}) == {"available": False, "text": "No proof terms in this run."}


def _slack_row(i, **values):
    row = proof_row(
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


def _two_regimes():
    """A statistical cell (eps 1 > gap 1/4) listed before a privacy cell (eps 1/16 < gap 1/4,
    small-gap sum 60 instead of 30).  Both: Lemma 4's exact side regret_limit = 99 (bound 121,
    factor 1.2222) and Theorem 1's bound 1043.46 = 10.54 x 99."""
    common = {"regret_limit": 99.0, "bound_theorem1": 1043.46}
    return pd.DataFrame(
        [_slack_row(0, **common), _slack_row(1, small_gap=60.0, epsilon=0.0625, **common)]
    )


def test_slack_sentence_names_the_loosest_step_its_factor_and_the_others_word_for_word():
    """eq. (5) = 1600/30 = 53.3 and 1600/60 = 26.7 (median 40) is the loosest headline step;
    of its factors (groups 900/30 = 30, levels 1800/900 = 2, constant 1600/1800) the groups
    are the largest.  Lemma 4 loses 121/99 = 1.2222, written with 4 significant digits (below
    10), eq. (6) 100/20 = 5, and Theorem 1's 10.54 keeps 3 digits (10 or more): 10.5."""
    found = slack.proof_slack({"proof": _two_regimes()})
    assert found["text"] == (
        "The loosest step of the proof is eq. (5): over the 2 rps cells where it applies its "
        "bound exceeds the exact value by a median factor of 40 (from 26.7 to 53.3), the "
        "largest of its factors being the groups H_l (median 30); Lemma 4 loses a median "
        "1.222, eq. (6) loses a median 5, and Theorem 1's bound is a median 10.5 times the "
        "exact regret."
    )


def test_a_step_record_gives_its_label_headline_and_spread_per_regime_in_sorted_order():
    """The eq. (5) record: 53.3333 for the statistical cell, 26.6667 for the privacy cell
    (plain()'s 6 significant digits), one cell per regime; the regimes are listed in sorted
    order (privacy before statistical) whatever the order of the cells.  The groups step is
    part of eq. (5)."""
    steps = {s["key"]: s for s in slack.proof_slack({"proof": _two_regimes()})["steps"]}
    assert steps["eq5"] == {
        "key": "eq5",
        "label": "eq. (5)",
        "part_of": None,
        "n": 2,
        "min": 26.6667,
        "median": 40.0,
        "max": 53.3333,
        "by_regime": {
            "privacy": {"n": 1, "min": 26.6667, "median": 26.6667, "max": 26.6667},
            "statistical": {"n": 1, "min": 53.3333, "median": 53.3333, "max": 53.3333},
        },
    }
    assert list(steps["eq5"]["by_regime"]) == ["privacy", "statistical"]
    assert (steps["groups"]["label"], steps["groups"]["part_of"]) == ("the groups H_l", "eq5")


def test_a_step_that_applies_in_no_cell_has_an_empty_spread():
    """No large-gap action (n_large = 0): eq. (6) applies nowhere, so its spread counts 0
    cells with no min, median or max, overall and in the cell's (statistical) regime, and
    the sentence names only Lemma 4 and eq. (5)."""
    found = slack.proof_slack({"proof": pd.DataFrame([_slack_row(0, n_large=0)])})
    steps = {s["key"]: s for s in found["steps"]}
    empty = {"n": 0, "min": None, "median": None, "max": None}
    assert steps["eq6"] == {
        "key": "eq6",
        "label": "eq. (6)",
        "part_of": None,
        **empty,
        "by_regime": {"statistical": empty},
    }
    assert "eq. (6)" not in found["text"]


def test_slack_table_one_row_per_rps_cell_with_each_step_factor():
    """A control's row is left out and a cell listed by two experiments counted once (the
    first); the table is indexed from 0 and has no index column.  The cell has one small-gap
    action (eq. (5) applies: 1600/30), no finite regret_limit (Lemma 4's exact side is the
    regret 99: Lemma 4 121/99, Theorem 1 8001/99), Lemma 5's bound 0 (no factor: NaN), the
    constant 1600/1800 < 1 (kept), and the eq. (4) ratios 0.25 and 0.1 inverted (4 and 10)."""
    cell = {"n_small": 1, "regret_limit": np.nan, "bound_lemma5": 0.0}
    rows = [
        _slack_row(0, algorithm="rps_short_prefix"),
        _slack_row(1, **cell),
        _slack_row(1, experiment="gap", **cell),
    ]
    tab = slack.slack_table(pd.DataFrame(rows))
    assert tab["cell_id"].tolist() == ["c001"] and tab.index.tolist() == [0]
    assert tab.at[0, "experiment"] == "grid" and "index" not in tab.columns
    assert tab.at[0, "lemma4_lhs"] == 99.0 and np.isnan(tab.at[0, "lemma5"])
    got = [tab.at[0, k] for k in ("lemma4", "theorem1", "eq5", "constant", "eq4_worst")]
    assert got == pytest.approx([121 / 99, 8001 / 99, 1600 / 30, 1600 / 1800, 4.0], rel=1e-12)
    assert tab.at[0, "eq4_median"] == pytest.approx(10.0, rel=1e-12)


def test_proof_slack_with_lemma_4_loosest_has_no_sub_step():
    """One statistical cell (K = 8, gap 1/4, eps 1, the proof table's columns of
    the proof claims' rows): Lemma 4 121/1, eq. (5) 1600/30 = 53.3, eq. (6) 100/20 = 5,
    Theorem 1 500/1; Lemma 4 has no sub-steps, so the sentence names none."""

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
