"""The instances the worst-case searches found, as extra cells of C7: which enter (more regret
than the standard instance, minimum gap the search's) and over which bound (the standard
instance's LB_T at the search's horizon)."""

import pandas as pd
import pytest

from privdtol.analysis.found_instances import compact_means, found_cells
from privdtol.core.lower_bound import lower_bound

T = 2**20 - 1
K, GAP, EPS = 4, 0.125, 1.0
STANDARD = "0.4375 0.5625 0.5625 0.5625"  # mu - gap, then mu = 0.5625 three times


def searches(rows, algorithm="rps", search_id="s1"):
    """A searches table by hand: the theorem1 row gives the standard regret, 0.02 x 1000 = 20."""
    base = {
        "search_id": search_id,
        "algorithm": algorithm,
        "K": K,
        "gap": GAP,
        "epsilon": EPS,
        "standard_means": STANDARD,
        "theorem1_bound": 1000.0,
        "error_bound": 1e-9,
    }
    thm = {"objective": "theorem1", "value": 0.02, "standard_value": 0.02, "regret": 20.0}
    return pd.DataFrame([{**base, **thm, "means": STANDARD}, *({**base, **r} for r in rows)])


def worst(search_id="s1"):
    return pd.DataFrame({"cell_id": f"{search_id}-theorem1", "horizon": [1, 1023, T]})


def test_an_instance_above_the_standard_regret_enters_over_the_standard_bound():
    found = found_cells(
        searches(
            [
                {
                    "objective": "lower_max",
                    "standard_value": 3.0,
                    "regret": 50.0,
                    "means": "0 0.125 0.5 0.9",
                }
            ]
        ),
        worst(),
        "rps",
    )
    assert len(found) == 1
    row = found.iloc[0]
    lb = lower_bound(K, 0.5625, GAP, EPS, [T])["best"].iloc[-1]
    assert (row["K"], row["gap"], row["epsilon"], row["horizon"]) == (K, GAP, EPS, T)
    assert row["standard_regret"] == pytest.approx(20.0)
    assert row["ratio"] == pytest.approx(50.0 / lb, rel=1e-12)
    assert row["ratio_low"] <= row["ratio"] <= row["ratio_high"]
    assert row["means"] == "0, 0.125, 0.5, 0.9"


def test_the_means_are_recorded_with_repeats_counted():
    assert compact_means("0.5625 0.4375 0.5625 0.5625") == "0.4375, 0.5625 x3"


def test_instances_at_or_below_the_standard_regret_or_off_the_class_stay_out():
    rows = [
        {"objective": "lower_min", "standard_value": 3.0, "regret": 20.0, "means": "0 0.125 1 1"},
        {"objective": "lower_max", "standard_value": 3.0, "regret": 90.0, "means": "0 0.25 1 1"},
        {"objective": "eq6", "standard_value": 0.1, "regret": 90.0, "means": "0 0.125 1"},
    ]
    assert found_cells(searches(rows), worst(), "rps").empty


def test_other_algorithms_searches_and_searches_without_a_table_of_regrets_are_not_read():
    rows = [
        {"objective": "lower_max", "standard_value": 3.0, "regret": 50.0, "means": "0 0.125 1 1"}
    ]
    assert found_cells(searches(rows), worst(), "rnm_ftnl").empty
    assert found_cells(searches(rows), None, "rps").empty
    assert found_cells(None, worst(), "rps").empty
