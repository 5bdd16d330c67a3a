"""Tests of :mod:`privdtol.analysis.claims.c4a_exponents`: the diagnostics C4a-C4c, the exponent of
each term of the rate on one series of instances (statistical regime only for the gap exponent,
cells still rising left out, too few points INCONCLUSIVE)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.synthetic_regret import GAP, table

from privdtol.analysis.claims import (
    c4a_exponents,
)
from privdtol.analysis.registry import (
    CLAIMS,
)


def _gap_series(Ks, gaps=(0.5, 0.25, 0.125, 0.0625), eps=8.0):
    """Exact cells on Reg = 2 log K/gap + 5 (exponent p = 1), K in ``Ks`` (descending)."""
    rows = []
    for K in Ks:
        for gap in gaps:
            m = 2 * math.log(K) / gap + 5
            rows.append(
                {
                    "experiment": "gap",
                    "cell_id": f"{K}-{gap}",
                    "algorithm": "rps",
                    "env": "bernoulli",
                    "instance": "standard",
                    "K": K,
                    "gap": gap,
                    "epsilon": eps,
                    "mu_best": 0.5 - gap / 2,
                    "rho": np.nan,
                    "kappa": np.nan,
                    "horizon": 1023,
                    "runs": 0,
                    "mean": m,
                    "se": 1e-6 * m,
                }
            )
    return pd.DataFrame(rows)


K, EPS_REGIME = 64, 0.25


GAPS = (0.5, 0.25, 0.125, 0.0625, 0.03125)


def _cells() -> pd.DataFrame:
    """Exact cells: Reg = 2 log K/gap + 5 where eps > gap, 2 log K/eps + 5 where eps <= gap."""
    rows = _gap_series([K], gaps=GAPS, eps=EPS_REGIME)
    privacy = rows["gap"] >= EPS_REGIME
    return rows.assign(
        mean=np.where(privacy, 2 * math.log(K) / EPS_REGIME + 5, rows["mean"]),
        se=np.where(privacy, 1e-6 * (2 * math.log(K) / EPS_REGIME + 5), rows["se"]),
    )


def test_the_gap_exponent_leaves_the_privacy_regime_out():
    rec = c4a_exponents.check_exponent(_cells(), "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    (series,) = rec["cells"]
    assert series["n"] == 3  # gaps 1/8, 1/16, 1/32; not 1/2 and 1/4 (eps <= gap)
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["verdict"] == "PASS"


def test_with_the_privacy_regime_the_exponent_would_be_lower():
    """The control of the test above: the same fit over all five cells is off 1 (the flat
    privacy-regime cells distort the fitted form), outside the range the check asks for."""
    series = c4a_exponents.exponent_series(_cells(), "p", 0.95)
    assert series[0]["n"] == 5 and abs(series[0]["estimate"] - 1) > 0.1


RANGE = (0.8, 1.2)


def test_exponent_too_few_points_is_inconclusive():
    df = table("rps", GAP[:2], 0.0, 0, "gap")
    assert (
        c4a_exponents.check_exponent(df, "C4a", "p", RANGE, 0.95, plateau=None)["verdict"]
        == "INCONCLUSIVE"
    )


def test_exponent_interval_reflects_lack_of_fit():
    """Exact cells (se ~ 1e-10 relative): the interval comes from the residual scatter."""
    tight = c4a_exponents.check_exponent(
        table("rps", GAP, 0.0, 0, "gap"), "C4a", "p", RANGE, 0.95, plateau=None
    )
    loose = c4a_exponents.check_exponent(
        table("rps", GAP, 0.1, 1, "gap"), "C4a", "p", RANGE, 0.95, plateau=None
    )
    assert tight["ci_high"] - tight["ci_low"] < loose["ci_high"] - loose["ci_low"]
    assert loose["ci_high"] - loose["ci_low"] > 1e-3


def test_registry_check_uses_the_config_thresholds(thresholds):
    df = table("rps", GAP, 0.0, 0, "gap")
    out = CLAIMS["C4a"].check_function()({"gap": df}, thresholds, ["agg/gap.parquet"])
    assert out["verdict"] == "PASS" and out["inputs"] == ["agg/gap.parquet"]
    assert out == c4a_exponents.check_exponent(
        df,
        "C4a",
        "p",
        thresholds["exponent_range"],
        thresholds["confidence"],
        inputs=["agg/gap.parquet"],
        plateau=(thresholds["plateau_octaves"], thresholds["horizon_free_ratio_max"]),
    )
    steep = {**thresholds, "exponent_range": [1.5, 2.0]}
    assert CLAIMS["C4a"].check_function()({"gap": df}, steep, [])["verdict"] == "FAIL"


def test_exponent_leaves_out_cells_still_rising_at_their_last_horizon():
    """The rate is about sup_T Reg_T: a cell whose regret still grows over the last octaves of
    its horizons (here linear in T: Reg = T gap / 2, long before identification) only bounds
    it from below. Left in, it bends the exponent fit away from PASS; the plateau rule leaves
    it out (and names it), and the remaining series passes."""
    df = table("rps", GAP, 0.0, 0, "gap")
    rising = df[df["cell_id"] == df["cell_id"].iloc[0]].copy()
    rising["cell_id"], rising["gap"] = "rising", 2.0**-12
    rising["mean"] = rising["horizon"] * 2.0**-13
    rising["se"] = rising["mean"] * 1e-10
    rising["ci_low"], rising["ci_high"] = rising["mean"], rising["mean"]
    both = pd.concat([df, rising], ignore_index=True)
    kept = c4a_exponents.check_exponent(both, "C4a", "p", RANGE, 0.95, plateau=None)
    assert kept["verdict"] != "PASS"
    out = c4a_exponents.check_exponent(both, "C4a", "p", RANGE, 0.95, plateau=(4, 1.05))
    assert out["verdict"] == "PASS", out["summary"]
    assert "Left out" in out["summary"] and "1 cells" in out["summary"]
    assert (
        "Left out"
        not in c4a_exponents.check_exponent(df, "C4a", "p", RANGE, 0.95, plateau=(4, 1.05))[
            "summary"
        ]
    )


def test_c4_exponent_reads_only_the_standard_instance():
    """A staircase copy of the gap series (regret 10^3 times larger, exponent 2) is another
    instance: C4a on the standard instance has one series, exponent 1."""
    std = _gap_series([8])
    stair = std.assign(instance="staircase", cell_id=std["cell_id"] + "s")
    stair["mean"] = 1e3 * (1 / stair["gap"]) ** 2
    df = pd.concat([std, stair], ignore_index=True)
    rec = c4a_exponents.check_exponent(df, "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    assert [(s["K"], s["instance"], s["n"]) for s in rec["cells"]] == [(8, "standard", 4)]
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["verdict"] == "PASS"
    assert rec["summary"].startswith("1 rps series (statistical regime); exponent p: 1 [")


def test_c4_exponent_lists_six_series_in_order_then_dots():
    df = _gap_series([128, 64, 32, 16, 8, 4, 2])
    rec = c4a_exponents.check_exponent(df, "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    assert rec["verdict"] == "PASS"
    assert [s["K"] for s in rec["cells"]] == [2, 4, 8, 16, 32, 64, 128]
    assert all(s["epsilon"] == 8.0 and s["n"] == 4 for s in rec["cells"])
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["summary"].startswith("7 rps series (statistical regime); exponent p: 1 [")
    assert rec["summary"].count("over 4 cells") == 6
    assert " over 4 cells ...; required inside [0.9, 1.1]." in rec["summary"]


def test_c4_exponent_without_a_series_says_so():
    df = _gap_series([8], gaps=(0.5, 0.25))  # two cells: no power fit
    rec = c4a_exponents.check_exponent(
        df, "C4a", "p", (0.9, 1.1), 0.95, "rps", inputs=["g.parquet"], plateau=None
    )
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["summary"] == "No series of at least three rps cells in the statistical regime."
    assert rec["inputs"] == ["g.parquet"]
