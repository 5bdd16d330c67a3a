"""The finding ``lower_bound``: each algorithm's regret over LB_T."""

import pandas as pd
import pytest
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.findings.lower_bound import lower_bound_prices
from privdtol.core.lower_bound import lower_bound

T = 2**20 - 1


def _cells(algorithm, factors, epsilon=1 / 16, gaps=(0.5, 0.125)):
    cells = []
    for g, f in zip(gaps, factors, strict=True):
        lb = lower_bound(8, 0.5 + g / 2, g, epsilon, [T])["best"].item()
        cells.append({"algorithm": algorithm, "K": 8, "gap": g, "epsilon": epsilon, "mean": f * lb})
    return agg_table(
        cells, horizons=(T,), columns=(*CORE, *INTERVAL), estimator="exact", rel_se=0.0
    )


def test_rps_range_best_competitor_and_the_non_private_floor():
    ftl = agg_table(
        [{"algorithm": "ftl", "K": 8, "gap": 0.5, "epsilon": float("nan"), "mean": 1.0}],
        horizons=(T,),
        columns=(*CORE, *INTERVAL),
        rel_se=0.01,
    )
    parts = [
        _cells("rps", (10.0, 20.0)),
        _cells("rnm_ftnl", (30.0, 40.0)),
        _cells("wu_wang", (25.0, 26.0)),
        _cells("rps_hot", (0.5, 0.5)),  # a control: left out
        ftl,
    ]
    found = lower_bound_prices({"epsilon": pd.concat(parts, ignore_index=True)})
    assert found["available"]
    assert found["best_competitor"] == "wu_wang"  # smallest median ratio
    assert "rps_hot" not in found["algorithms"]
    assert found["algorithms"]["rps"]["min"] == pytest.approx(10.0)
    assert found["algorithms"]["rps"]["max"] == pytest.approx(20.0)
    assert found["text"].startswith("RPS pays between 10 and 20 times the explicit lower bound")
    assert "the best private competitor, wu_wang, between 25 and 26" in found["text"]
    assert "without privacy, ftl goes down to" in found["text"]


def test_no_cells():
    assert not lower_bound_prices({})["available"]
