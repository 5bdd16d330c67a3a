"""Tests of the diagnostics C8a and C8b (:mod:`privdtol.analysis.claims.c8_floor`) on floor
tables whose answer is known by construction: PASS where LB_T <= OPT_T <= Reg_T holds, FAIL
where a number is moved across, and the controls' records."""

from __future__ import annotations

import pandas as pd
import pytest

from privdtol.analysis.claims.c8_floor import C8A, C8B, check_algorithms, check_bound
from privdtol.analysis.registry import CLAIMS, controls_for


def _table(lb=0.3, opt=0.5, regrets=None) -> pd.DataFrame:
    """One cell, horizons 1 and 2; OPT_T = 0.25 at T = 1 (= LB_T) and ``opt`` at T = 2."""
    regrets = regrets or {"rps": 0.6, "rnm_ftnl": 0.55, "ftl": 0.4}
    rows = []
    for T, (o, b) in {1: (0.25, 0.25), 2: (opt, lb)}.items():
        base = {"K": 2, "mu": 0.75, "gap": 0.5, "epsilon": 0.5, "horizon": T}
        base |= {"optimal": o, "duality_gap": 1e-12, "lb_best": b, "lb_combined": b / 2}
        base |= {"lb_statistical": 0.0, "lb_privacy": b / 2, "lb_two_point": b / 4}
        for alg, reg in regrets.items():
            private = alg != "ftl"
            rows.append(
                base
                | {
                    "algorithm": alg,
                    "role": "paper" if private else "baseline",
                    "private": private,
                    "regret": 0.25 if T == 1 else reg,
                    "error_bound": 1e-12,
                }
            )
    return pd.DataFrame(rows)


def test_records_are_diagnostics_with_controls():
    assert CLAIMS["C8a"] is C8A and CLAIMS["C8b"] is C8B
    for c in (C8A, C8B):
        assert c.diagnostic and not c.independent
        assert c.controls == ("ftl", "rps_hot") and c.experiments == ("floor",)


def test_controls_run_with_a_floor_block():
    got = controls_for({"experiments": [], "floor": {"K": [2]}})
    assert ("C8a", "ftl") in got and ("C8b", "rps_hot") in got
    assert not [c for c in controls_for({"experiments": []}) if c[0].startswith("C8")]


def test_bound_passes_below_the_floor():
    r = check_bound({"floor": _table()}, {})
    assert r["verdict"] == "PASS"
    # OPT_T / LB_T: 1 at T = 1, 0.5 / 0.3 at T = 2
    assert r["statistic"] == pytest.approx(1.0)
    ratios = sorted(c["ratio"] for c in r["cells"])
    assert ratios == pytest.approx([1.0, 0.5 / 0.3], rel=1e-5)  # records keep 6 digits
    assert [c["ratio_combined"] for c in r["cells"]][1] == pytest.approx(0.5 / 0.15, rel=1e-5)


def test_bound_fails_above_the_floor():
    r = check_bound({"floor": _table(lb=0.51)}, {})
    assert r["verdict"] == "FAIL" and r["statistic"] == pytest.approx(0.5 / 0.51)


def test_bound_tolerates_rounding():
    assert check_bound({"floor": _table(lb=0.5 + 1e-9)}, {})["verdict"] == "PASS"


def test_bound_control_puts_the_algorithm_in_the_floor_s_place():
    # ftl's 0.4 in the place of OPT_T = 0.5, LB_T = 0.45: below the bound
    r = check_bound({"floor": _table(lb=0.45)}, {}, [], "ftl")
    assert r["verdict"] == "FAIL" and r["statistic"] == pytest.approx(0.4 / 0.45)


def test_algorithms_pass_above_the_floor():
    r = check_algorithms({"floor": _table()}, {})
    assert r["verdict"] == "PASS"
    assert {c["algorithm"] for c in r["cells"]} == {"rps", "rnm_ftnl"}  # private only
    assert r["statistic"] == pytest.approx(1.0)  # T = 1: every algorithm plays uniformly


def test_algorithms_fail_below_the_floor():
    r = check_algorithms({"floor": _table(regrets={"rps": 0.6, "rnm_ftnl": 0.45})}, {})
    assert r["verdict"] == "FAIL" and r["statistic"] == pytest.approx(0.45 / 0.5)


def test_algorithms_control_fails():
    r = check_algorithms({"floor": _table()}, {}, [], "ftl")
    assert r["verdict"] == "FAIL" and r["statistic"] == pytest.approx(0.8)


def test_no_table_is_inconclusive():
    assert check_bound({}, {})["verdict"] == "INCONCLUSIVE"
    assert check_algorithms({"floor": _table()}, {}, [], "rps_hot")["verdict"] == "INCONCLUSIVE"
