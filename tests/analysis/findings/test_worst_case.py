"""Tests of :mod:`privdtol.analysis.findings.worst_case`: the summary of the worst-instance
searches (the most extreme instance per objective, against the standard instance)."""

from __future__ import annotations

import pandas as pd
import pytest

from privdtol.analysis.findings import worst_case as worst


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


def test_worst_case_record_keys():
    df = pd.DataFrame([_search("lemma5", 4, 0.25, 0.5, 0.5, 0.25, 20)])
    found = worst.worst_case({"searches": df})
    assert found["available"] is True and found["searches"] == 1
    assert set(found) == {"available", "searches", "theorem1", "lemma5", "rate", "rate_min", "text"}


def test_rate_rows_keep_the_rate_searches():
    """A rate search at K = 2, gap 1/2, eps 1: rate 2 log 2 + log 2 = 3 log 2, so its regret 3
    is 1/log 2 = 1.4427 times the rate and its standard instance's 0.1 x bound 6 = 0.6 is
    0.2/log 2 = 0.28854."""
    df = pd.DataFrame([_search("rate", 2, 0.5, 1.0, 0.9, 0.1, 10, regret=3.0, bound=6.0)])
    out = worst.rate_rows(df)
    assert out["objective"].tolist() == ["rate"]
    assert out["value"].tolist() == pytest.approx([1.4427], rel=1e-4)
    assert out["standard_value"].tolist() == pytest.approx([0.28854], rel=1e-4)


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
