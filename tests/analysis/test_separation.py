"""Tests of :mod:`privdtol.analysis.separation` on tables known by construction: regrets equal
to each bound's shape show exactly the factor the shape carries."""

from __future__ import annotations

import math

import pytest
from support.separation_tables import synthetic

from privdtol.analysis import separation as sep


def test_the_shapes_by_hand():
    got = sep.shapes(16, 0.25, 0.5, math.e**3)
    lk = math.log(16)
    assert got["rate"] == pytest.approx(4 * lk + 2 * lk)
    assert got["hu"] == pytest.approx(4 * lk + 2 * lk * 3)
    assert got["wu_wang"] == pytest.approx(4 * lk + 2 * lk**2)


def test_a_log_t_regret_shows_in_t_and_a_rate_regret_does_not():
    table = sep.separation_table(synthetic({"rnm_ftnl": "hu", "rps": "rate"}))
    t = sep.growth_in_T(table).set_index(["algorithm", "K", "gap", "epsilon"])
    # privacy regime, K = 4096: Reg ~ log K log T/eps dominates, growth -> 40/30 = 4/3 over
    # the last quarter of log T
    hu = t.loc[("rnm_ftnl", 4096, 0.5, 2.0**-8)]
    assert (hu["T_mid"], hu["T_max"]) == ((1 << 30) - 1, (1 << 40) - 1)
    assert hu["predicted"] == pytest.approx(4 / 3, rel=1e-9)
    assert hu["growth"] == pytest.approx(4 / 3, rel=2e-3) and hu["shows"]
    assert (t.loc["rps", "growth"] == 1.0).all() and not t.loc["rps", "shows"].any()


def test_a_log_squared_k_regret_shows_in_k():
    table = sep.separation_table(synthetic({"wu_wang": "wu_wang", "rps": "rate"}))
    k = sep.growth_in_K(table).set_index("algorithm")
    ww = k.loc["wu_wang"]
    assert (ww["K_min"], ww["K_max"]) == (16, 4096)
    assert ww["predicted"] == pytest.approx(3.0)  # log 4096 / log 16
    # Reg/(log K/eps) = 3 (eps/gap + log K), eps/gap = 2^-8/(1/2) = 2^-7
    want = (2.0**-7 + math.log(4096)) / (2.0**-7 + math.log(16))
    assert ww["growth"] == pytest.approx(want, rel=1e-12) and ww["shows"]
    assert k.loc["rps", "growth"] == pytest.approx(1.0) and not k.loc["rps", "shows"]
