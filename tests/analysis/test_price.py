"""The price table: each cell's regret against the explicit lower bound LB_T."""

import numpy as np
import pandas as pd
import pytest
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.price import final_prices, is_private, price_table
from privdtol.core.lower_bound import lower_bound

#: K = 4, gap 1/2 (mu = 3/4), eps 1/16: LB_T at T = 1, 3, 1023 from the core module
H = (1, 3, 1023)


def _lb(K=4, gap=0.5, eps=1 / 16):
    return lower_bound(K, 0.5 + gap / 2, gap, eps, list(H))["best"].to_numpy()


def _table(algorithm, means, epsilon=1 / 16, estimator="exact", rel_se=0.0, experiment="x"):
    return agg_table(
        [{"algorithm": algorithm, "K": 4, "gap": 0.5, "epsilon": epsilon, "mean": means}],
        horizons=H,
        rel_se=rel_se,
        columns=(*CORE, *INTERVAL),
        experiment=experiment,
        estimator=estimator,
    )


def test_private_declarations():
    assert is_private("rps") and is_private("rnm_ftnl") and is_private("uniform")
    assert not is_private("ftl") and not is_private("hedge")
    # private in name only: declares an eps it does not meet, so it is not held to LB_T as
    # an eps-DP algorithm but is a control of C6
    assert not is_private("rps_hot")
    assert not is_private("no_such_algorithm")


def test_first_round_meets_the_bound_with_equality():
    # a uniform first action errs with probability 1 - 1/K: regret gap (1 - 1/K) = 3/8, and
    # LB_1 = gap (1 - 1/K) as well (the privacy term at t = 1)
    lb = _lb()
    assert lb[0] == pytest.approx(0.375, rel=1e-12)
    priced = price_table(_table("rps", [0.375, 2 * lb[1], 2 * lb[2]]), 0.95)
    assert list(priced["verdict"]) == ["PASS", "PASS", "PASS"]
    assert priced["ratio"].to_numpy() == pytest.approx([1.0, 2.0, 2.0])


def test_below_the_bound_fails_and_straddling_is_inconclusive():
    lb = _lb()
    priced = price_table(_table("rps", [0.375, 0.5 * lb[1], lb[2] * (1 - 1e-3)]), 0.95)
    assert list(priced["verdict"]) == ["PASS", "FAIL", "FAIL"]
    # a Monte Carlo value whose interval straddles LB_T decides nothing
    mc = price_table(_table("rps", [0.375, lb[1], lb[2]], estimator="fast", rel_se=0.05), 0.95)
    assert list(mc["verdict"])[1:] == ["INCONCLUSIVE", "INCONCLUSIVE"]


def test_non_private_cells_are_held_against_every_eps_of_their_experiment():
    rps = agg_table(
        [
            {"algorithm": "rps", "K": 4, "gap": 0.5, "epsilon": e, "mean": [0.375, 10.0, 50.0]}
            for e in (1.0, 1 / 16)
        ],
        horizons=H,
        columns=(*CORE, *INTERVAL),
        estimator="exact",
        rel_se=0.0,
    )
    ftl = _table("ftl", [0.375, 0.8, 1.0], epsilon=np.nan, estimator="fast", rel_se=0.01)
    import pandas as pd

    priced = price_table(pd.concat([rps, ftl], ignore_index=True), 0.95)
    mine = priced[priced.algorithm == "ftl"]
    assert sorted(mine["epsilon"].unique()) == [1 / 16, 1.0]
    assert not mine["private"].any()
    # at eps = 1/16 the privacy term far exceeds FTL's regret: certified below
    low_eps = mine[(mine.epsilon == 1 / 16) & (mine.horizon == 1023)]
    assert low_eps["verdict"].item() == "FAIL"
    assert low_eps["lb"].item() == pytest.approx(_lb()[2])


def test_final_prices_keeps_the_largest_horizon_and_the_smallest_ratio():
    lb = _lb()
    final = final_prices(price_table(_table("rps", [0.375, 3 * lb[1], 2 * lb[2]]), 0.95))
    assert len(final) == 1
    assert final["horizon"].item() == 1023
    assert final["ratio"].item() == pytest.approx(2.0)
    assert final["ratio_min"].item() == pytest.approx(1.0)


def test_other_instances_have_no_bound():
    t = _table("rps", [0.375, 1.0, 2.0])
    t["instance"] = "staircase"
    assert price_table(t, 0.95).empty


def test_a_fail_needs_the_bonferroni_upper_limit_below_the_bound():
    # 3 rows: the FAIL interval is widened to 1 - 0.05/3 (z = 2.39) from 95% (z = 1.96); a mean
    # 5% below LB_T with se 2.42% of it is below at 95% but not at the widened level
    lb = _lb()
    means = [0.375, 0.95 * lb[1], 0.95 * lb[2]]
    priced = price_table(_table("rps", means, estimator="fast", rel_se=0.0242), 0.95)
    assert (priced["upper"].iloc[1:] < priced["lb"].iloc[1:]).all()  # below at 95%
    assert list(priced["verdict"])[1:] == ["INCONCLUSIVE", "INCONCLUSIVE"]
    clear = _table("rps", [0.375, 0.9 * lb[1], 0.9 * lb[2]], estimator="fast", rel_se=0.0242)
    clear = price_table(clear, 0.95)
    assert list(clear["verdict"])[1:] == ["FAIL", "FAIL"]


def test_the_bounds_table_is_computed_once_and_joined():
    from privdtol.analysis.price import bounds_table
    from privdtol.errors import InputError

    lb = _lb()
    df = _table("rps", [0.375, 2 * lb[1], 2 * lb[2]])
    table = bounds_table(df)
    assert list(table.columns)[:5] == ["K", "mu", "gap", "epsilon", "horizon"]
    assert table["horizon"].tolist() == list(H) and table["mu"].eq(0.75).all()
    assert table["best"].to_numpy() == pytest.approx(lb, rel=1e-15)
    joined = price_table(df, 0.95, table)
    assert joined["lb"].to_numpy() == pytest.approx(lb, rel=1e-15)
    assert joined["verdict"].tolist() == price_table(df, 0.95)["verdict"].tolist()
    # a table made from other cells (a stale one) is refused, not silently joined
    with pytest.raises(InputError, match="no row for"):
        price_table(df, 0.95, table[table.horizon != 1023])
    assert bounds_table(df.iloc[0:0]).empty


def test_the_bounds_table_is_the_same_whatever_the_number_of_processes():
    from privdtol.analysis.price import bounds_table

    cells = [
        {"algorithm": "rps", "K": K, "gap": g, "epsilon": 1 / 16, "mean": 1.0}
        for K in (2, 4)
        for g in (0.5, 0.25)
    ]
    df = agg_table(cells, horizons=H, columns=(*CORE, *INTERVAL))
    one, two = bounds_table(df), bounds_table(df, jobs=2)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 4 * len(H)
