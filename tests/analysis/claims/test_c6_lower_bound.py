"""C6: every private algorithm's regret at least LB_T; its controls below it."""

import pandas as pd
import pytest
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.claims.c6_lower_bound import check
from privdtol.core.lower_bound import lower_bound

H = (1, 7, 1023, 2**20 - 1)
TH = {"confidence": 0.95}


def _cells(algorithm, factor, epsilons=(1.0, 1 / 16), estimator="exact", rel_se=0.0):
    cells = []
    for e in epsilons:
        lb = lower_bound(8, 0.75, 0.5, e, list(H))["best"].to_numpy()
        means = [0.4375] + [float(x) * factor for x in lb[1:]]  # T = 1: gap (1 - 1/8)
        cells.append({"algorithm": algorithm, "K": 8, "gap": 0.5, "epsilon": e, "mean": means})
    return agg_table(
        cells, horizons=H, columns=(*CORE, *INTERVAL), estimator=estimator, rel_se=rel_se
    )


def _tables(*parts):
    return {"epsilon": pd.concat(parts, ignore_index=True)}


def test_private_algorithms_above_the_bound_pass():
    tables = _tables(_cells("rps", 12.0), _cells("rnm_ftnl", 3.0), _cells("rps_hot", 0.5))
    rec = check(tables, TH, [])
    assert rec["verdict"] == "PASS"
    # the statistic is the smallest ratio at the largest horizon over the private algorithms
    # (rps_hot, private in name only, is a control and does not count)
    assert rec["statistic"] == pytest.approx(3.0)
    # every algorithm's cells are in the record (the figure's points)
    assert {c["algorithm"] for c in rec["cells"]} == {"rps", "rnm_ftnl", "rps_hot"}


def test_a_private_algorithm_below_the_bound_fails_the_claim():
    rec = check(_tables(_cells("rps", 12.0), _cells("wu_wang", 0.9)), TH, [])
    assert rec["verdict"] == "FAIL"
    assert "pairs are below LB_T" in rec["summary"]


def test_controls_below_the_bound_fail():
    tables = _tables(_cells("rps", 12.0), _cells("rps_hot", 0.5))
    rec = check(tables, TH, [], algorithm="rps_hot")
    assert rec["verdict"] == "FAIL" and rec["algorithm"] == "rps_hot"
    assert rec["statistic"] == pytest.approx(0.5)


def test_a_non_private_algorithm_is_held_at_the_eps_of_its_experiment():
    ftl = agg_table(
        [{"algorithm": "ftl", "K": 8, "gap": 0.5, "epsilon": float("nan"), "mean": 2.0}],
        horizons=H,
        columns=(*CORE, *INTERVAL),
        rel_se=0.01,
    )
    rec = check(_tables(_cells("rps", 12.0), ftl), TH, [], algorithm="ftl")
    assert rec["verdict"] == "FAIL"  # LB_T at eps = 1/16 is far above a regret of 2
    eps = {c["epsilon"] for c in rec["cells"] if c["algorithm"] == "ftl"}
    assert eps == {1.0, 1 / 16}


def test_no_standard_cells_is_no_data():
    t = _cells("rps", 12.0)
    t["instance"] = "staircase"
    assert check({"epsilon": t}, TH, [])["verdict"] == "INCONCLUSIVE"
