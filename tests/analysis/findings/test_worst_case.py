"""Tests of :mod:`privdtol.analysis.findings.worst_case`: the summary of the worst-instance
searches (counts, Theorem 1's ratio against the standard instance, the Reg_T / LB_T band, the
unseen check) on hand-built tables, and that the notebook's table ``worst`` and the finding
count the same searches."""

from __future__ import annotations

import pandas as pd
import pytest
from support.tiny_agg import searches_table

from privdtol.analysis.findings import worst_case as worst

GAP = 0.015625
#: an instance with every gap at GAP (exact in binary) and one with a second level
EVERY_GAP = ("0.4921875 0.5078125 0.5078125 0.5078125", "mu_1 0.492, gaps/Delta_min 1 x3")
TWO_LEVEL = ("0.25 0.265625 0.375 0.375", "mu_1 0.25, gaps/Delta_min 1, 8 x2")


def _row(search_id, algorithm, K, eps, objective, value, standard, **kw):
    means, description = kw.pop("instance", EVERY_GAP)
    row = {
        "search_id": search_id,
        "algorithm": algorithm,
        "K": K,
        "gap": GAP,
        "epsilon": eps,
        "objective": objective,
        "value": value,
        "standard_value": standard,
        "family": "standard",
        "description": description,
        "means": means,
        "evaluations": 200,
        "unseen": 20,
        "unseen_margin": -0.01,
        "unseen_beaten": False,
        "tolerance": 0.001,
    }
    return {**row, **kw}


def _two_searches(theorem1_a=0.0030006, instance_a=EVERY_GAP, tolerance_a=0.001):
    """Search "a" (rps, K = 4, eps = 1, 150 evaluations, family free) and "b" (rnm_ftnl,
    K = 16, eps = 1/16, 200 evaluations), each with the three objectives."""
    a = {"evaluations": 150, "family": "free", "tolerance": tolerance_a}
    b = {"family": "two_level(1)"}
    return pd.DataFrame(
        [
            _row("a", "rps", 4, 1.0, "theorem1", theorem1_a, 0.003, instance=instance_a, **a),
            _row("a", "rps", 4, 1.0, "lower_max", 40.0, 20.0, **a),
            _row("a", "rps", 4, 1.0, "lower_min", 5.0, 20.0, **a),
            _row("b", "rnm_ftnl", 16, 0.0625, "theorem1", 0.002, 0.002, **b),
            _row("b", "rnm_ftnl", 16, 0.0625, "lower_max", 12.0, 8.0, **b),
            _row("b", "rnm_ftnl", 16, 0.0625, "lower_min", 4.0, 7.0, **b),
        ]
    )


def test_worst_case_without_searches_says_so():
    expected = {"available": False, "text": "No worst-instance search in this run."}
    assert worst.worst_case({}) == expected
    assert worst.worst_case({"searches": pd.DataFrame()}) == expected


def test_counts_come_once_per_search():
    """Two searches of three objectives each: 2 searches (not 6 rows), 150 and 200 evaluations,
    350 in all (each search counted once); the families of the instances found, without their
    counts."""
    found = worst.worst_case({"searches": _two_searches()})
    assert found["searches"] == 2
    assert found["objectives"] == ["lower_max", "lower_min", "theorem1"]
    assert found["evaluations"] == {"min": 150, "max": 200, "total": 350}
    assert found["families_found"] == ["free", "two_level"]


def test_no_search_beats_its_standard_instance_beyond_the_tolerance():
    """Search a's Theorem 1 ratio 0.0030006 beats its standard 0.003 by 2e-4 < 1e-3, search
    b's not at all: the standard instance is the worst, to the tolerance, of the 350 instances;
    every instance found has every gap at Delta_min.  The band: rps from lower_min 5 to
    lower_max 40 (its standard instance 20), rnm_ftnl 4 to 12 (standard 7 and 8)."""
    found = worst.worst_case({"searches": _two_searches()})
    t1 = found["theorem1"]
    assert (t1["value"], t1["beaten"], t1["every_gap_minimal"]) == (0.0030006, 0, True)
    assert t1["gain_max"] == pytest.approx(2e-4)
    assert found["band"] == {
        "rps": {"min": 5.0, "max": 40.0, "standard_min": 20.0, "standard_max": 20.0},
        "rnm_ftnl": {"min": 4.0, "max": 12.0, "standard_min": 7.0, "standard_max": 8.0},
    }
    assert found["unseen"]["beaten"] == []
    assert found["summary"] == (
        "2 worst-instance searches (150 to 200 exact evaluations each) found Reg_T at most "
        "0.003 of Theorem 1's bound (rps, K=4, gap=0.0156, eps=1: mu_1 0.492, gaps/Delta_min "
        "1 x3)."
    )
    assert found["text"] == (
        "2 worst-instance searches (150 to 200 exact evaluations each) found Reg_T at most "
        "0.003 of Theorem 1's bound (rps, K=4, gap=0.0156, eps=1: mu_1 0.492, gaps/Delta_min "
        "1 x3). None beat its standard instance on it by more than the tolerance 0.001 "
        "(relative; at most by 0.0002): on this ratio the standard instance was, to that "
        "tolerance, the worst of the 350 instances evaluated across the families searched, "
        "and every instance found on this objective has every gap at Delta_min. Searches that "
        "beat their "
        "standard instance by more than the tolerance: 2 of 2 on the largest Reg_T / LB_T "
        "(lower_max); 2 of 2 on the smallest Reg_T / LB_T (lower_min). "
        "Reg_T / LB_T over the instances found: "
        "rps 5 to 40 (standard instance 20); rnm_ftnl 4 to 12 (standard instances 7 to 8). "
        "None of the 20 unseen random instances per search beat the search's best by more "
        "than the tolerance 0.001. These are the most extreme values found, not the extremes "
        "over instances."
    )


