"""Claim checks on synthetic aggregated tables with known slopes and ratios: every verdict
(PASS, FAIL, INCONCLUSIVE) is reachable, and the outputs are deterministic."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from privdtol.core import bounds
from privdtol.analysis import checks
from privdtol.analysis import stats as fits
from privdtol.pipeline.notebooks import strip_metadata

PAIR = (1048575, 1073741823)


def agg(cells, horizons=PAIR, rel_se=0.01, algorithm="rps", env="bernoulli", experiment="x",
        mean_fn=None, tail_fn=None):
    """An agg table: one row per (cell, horizon); ``cells`` are dicts with K, gap, epsilon and
    either ``mean`` or a ``mean_fn(cell, horizon)``; se = rel_se * mean unless given.  With
    ``tail_fn(cell, horizon) -> (tail_mean, tail_se)`` the paired-tail columns are added."""
    rows = []
    for i, c in enumerate(cells):
        for h in horizons:
            m = mean_fn(c, h) if mean_fn else c["mean"]
            se = c.get("se", rel_se * m)
            tail = dict(zip(("tail_mean", "tail_se"), tail_fn(c, h))) if tail_fn else {}
            rows.append({**tail, "experiment": experiment, "cell_id": f"c{i}",
                         "algorithm": c.get("algorithm", algorithm), "env": c.get("env", env),
                         "instance": "standard", "K": c["K"], "gap": c["gap"],
                         "epsilon": c["epsilon"], "eta": float(bounds.eta(c["epsilon"])),
                         "mu_best": 0.5 - c["gap"] / 2, "rho": c.get("rho", np.nan),
                         "kappa": np.nan, "horizon": h, "runs": 100, "mean": m, "se": se,
                         "ci_low": m - 1.96 * se, "ci_high": m + 1.96 * se})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- primitives

def test_loglog_slope_recovers_power_law():
    x = np.array([4.0, 8.0, 16.0])
    fit = fits.loglog_slope(x, 3 * x**1.0, 0.001 * x, 0.95)
    assert fit["slope"] == pytest.approx(1.0)
    assert fit["ci_low"] < 1.0 < fit["ci_high"]
    assert fit["ci_high"] - fit["ci_low"] < 0.01


def test_loglog_slope_needs_two_positive_points():
    fit = fits.loglog_slope([1.0, 2.0], [1.0, 0.0], [0.1, 0.1])
    assert math.isnan(fit["slope"]) and fit["n"] == 1


@pytest.mark.parametrize("low, high, verdict", [(0.9, 1.1, "PASS"), (1.3, 1.5, "FAIL"),
                                                (0.1, 0.5, "FAIL"), (0.7, 1.0, "INCONCLUSIVE"),
                                                (float("nan"), 1.0, "INCONCLUSIVE")])
def test_interval_verdict(low, high, verdict):
    assert checks.interval_verdict(low, high, 0.8, 1.2) == verdict


def test_combine_verdicts():
    assert checks.combine_verdicts(["PASS", "PASS"]) == "PASS"
    assert checks.combine_verdicts(["PASS", "INCONCLUSIVE"]) == "INCONCLUSIVE"
    assert checks.combine_verdicts(["INCONCLUSIVE", "FAIL"]) == "FAIL"
    assert checks.combine_verdicts([]) == "INCONCLUSIVE"


def test_ratio_ci_delta_method():
    r, se, lo, hi = fits.ratio_ci(2.0, 0.0, 1.0, 0.1, 0.95)
    assert r == pytest.approx(2.0) and se == pytest.approx(0.2)
    assert (lo, hi) == pytest.approx((2 - 1.959964 * 0.2, 2 + 1.959964 * 0.2), rel=1e-5)


# ----------------------------------------------------------------------------- C2

def _grid(Ks=(2, 8), gaps=(0.5, 0.125), epss=(2.0, 0.25)):
    return [{"K": K, "gap": g, "epsilon": e} for K in Ks for g in gaps for e in epss]


@pytest.mark.parametrize("factor, rel_se, verdict", [(0.1, 0.01, "PASS"), (2.0, 0.01, "FAIL"),
                                                     (0.99, 0.05, "INCONCLUSIVE")])
def test_theorem1(factor, rel_se, verdict):
    df = agg(_grid(), rel_se=rel_se,
             mean_fn=lambda c, h: factor * bounds.theorem1(c["K"], c["gap"], c["epsilon"]))
    out = checks.check_theorem1(df, 0.95)
    assert out["verdict"] == verdict
    assert out["statistic"] == pytest.approx(factor, rel=1e-5)
    assert len(out["cells"]) == len(_grid())


def test_theorem1_ignores_non_private_algorithms():
    df = agg([{"K": 2, "gap": 0.5, "epsilon": np.nan, "mean": 1e9, "algorithm": "ftl"}])
    assert checks.check_theorem1(df)["verdict"] == "INCONCLUSIVE"


# ----------------------------------------------------------------------------- C3

@pytest.mark.parametrize("growth, rel_se, verdict", [(1.0, 0.001, "PASS"), (1.5, 0.001, "FAIL"),
                                                     (1.04, 0.02, "INCONCLUSIVE")])
def test_horizon_free(growth, rel_se, verdict):
    df = agg(_grid(), rel_se=rel_se,
             mean_fn=lambda c, h: 10.0 * (growth if h == PAIR[1] else 1.0))
    out = checks.check_horizon_free(df, 1.05, PAIR, 0.95)
    assert out["verdict"] == verdict
    assert out["statistic"] == pytest.approx(growth, rel=1e-6)


def test_horizon_free_falls_back_for_short_cells():
    df = agg([{"K": 2, "gap": 0.5, "epsilon": 1.0}], horizons=(15, 1023, 16383), rel_se=0.001,
             mean_fn=lambda c, h: 5.0)
    out = checks.check_horizon_free(df, 1.05, PAIR, 0.95)
    cell = out["cells"][0]
    assert cell["fallback"] is True and cell["h_high"] == 16383 and cell["h_low"] == 15
    assert "lack" in out["summary"]


def test_paired_ratio_ci_by_hand():
    z = 2.241403  # two-sided 97.5%: 95% split over increment and denominator
    r, _, lo, hi = checks.paired_ratio_ci(3.0, 0.1, 10.0, 0.2, 0.95)
    assert r == pytest.approx(1.3)
    assert hi == pytest.approx(1 + (3 + z * 0.1) / (10 - z * 0.2), rel=1e-6)
    assert lo == pytest.approx(1 + (3 - z * 0.1) / (10 + z * 0.2), rel=1e-6)
    # increment interval straddling 0: the denominators that make each limit extreme
    r, _, lo, hi = checks.paired_ratio_ci(-0.1, 0.1, 10.0, 0.2, 0.95)
    assert hi == pytest.approx(1 + (-0.1 + z * 0.1) / (10 - z * 0.2), rel=1e-6)
    assert lo == pytest.approx(1 + (-0.1 - z * 0.1) / (10 - z * 0.2), rel=1e-6)
    # increment interval below 0: the upper limit uses the largest denominator
    _, _, _, hi = checks.paired_ratio_ci(-1.0, 0.1, 10.0, 0.2, 0.95)
    assert hi == pytest.approx(1 + (-1 + z * 0.1) / (10 + z * 0.2), rel=1e-6)
    # denominator interval reaching 0: no finite upper limit
    _, _, lo, hi = checks.paired_ratio_ci(0.5, 0.1, 1.0, 1.0, 0.95)
    assert hi == math.inf and lo == pytest.approx(1 + (0.5 - z * 0.1) / (1 + z), rel=1e-6)
    assert all(math.isnan(v) for v in checks.paired_ratio_ci(1.0, 0.1, 0.0, 0.1)[::2])


def test_horizon_free_paired_zero_increments_pass_where_unpaired_is_inconclusive():
    # every run's regret is the same at both horizons (as for RPS): paired increments all 0
    mean_fn = lambda c, h: 10.0  # noqa: E731
    unpaired = checks.check_horizon_free(agg(_grid(), rel_se=0.02, mean_fn=mean_fn),
                                         1.05, PAIR, 0.95)
    assert unpaired["verdict"] == "INCONCLUSIVE" and unpaired["ci_high"] > 1.05
    assert "delta-method" in unpaired["summary"]
    assert "paired interval" not in unpaired["summary"]
    assert {c["interval"] for c in unpaired["cells"]} == {"delta"}
    df = agg(_grid(), rel_se=0.02, mean_fn=mean_fn, tail_fn=lambda c, h: (0.0, 0.0))
    out = checks.check_horizon_free(df, 1.05, PAIR, 0.95)
    assert out["verdict"] == "PASS"
    assert out["statistic"] == pytest.approx(1.0, abs=1e-12)
    assert 1.0 <= out["ci_high"] <= 1.0 + 1e-9
    assert "paired interval" in out["summary"] and "delta-method" not in out["summary"]
    assert {c["interval"] for c in out["cells"]} == {"paired"}
    assert all(c["verdict"] == "PASS" for c in out["cells"])
    # a table mixing both kinds of cells says so, and the delta cells keep it INCONCLUSIVE
    mixed = checks.check_horizon_free(
        pd.concat([df, agg(_grid()[:1], rel_se=0.02, mean_fn=mean_fn, experiment="old")],
                  ignore_index=True), 1.05, PAIR, 0.95)
    assert mixed["verdict"] == "INCONCLUSIVE"
    assert f"for {len(_grid())} cell(s)" in mixed["summary"] and "for 1 cell(s)" in mixed["summary"]


def test_horizon_free_paired_real_increase_fails():
    # regret grows from 10 to 13 in every run (increment 3 with a small se): ratio 1.3
    df = agg(_grid(), rel_se=0.01, mean_fn=lambda c, h: 10.0 if h == PAIR[0] else 13.0,
             tail_fn=lambda c, h: (3.0, 0.05) if h == PAIR[0] else (0.0, 0.0))
    out = checks.check_horizon_free(df, 1.05, PAIR, 0.95)
    assert out["verdict"] == "FAIL"
    assert out["statistic"] == pytest.approx(1.3, rel=1e-9)
    assert 1.05 < out["ci_low"] < 1.3 < out["ci_high"]
    assert all(c["verdict"] == "FAIL" for c in out["cells"])


def test_horizon_free_paired_below_the_largest_horizon_adds_tail_ses():
    # the pair is not the cell's last checkpoint: increment = tail(low) - tail(high), with the
    # conservative se tail_se(low) + tail_se(high)
    T31 = (1 << 31) - 1
    tails = {PAIR[0]: (2.0, 0.05), PAIR[1]: (2.0, 0.05), T31: (0.0, 0.0)}
    df = agg([{"K": 2, "gap": 0.5, "epsilon": 1.0}], horizons=(*PAIR, T31), rel_se=0.01,
             mean_fn=lambda c, h: 12.0 if h == T31 else 10.0, tail_fn=lambda c, h: tails[h])
    out = checks.check_horizon_free(df, 1.05, PAIR, 0.95)
    z = fits.z_value(0.975)
    assert out["cells"][0]["h_high"] == PAIR[1] and out["cells"][0]["interval"] == "paired"
    assert out["statistic"] == pytest.approx(1.0)
    assert out["ci_high"] == pytest.approx(1 + z * 0.1 / (10 - z * 0.1), rel=1e-5)
    assert out["verdict"] == "PASS"


# ----------------------------------------------------------------------------- C4a/b

@pytest.mark.parametrize("slope, rel_se, verdict", [(1.0, 0.005, "PASS"), (0.5, 0.005, "FAIL"),
                                                    (1.0, 0.3, "INCONCLUSIVE")])
def test_slope_check_gap(slope, rel_se, verdict):
    cells = [{"K": 8, "gap": 2.0**-k, "epsilon": 4.0} for k in range(1, 8)]
    df = agg(cells, rel_se=rel_se, mean_fn=lambda c, h: 5 * (1 / c["gap"]) ** slope)
    out = checks.check_slope(df, "C4a", "1/gap", (0.8, 1.2), 0.95, 3,
                             regime_filter="statistical")
    assert out["verdict"] == verdict
    assert out["statistic"] == pytest.approx(slope, abs=1e-6)
    assert out["cells"][0]["x"] == [32.0, 64.0, 128.0]  # the three smallest gaps


def test_slope_check_eps_uses_privacy_regime_only():
    cells = [{"K": 8, "gap": 0.5, "epsilon": 2.0**-k} for k in range(0, 7)]
    cells += [{"K": 8, "gap": 0.25, "epsilon": 2.0**-k, "mean": 1.0} for k in range(0, 7)]
    df = agg(cells, rel_se=0.005,
             mean_fn=lambda c, h: c.get("mean") or 2 * (1 / c["epsilon"]))
    out = checks.check_slope(df, "C4b", "1/eps", (0.8, 1.2), 0.95, regime_filter="privacy")
    assert out["verdict"] == "PASS" and len(out["cells"]) == 1


def test_slope_check_insufficient_points_is_inconclusive():
    cells = [{"K": 8, "gap": g, "epsilon": 4.0} for g in (0.5, 0.25)]
    df = agg(cells, mean_fn=lambda c, h: 1 / c["gap"])
    out = checks.check_slope(df, "C4a", "1/gap", regime_filter="statistical")
    assert out["verdict"] == "INCONCLUSIVE"


# ----------------------------------------------------------------------------- C4c

def _rate_grid():
    return _grid(Ks=(2, 4, 16, 64), gaps=(0.5, 0.25, 0.125, 0.0625), epss=(2.0, 0.5, 0.125, 0.03))


def test_rate_ratio_pass_when_regret_is_the_rate():
    df = agg(_rate_grid(), rel_se=0.005,
             mean_fn=lambda c, h: 3 * bounds.rate(c["K"], c["gap"], c["epsilon"]))
    out = checks.check_rate_ratio(df, (-0.2, 0.2), 0.95)
    assert out["verdict"] == "PASS"
    rng = out["cells"][0]
    assert rng["kind"] == "ratio_range"
    assert rng["ratio_min"] == pytest.approx(3) and rng["ratio_max"] == pytest.approx(3)


def test_rate_ratio_fails_on_a_log_squared_privacy_term():
    df = agg(_rate_grid(), rel_se=0.005,
             mean_fn=lambda c, h: float(bounds.wu_wang_shape(c["K"], c["gap"], c["epsilon"])))
    out = checks.check_rate_ratio(df, (-0.2, 0.2), 0.95)
    assert out["verdict"] == "FAIL"
    bad = [c for c in out["cells"][1:] if c["verdict"] == "FAIL"]
    assert "log K" in {c["axis"] for c in bad}


def test_rate_ratio_inconclusive_with_noise():
    df = agg(_rate_grid(), rel_se=0.5,
             mean_fn=lambda c, h: 3 * bounds.rate(c["K"], c["gap"], c["epsilon"]))
    assert checks.check_rate_ratio(df, (-0.2, 0.2), 0.95)["verdict"] == "INCONCLUSIVE"


# ----------------------------------------------------------------------------- C4d

Ks = (2, 4, 8, 16, 32, 64, 128)


@pytest.mark.parametrize("power, se, verdict", [(1, 0.05, "PASS"), (2, 0.05, "FAIL"),
                                                (1, 50.0, "INCONCLUSIVE")])
def test_logk_comparison(power, se, verdict):
    cells = [{"K": K, "gap": 0.5, "epsilon": 1 / 16, "se": se} for K in Ks]
    df = agg(cells, mean_fn=lambda c, h: 10 + 20 * np.log(c["K"]) ** power)
    out = checks.check_logk(df, 0.95, n_boot=300)
    assert out["verdict"] == verdict
    assert out["cells"][0]["better"] == ("log K" if power == 1 else "log² K") or verdict == \
        "INCONCLUSIVE"


def test_logk_bootstrap_is_deterministic():
    K = np.array(Ks, dtype=float)
    a = fits.compare_logk_fits(K, 5 * np.log(K), np.full(K.size, 0.5), n_boot=200)
    b = fits.compare_logk_fits(K, 5 * np.log(K), np.full(K.size, 0.5), n_boot=200)
    assert (a["ci_low"], a["ci_high"]) == (b["ci_low"], b["ci_high"])


# ----------------------------------------------------------------------------- constants

def test_constants_recovered_and_deterministic():
    cells = _grid(Ks=(2, 8, 64), gaps=(0.5, 0.125, 0.03), epss=(2.0, 0.25, 0.03))

    def mean(c, h):
        logk = np.log(c["K"])
        return 1 + 100 * logk / c["gap"] + 2 * logk / float(bounds.eta(c["epsilon"]))

    df = agg(cells, mean_fn=mean)
    a = checks.check_constants(df, 0.95, n_boot=200)
    b = checks.check_constants(df, 0.95, n_boot=200)
    assert a == b
    est = {c["term"]: c["estimate"] for c in a["cells"]}
    assert est["log K/gap"] == pytest.approx(100, rel=1e-4)
    assert est["log K/eta"] == pytest.approx(2, rel=1e-3)
    assert a["verdict"] == "PASS" and a["statistic"] == pytest.approx(0.125, rel=1e-3)


def test_constants_fail_above_the_paper():
    cells = _grid(Ks=(2, 8, 64), gaps=(0.5, 0.125, 0.03), epss=(2.0, 0.25, 0.03))
    df = agg(cells, mean_fn=lambda c, h: 1 + 2000 * np.log(c["K"]) / c["gap"])
    assert checks.check_constants(df, n_boot=100)["verdict"] == "FAIL"


# ----------------------------------------------------------------------------- C5

def test_dependent_combines_sub_checks():
    cells = [{"K": 8, "gap": g, "epsilon": 4.0, "env": env, "rho": 0.5}
             for env in ("correlated",) for g in (0.5, 0.25, 0.125, 0.0625)]
    df = agg(cells, rel_se=0.001, mean_fn=lambda c, h: 2 / c["gap"])
    out = checks.check_dependent(df, (0.8, 1.2), 0.95)
    subs = {(c["sub_check"], c["env"]): c["verdict"] for c in out["cells"]}
    assert subs[("C2", "correlated")] == "PASS" and subs[("C4a", "correlated")] == "PASS"
    assert subs[("C4b", "correlated")] == "NOT APPLICABLE"
    assert out["verdict"] == "PASS"
    bad = agg(cells, rel_se=0.001, mean_fn=lambda c, h: 2 / c["gap"] ** 0.3)
    assert checks.check_dependent(bad)["verdict"] == "FAIL"


def test_dependent_never_pools_different_rho():
    cells = [{"K": 8, "gap": g, "epsilon": 4.0, "env": "correlated", "rho": r}
             for r in (0.5, 0.9) for g in (0.5, 0.25, 0.125)]
    df = agg(cells, rel_se=0.001, mean_fn=lambda c, h: (1 + c["rho"]) / c["gap"])
    out = checks.check_dependent(df)
    c4a = [c for c in out["cells"] if c["sub_check"] == "C4a"][0]
    assert c4a["verdict"] == "PASS"  # pooled, the two rho levels would bend the slope


# ----------------------------------------------------------------------------- output

def test_write_check_is_deterministic_json(tmp_path):
    c = checks.make_check("C9", "t", "s", 1 / 3, float("nan"), np.float64(2.0), "thr", "PASS",
                          "sum", [{"b": np.int64(1), "a": np.nan}], ["z", "a"])
    p1 = checks.write_check(c, tmp_path / "a.json")
    p2 = checks.write_check(dict(reversed(list(c.items()))), tmp_path / "b.json")
    assert p1.read_bytes() == p2.read_bytes()
    d = json.loads(p1.read_text())
    assert d["statistic"] == 0.333333 and d["ci_low"] is None and d["inputs"] == ["a", "z"]
    assert list(d) == sorted(d)
    with pytest.raises(ValueError):
        checks.write_check({"claim": "x"}, tmp_path / "c.json")
    assert checks.read_check(tmp_path / "missing.json") is None


def test_strip_metadata_removes_timing():
    nb = {"metadata": {"papermill": {"start_time": "x", "end_time": "y", "duration": 1.0,
                                     "input_path": "/a/b/n.input.ipynb", "parameters": {}}},
          "cells": [{"metadata": {"execution": {"iopub.status.busy": "t"},
                                  "papermill": {"duration": 0.1, "status": "completed",
                                                "start_time": "s", "end_time": "e"}}}]}
    out = strip_metadata(nb)
    assert out["metadata"]["papermill"] == {"input_path": "n.input.ipynb", "parameters": {}}
    assert out["cells"][0]["metadata"] == {"papermill": {"status": "completed"}}
