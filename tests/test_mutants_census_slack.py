"""Guards found by the census of ``privdtol.analysis`` mutants (issue 24) in the slack budget
(privdtol.analysis.slack) and the worst-case finding (privdtol.analysis.worst): the slack
sentence word for word with its factors' significant digits, a step's record by regime, a step
that applies nowhere, the slack table's rows and factors, and the worst-case finding without
searches and with rate_min searches only.

The proof rows are those of tests/test_proof_checks.py (``_slack_row``: K = 8, gap 1/4, seven
small-gap and three large-gap actions); the searches those of tests/test_mutants_findings.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_mutants_findings import _search
from test_proof_checks import _slack_row

from privdtol.analysis import slack, worst

# ----------------------------------------------------------------------------- slack


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


# ----------------------------------------------------------------------------- worst case


def test_worst_case_without_searches_says_so():
    """No searches table, or an empty one: the finding is unavailable, with its sentence."""
    expected = {"available": False, "text": "No worst-instance search in this run."}
    assert worst.worst_case({}) == expected
    assert worst.worst_case({"searches": pd.DataFrame()}) == expected


def test_rate_min_searches_alone_report_the_smallest_value_and_no_sentence():
    """Two rate_min searches: values 0.25 (standard 0.4, K = 2) and 0.5 (standard 0.3, K = 4).
    The smallest value is the first search's, the extreme over the standard instances their
    minimum 0.3, the gain max(0.4/0.25, 0.3/0.5) = 1.6.  With no Theorem 1, Lemma 5 or rate
    search there is nothing to say."""
    df = pd.DataFrame(
        [
            _search("rate_min", 2, 0.5, 1.0, 0.25, 0.4, 10),
            _search("rate_min", 4, 0.25, 0.5, 0.5, 0.3, 20),
        ]
    )
    found = worst.worst_case({"searches": df})
    assert found["rate_min"] == {
        "searches": 2,
        "value": 0.25,
        "standard_value": 0.4,
        "standard_extreme": 0.3,
        "K": 2,
        "gap": 0.5,
        "epsilon": 1.0,
        "means": "0 0.5",
        "evaluations": 20,
        "gain_max": 1.6,
    }
    assert found["rate"] is None and found["theorem1"] is None and found["lemma5"] is None
    assert found["text"] == "No search result to report."
