"""Tests of :mod:`privdtol.analysis.claims.c5_dependent`, claim C5 (the bound of Theorem 1 holds
on dependent losses: correlated and Beta), with the blocked losses as its control."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from support.synthetic_regret import table
from support.tables import rps_cell_rows

from privdtol.analysis.claims import (
    c5_dependent,
)


def test_dependent_checks_the_bound():
    cells = [(8, g, e) for g in (0.25, 0.0625, 0.015625) for e in (1.0, 0.125)]
    dep = pd.concat(
        [
            table("rps", cells, 0.03, 0, "dependent", env="correlated"),
            table("uniform", cells, 0.0, 0, "dependent", env="correlated"),
        ]
    )
    ok = c5_dependent.check_dependent(dep, 0.95)
    assert ok["verdict"] == "PASS"
    assert {(c["sub_check"], c["env"]) for c in ok["cells"]} == {("C2", "correlated")}
    ctrl = c5_dependent.check_dependent(dep, 0.95, algorithm="uniform")
    assert ctrl["verdict"] == "FAIL"
    # a regret above Theorem 1's bound in one correlated cell fails C5
    worse = dep.assign(mean=np.where(dep["algorithm"] == "rps", dep["mean"] * 200, dep["mean"]))
    assert c5_dependent.check_dependent(worse, 0.95)["verdict"] == "FAIL"
    # the time-dependence control: rps on losses repeated in blocks (regret linear in T) is
    # left out of the claim's check and FAILs the registry check run with control "blocked"
    blocked = table("uniform", cells, 0.0, 0, "dependent", env="blocked").assign(algorithm="rps")
    both = {"dependent": pd.concat([dep, blocked])}
    thresholds = {"confidence": 0.95}
    assert c5_dependent.check(both, thresholds, [])["verdict"] == "PASS"
    ctrl = c5_dependent.check(both, thresholds, [], algorithm="blocked")
    assert ctrl["verdict"] == "FAIL" and [c["env"] for c in ctrl["cells"]] == ["blocked"]


#: Theorem 1 at K = 8, gap = 1/2, eps = 2 (eta = 1/8): 1 + 800 log 8 / (1/2) + 16 log 8 / (1/8)
BOUND_8 = 1 + 1728 * math.log(8)


def _z(confidence):
    return sps.norm.ppf(0.5 + confidence / 2)


def test_c5_record_by_hand():
    df = pd.DataFrame(
        rps_cell_rows("correlated", [50.0, 100.0], 2.0)
        + rps_cell_rows("beta", [150.0, 200.0], 4.0)
        + rps_cell_rows("bernoulli", [5000.0, 9000.0], 1.0)  # not a dependent model: ignored
    )
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.95}, ["agg/dependent.parquet"])
    assert rec["claim"] == "C5"
    assert rec["title"] == "Dependent losses: Theorem 1's bound for correlated, beta losses"
    assert rec["statistic_label"] == "max over dependent cells of regret / Theorem-1 bound"
    assert rec["threshold"] == ("C2's bound (upper 95% limit <= 1) in every cell of every model")
    assert rec["inputs"] == ["agg/dependent.parquet"]
    assert rec["algorithm"] == "rps"
    assert rec["verdict"] == "PASS"
    # the largest ratio is beta's 200 / bound; its limits Bonferroni over beta's two rows
    z2, z = _z(1 - 0.05 / 2), _z(0.95)
    assert rec["statistic"] == pytest.approx(200 / BOUND_8, rel=1e-5)
    assert rec["ci_low"] == pytest.approx((200 - z2 * 4) / BOUND_8, rel=1e-5)
    assert rec["ci_high"] == pytest.approx((200 + z * 4) / BOUND_8, rel=1e-5)
    assert rec["interval"] == [rec["ci_low"], rec["ci_high"]]
    assert rec["summary"] == (
        "rps: sub-checks C2[correlated]=PASS, C2[beta]=PASS; largest regret/bound ratio "
        f"{200 / BOUND_8:.3g}."
    )
    corr, beta = rec["cells"]
    assert set(corr) == {
        "sub_check",
        "env",
        "verdict",
        "statistic",
        "ci_low",
        "ci_high",
        "threshold",
        "summary",
    }
    assert (corr["sub_check"], corr["env"], beta["env"]) == ("C2", "correlated", "beta")
    assert corr["statistic"] == pytest.approx(100 / BOUND_8, rel=1e-5)
    assert corr["ci_high"] == pytest.approx((100 + z * 2) / BOUND_8, rel=1e-5)
    assert corr["ci_low"] == pytest.approx((100 - z2 * 2) / BOUND_8, rel=1e-5)
    assert corr["threshold"] == "upper 95% limit of regret / bound <= 1 in every cell"
    note = " Beta cells stop at a short horizon; their largest available horizon is used."
    assert beta["summary"].endswith(note)
    assert not corr["summary"].endswith(note)
    assert corr["summary"].startswith("Over 1 distinct rps cells and 2 (cell, horizon) pairs")


def test_c5_fails_when_one_model_fails_and_names_it():
    df = pd.DataFrame(
        rps_cell_rows("correlated", [50.0, 100.0], 2.0)
        + rps_cell_rows("beta", [2 * BOUND_8, 3 * BOUND_8], 1.0)
    )
    rec = c5_dependent.check_dependent(df, 0.95)
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] == pytest.approx(3.0, rel=1e-5)
    assert "C2[correlated]=PASS, C2[beta]=FAIL" in rec["summary"]


def test_c5_without_dependent_cells_says_so():
    df = pd.DataFrame(rps_cell_rows("bernoulli", [50.0, 100.0], 2.0))
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.9}, ["in.parquet"], "hedge")
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["summary"] == "No dependent-loss hedge cells in the input."
    assert rec["inputs"] == ["in.parquet"]
    assert rec["algorithm"] == "hedge"
    assert rec["threshold"] == "C2's bound (upper 90% limit <= 1) in every cell of every model"
    assert rec["statistic"] is None and rec["cells"] == []


def test_c5_blocked_control_checks_rps_on_blocked_losses():
    df = pd.DataFrame(
        rps_cell_rows("blocked", [50.0, 100.0], 2.0) + rps_cell_rows("beta", [1.0, 2.0], 0.1)
    )
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.95}, [], "blocked")
    assert rec["title"] == "Dependent losses: Theorem 1's bound for blocked losses"
    assert rec["algorithm"] == "rps"
    assert [c["env"] for c in rec["cells"]] == ["blocked"]
    assert rec["statistic"] == pytest.approx(100 / BOUND_8, rel=1e-5)


def test_c5_with_dependent_cells_but_no_private_ones():
    """Correlated cells without eps: C2 ignores them (no data), so C5 has no statistic."""
    df = pd.DataFrame(rps_cell_rows("correlated", [50.0, 100.0], 2.0)).assign(epsilon=np.nan)
    rec = c5_dependent.check_dependent(df, 0.95)
    assert rec["statistic"] is None and rec["ci_low"] is None and rec["ci_high"] is None
    assert rec["verdict"] == "INCONCLUSIVE"


def test_c5_record_names_the_algorithm_checked():
    """The negative control ``uniform`` (linear regret): 10^4 over C2's bound at K = 8,
    gap 1/2, eps 2 (1 + 1728 log 8 = 3594.3) fails, and the record says whose it is."""
    df = pd.DataFrame(rps_cell_rows("correlated", [5000.0, 10000.0], 1.0, algorithm="uniform"))
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.95}, [], "uniform")
    assert rec["algorithm"] == "uniform"
    assert rec["verdict"] == "FAIL"
    assert rec["summary"].startswith("uniform: sub-checks C2[correlated]=FAIL;")


def test_c5_reads_only_the_dependent_experiment_and_the_algorithm_checked():
    """rps within its bound on correlated losses; a correlated table of another experiment and
    the uniform control's rows in the dependent table, both far over the bound, are ignored."""
    dep = pd.concat(
        [
            pd.DataFrame(rps_cell_rows("correlated", [5.0, 6.0], 0.1)),
            pd.DataFrame(rps_cell_rows("correlated", [5e4, 1e5], 1.0, algorithm="uniform")),
        ]
    )
    # another cell (K = 4: not one a dedupe would merge with the dependent one)
    other = pd.DataFrame(rps_cell_rows("correlated", [5e4, 1e5], 1.0)).assign(
        experiment="grid", K=4
    )
    rec = c5_dependent.check({"dependent": dep, "grid": other}, {"confidence": 0.95}, [], "rps")
    assert rec["verdict"] == "PASS"
    assert rec["statistic"] == pytest.approx(6.0 / (1 + 1728 * math.log(8)), rel=1e-5)
