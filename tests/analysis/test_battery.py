"""The battery of known truths: on a small grid, every claim's rule FAILs every false case it
speaks to and no true one (the acceptance of the checks themselves), and the cases are what
they say they are."""

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis.battery import CASES, case_table, run_battery
from privdtol.core import clock

T = 2**30 - 1
MODEL = {"a": 1.2, "b": 3.6, "c": 1.0, "sigma": 0.05}
CHECKS = {
    "confidence": 0.95,
    "agreement_min_events": 10,
    "horizon_free_ratio_max": 1.05,
    "horizon_free_c": 16,
    "rate_form_factor": 1.5,
    "exponent_range": [0.8, 1.2],
    "plateau_octaves": 4,
    "optimality_ratio_max": 256,
    "optimality_growth_max": 0.25,
    "cited_ratio_max": 256,
    "cited_growth_max": 0.25,
}


def _cells(Ks, gaps, epss):
    return pd.DataFrame(
        [
            {"K": K, "gap": g, "epsilon": e, "horizon": T, "mu_best": None}
            for K in Ks
            for g in gaps
            for e in epss
        ]
    )


#: the default config's experiments, their grids thinned
CELLS = {
    "horizon": _cells([2, 16], [0.25, 1 / 32], [1.0, 1 / 16]),
    "gap": _cells([8], [2.0**-k for k in range(1, 11)], [8.0]),
    "epsilon": _cells([8], [0.5], [2.0**-k for k in range(7)]),
    "actions": pd.concat(
        [
            _cells([2**k for k in range(1, 13)], [0.125], [8.0]),
            _cells([2**k for k in range(1, 13)], [0.5], [1 / 16]),
        ],
        ignore_index=True,
    ),
    "grid": _cells(
        [2, 8, 64, 512], [0.5, 0.125, 1 / 32, 1 / 128], [4.0, 1.0, 0.25, 1 / 16, 1 / 64]
    ),
}


def stand_in_lb(K, gap, eps, T):
    """LB_T's shape without its cost: T gap (1 - 1/K) (every symmetric algorithm's regret at
    T = 1), then 0.17 (log K/gap + log K/eps) (0.17: the median of LB_T over this rate on the
    default run's grid at 2^30 - 1; the real LB_T runs through the battery in the pipeline)."""
    return np.minimum(T * gap * (1 - 1 / K), 0.17 * (np.log(K) / gap + np.log(K) / eps))


@pytest.fixture(scope="module")
def bounds():
    keys = pd.concat(CELLS.values())[["K", "gap", "epsilon"]].drop_duplicates()
    hs = clock.checkpoints(T)[0].astype(float)
    parts = [
        pd.DataFrame(
            {
                "K": int(K),
                "mu": 0.5 + g / 2,
                "gap": g,
                "epsilon": e,
                "horizon": hs.astype(int),
                "best": stand_in_lb(K, g, e, hs),
            }
        )
        for K, g, e in keys.itertuples(index=False)
    ]
    out = pd.concat(parts, ignore_index=True)
    return out.assign(best_error=0.0, statistical=out["best"], privacy=0.0, two_point=0.0)


@pytest.fixture(scope="module")
def battery(bounds):
    return run_battery(CELLS, bounds, CHECKS, MODEL, replicates=1)


def test_every_rule_fails_its_false_cases_and_no_true_one(battery):
    wrong = [
        (r["case"], r["claim"], r["verdicts"]) for r in battery["rows"] if not r["as_expected"]
    ]
    assert wrong == []


def test_every_checked_claim_has_a_false_case_caught_with_power_one(battery):
    claims = battery["claims"]
    assert set(claims) >= {"C2", "C3", "C4", "C4a", "C4b", "C4c", "C6", "C7"}
    for cid, c in claims.items():
        assert c["false_cases"], cid
        assert c["power"] == 1.0 and c["size"] == 0.0, cid


def test_c7_fails_log_k_log_t_and_linear_regret_and_reports_its_power_beyond(battery):
    c7 = {r["case"]: r for r in battery["rows"] if r["claim"] == "C7"}
    for case in ("log_k", "log_t", "linear_t"):
        assert c7[case]["verdicts"] == {"FAIL": 1}, case
    for case in ("bounded", "better", "falling", "noisy", "lb_bounded"):
        assert "FAIL" not in c7[case]["verdicts"], case
    # growth that stays below the ceiling on this grid: never FAIL is not required, and the
    # power is reported (here 0: a sqrt(log K) factor reaches 3 at K = 512)
    assert set(battery["claims"]["C7"]["power_only"]) == {"sqrt_log_k", "gap_sqrt", "eps_sqrt"}


def test_the_cited_works_claims_fail_linear_regret_only_and_never_a_true_case(battery):
    for cid in ("H1", "W1"):
        rows = {r["case"]: r for r in battery["rows"] if r["claim"] == cid}
        assert rows["linear_t"]["verdicts"] == {"FAIL": 1}, cid
        for case in ("bounded", "better", "falling", "noisy", "lb_bounded", "below_lb"):
            assert "FAIL" not in rows[case]["verdicts"], (cid, case)
        assert battery["claims"][cid]["false_cases"] == ["linear_t"]
        assert set(battery["claims"][cid]["power_only"]) == {
            "log_k",
            "sqrt_log_k",
            "gap_sqrt",
            "eps_sqrt",
            "log_t",
        }


def test_the_uniform_case_is_t_gap_times_one_minus_one_over_k(bounds):
    case = next(c for c in CASES if c.name == "linear_t")
    table = case_table(case, CELLS["grid"].iloc[[5]], bounds, {**MODEL, "sigma": 0.0}, "grid", 0)
    row = table[table["horizon"] == 1023].iloc[0]
    assert row["mean"] == pytest.approx(1023 * row["gap"] * (1 - 1 / row["K"]), rel=1e-12)


def test_below_lb_is_half_the_bound_after_the_first_round(bounds):
    case = next(c for c in CASES if c.name == "below_lb")
    table = case_table(case, CELLS["grid"].iloc[[0]], bounds, {**MODEL, "sigma": 0.0}, "grid", 0)
    lb = bounds[(bounds.K == 2) & (bounds.gap == 0.5) & (bounds.epsilon == 4.0)]
    merged = table.merge(lb, on="horizon")
    expect = np.where(merged["horizon"] > 1, merged["best"] / 2, merged["best"])
    np.testing.assert_allclose(merged["mean"], expect, rtol=1e-12)


def test_replicates_are_reproducible(bounds):
    case = CASES[0]
    a = case_table(case, CELLS["grid"], bounds, MODEL, "grid", 3)
    b = case_table(case, CELLS["grid"], bounds, MODEL, "grid", 3)
    pd.testing.assert_frame_equal(a, b)
