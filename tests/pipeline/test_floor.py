"""Tests of the floor experiment (:mod:`privdtol.pipeline.floor`): the block's refusals, the
horizons its budget admits, follow-the-leader's exact regret against an enumeration of the
data (tests/support/optimal_reference.py), and the table of a one-cell block."""

from __future__ import annotations

import pytest
from support.optimal_reference import ftl_regret

from privdtol.errors import InputError
from privdtol.pipeline.floor import check_floor_block, floor_table, horizons, leader_regret


def test_horizons_by_budget():
    # K = 2: 2^4 3^3 / 2 = 216 items x 3 rounds x 2 neighbours = 1296 rows at T = 4
    assert horizons(2, 1296) == [1, 2, 3, 4]
    assert horizons(2, 1295) == [1, 2, 3]
    assert horizons(3, 20_000) == [1, 2, 3]


@pytest.mark.parametrize(("K", "mu", "gap", "T"), [(2, 0.75, 0.5, 4), (3, 0.6, 0.2, 3)])
def test_leader_regret_by_enumeration(K, mu, gap, T):
    assert leader_regret(K, mu, gap, T) == pytest.approx(ftl_regret(K, mu, gap, T), rel=1e-12)


def test_leader_regret_by_hand():
    # T = 2, K = 2, mu = 3/4, gap = 1/2: round 1 misses w.p. 1/2; round 2 misses when only the
    # best lost (1/16) and half the ties (3/8): gap (1/2 + 1/16 + 3/16) = 0.375
    assert leader_regret(2, 0.75, 0.5, 2) == pytest.approx(0.375)


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ({"K": [5], "gap": [0.5], "epsilon": [1.0]}, "floor.K[0]"),
        ({"K": [2], "gap": [0.5], "epsilon": [-1.0]}, "floor.epsilon[0]"),
        ({"K": [2], "gap": [0.5], "epsilon": [1.0], "max_rows": 0}, "floor.max_rows"),
        ({"K": [2], "gap": [0.5]}, "floor"),
        ({"K": [2], "gap": [0.5], "epsilon": [1.0], "extra": 1}, "floor.extra"),
    ],
)
def test_refusals(block, field):
    with pytest.raises(InputError) as err:
        check_floor_block(block)
    assert err.value.field.startswith(field) and "\n" not in str(err.value)


def test_one_cell_table():
    df = floor_table({"K": [2], "gap": [0.5], "epsilon": [1.0], "max_rows": 200})
    assert sorted(df["horizon"].unique()) == [1, 2, 3]
    assert {"ftl", "rps_hot", "rps", "rnm_ftnl"} <= set(df["algorithm"])
    assert not df.loc[df["algorithm"].isin(["ftl", "rps_hot"]), "private"].any()
    t2 = df[df["horizon"] == 2].iloc[0]
    # randomized response: p01 = 9/16, p10 = 1/16 (test_solve.py derives it)
    assert t2["optimal"] == pytest.approx(0.4422353553, rel=1e-9)
    assert t2["mu"] == 0.75 and t2["lb_best"] <= t2["optimal"]
    assert (df["regret"][df["private"]] >= df["optimal"][df["private"]] - 1e-9).all()