def test_each_objective_counts_the_searches_that_beat_their_standard_instance():
    """Per objective, from the rows of the table ``worst``: Theorem 1's ratio 0 of 2; the
    largest Reg_T / LB_T 2 of 2 (40 > 20, 12 > 8); the smallest 1 of 2 (5 < 20; search b's
    7.0006 is above its standard 7, less extreme).  Search a's lower_max instance has a second
    level: every theorem1 instance has every gap at Delta_min, not every lower_max one."""
    df = _two_searches()
    df.loc[(df["search_id"] == "b") & (df["objective"] == "lower_min"), "value"] = 7.0006
    at = (df["search_id"] == "a") & (df["objective"] == "lower_max")
    df.loc[at, ["means", "description"]] = TWO_LEVEL
    found = worst.worst_case({"searches": df})
    assert found["beaten"] == {
        "theorem1": {"searches": 2, "beaten": 0, "every_gap_minimal": True},
        "lower_max": {"searches": 2, "beaten": 2, "every_gap_minimal": False},
        "lower_min": {"searches": 2, "beaten": 1, "every_gap_minimal": True},
    }
    assert found["theorem1"]["every_gap_minimal"]
    assert (
        "Searches that beat their standard instance by more than the tolerance: 2 of 2 on the "
        "largest Reg_T / LB_T (lower_max); 1 of 2 on the smallest Reg_T / LB_T (lower_min)."
    ) in found["text"]
    # the table's found_over_standard says the same: beyond 1 + 0.001, below 1 - 0.001
    ratio = worst.table(df).set_index("objective")["found_over_standard"]
    assert (ratio["lower_max"] > 1.001).sum() == 2 and (ratio["lower_min"] < 0.999).sum() == 1


def test_a_search_that_beats_its_standard_instance_is_named():
    """Search a's instance with a second level reaches 0.00375, 1/4 above its standard 0.003:
    beyond the tolerance; named with its instance."""
    df = _two_searches(theorem1_a=0.00375, instance_a=TWO_LEVEL)
    found = worst.worst_case({"searches": df})
    t1 = found["theorem1"]
    assert (t1["beaten"], t1["every_gap_minimal"]) == (1, False)
    assert t1["gain_max"] == pytest.approx(0.25)
    assert t1["gain_where"] == "rps, K=4, gap=0.0156, eps=1"
    assert (
        "1 of them beat their standard instance on it by more than the tolerance 0.001 "
        "(relative), at most by 0.25 (rps, K=4, gap=0.0156, eps=1: mu_1 0.25, gaps/Delta_min "
        "1, 8 x2)."
    ) in found["text"]


def test_each_search_is_held_to_its_own_tolerance():
    """A gain of 2e-3 beats a tolerance of 1e-3 but not one of 1e-2."""
    tight = worst.worst_case({"searches": _two_searches(theorem1_a=0.003006)})
    loose = worst.worst_case({"searches": _two_searches(theorem1_a=0.003006, tolerance_a=0.01)})
    assert tight["theorem1"]["beaten"] == 1
    assert loose["theorem1"]["beaten"] == 0
    assert "the tolerance 0.001 to 0.01" in loose["text"]


def test_an_unseen_instance_that_beats_a_search_is_named():
    """Search b's best unseen instance beats its lower_max by 5%, beyond its tolerance."""
    df = _two_searches()
    hit = (df["search_id"] == "b") & (df["objective"] == "lower_max")
    df.loc[hit, ["unseen_margin", "unseen_beaten"]] = [0.05, True]
    found = worst.worst_case({"searches": df})
    assert found["unseen"]["beaten"] == [
        {
            "search": "rnm_ftnl, K=16, gap=0.0156, eps=0.0625",
            "objective": "lower_max",
            "margin": 0.05,
        }
    ]
    assert (
        "Unseen random instances (20 per search) beat the search's best by more than the "
        "tolerance 0.001 for 1 objective(s) of a search: lower_max of rnm_ftnl, K=16, "
        "gap=0.0156, eps=0.0625, by 0.05."
    ) in found["text"]


def test_the_table_and_the_finding_count_the_same_searches(tmp_path):
    """On two real (tiny) searches: the notebook's table lists every search and objective of
    the records, and its searches are the finding's count (the summary and the table agree)."""
    df = searches_table(tmp_path)
    found = worst.worst_case({"searches": df})
    shown = worst.table(df)
    assert len(shown) == len(df) == found["searches"] * len(found["objectives"])
    searched = shown[worst.SEARCH].drop_duplicates()
    assert len(searched) == found["searches"] == df["search_id"].nunique() == 2
    assert sorted(shown["objective"].unique()) == found["objectives"]
    assert shown["evaluations"].sum() == found["evaluations"]["total"] * len(found["objectives"])
    assert (shown["found_over_standard"] == df["value"] / df["standard_value"]).all()
