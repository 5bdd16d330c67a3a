"""Guards for the survivors of a fresh random sample of ``make mutation GROUPS=claims``
(issue 24, docs/testing.md): the algorithm a record names (C0's "all", C5's and the proof
steps' control algorithms), C0's cells one per parameter set, C1 without a negative control,
the experiments C2b reads, C4's instance and its form record, C3's slope_min dtype and the
order of the proof steps' cells on ties.  Every expected value is written out here."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_mutants_claims import THRESHOLDS_C0, _agreement, _audit, _rows
from test_mutants_claims_rates import _gap_series

from privdtol.analysis.claims import (
    c0_agreement,
    c1_privacy,
    c2_theorem1,
    c3_horizon_free,
    c4_rate,
    c5_dependent,
    lemmas,
)

# ----------------------------------------------------------------------------- C0


def _two_agreement_cells():
    """K = 2 standard (z = (2 - 0.5) / 0.5 = 3) and the K = 3 staircase with 20 runs (M = 6,
    exact 3: 20 x 3/6 = 10 runs expected below M, kept; z = (3.1 - 3 - 3e-9) / 0.5 = 0.2)."""
    return pd.concat(
        [
            _agreement(2.0, 0.5, 0.0, 0.5),
            _agreement(3.1, 0.5, 3.0, 0.0, runs=20, instance="staircase", K=3),
        ],
        ignore_index=True,
    )


def test_c0_record_names_every_algorithm_as_all():
    rec = c0_agreement.check({"agreement": _two_agreement_cells()}, THRESHOLDS_C0, [])
    assert rec["algorithm"] == "all"
    assert rec["control_of"] is None


def test_c0_lists_one_cell_per_parameter_set():
    """The two cells share algorithm, env and estimator but not instance and K: two cells, by
    instance ("staircase" < "standard"), each with its own pair."""
    rec = c0_agreement.check({"agreement": _two_agreement_cells()}, THRESHOLDS_C0, [])
    assert [(c["instance"], c["K"], c["pairs"]) for c in rec["cells"]] == [
        ("staircase", 3, 1),
        ("standard", 2, 1),
    ]
    assert [c["z"] for c in rec["cells"]] == [pytest.approx(0.2, rel=1e-6), 3.0]
    assert rec["summary"].startswith("2 cells (rps; Monte Carlo estimators mc) computed both")


# ----------------------------------------------------------------------------- C1


def test_c1_without_a_negative_control_fails():
    """Private cells that pass but no control: the audit has shown nothing it can catch."""
    df = pd.DataFrame(
        [
            _audit("private", "rps", "exact_selection", 0.2, False),
            _audit("private", "rps", "whole_sequence", 0.1, False),
        ]
    )
    rec = c1_privacy.check_c1(df, ["agg/privacy.parquet"])
    assert [c["verdict"] for c in rec["cells"]] == ["PASS"]
    assert rec["statistic"] == 0.2
    assert rec["verdict"] == "FAIL"
    assert rec["summary"] == (
        "Largest privacy loss found over 1 private algorithms and 1 values of eps is 0.200000 "
        "x eps (0 private cells over their bound); the negative controls were caught in 0/0 "
        "(algorithm, eps) cells."
    )


# ----------------------------------------------------------------------------- C2b


def test_eq2_reads_only_the_experiments_of_c2b():
    """C2b reads horizon, gap, epsilon, actions, grid and worst_case, not ``dependent``: the
    K = 4 cell with regret 10^6 there is not one of its cells.  eq. (2) at K = 8, gap 1/2,
    eps 2: 2500 log 8."""
    grid = pd.DataFrame(_rows("bernoulli", [50.0, 100.0], 2.0))
    dependent = grid.assign(K=4, cell_id="k4", mean=1e6)
    rec = c2_theorem1.check_eq2(
        {"grid": grid, "dependent": dependent}, {"confidence": 0.95}, ["agg/grid.parquet"]
    )
    assert [c["K"] for c in rec["cells"]] == [8]
    assert rec["statistic"] == pytest.approx(100 / (2500 * math.log(8)), rel=1e-5)
    assert rec["verdict"] == "PASS"


# ----------------------------------------------------------------------------- C3


def test_c3_slope_min_is_a_float_array_with_nan_where_the_span_is_empty():
    """(1.5 - 1) x 10 / 2 = 2.5; a span of 0 (T0 = T_max) or NaN (no T0) has no slope."""
    out = c3_horizon_free.slope_min([10.0, 10.0, 10.0], [2.0, 0.0, np.nan], 1.5)
    assert out.dtype == np.float64
    assert out[0] == 2.5
    assert math.isnan(out[1]) and math.isnan(out[2])


# ----------------------------------------------------------------------------- C4


def test_c4_exponent_reads_only_the_standard_instance():
    """A staircase copy of the gap series (regret 10^3 times larger, exponent 2) is another
    instance: C4a on the standard instance has one series, exponent 1."""
    std = _gap_series([8])
    stair = std.assign(instance="staircase", cell_id=std["cell_id"] + "s")
    stair["mean"] = 1e3 * (1 / stair["gap"]) ** 2
    df = pd.concat([std, stair], ignore_index=True)
    rec = c4_rate.check_exponent(df, "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    assert [(s["K"], s["instance"], s["n"]) for s in rec["cells"]] == [(8, "standard", 4)]
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["verdict"] == "PASS"
    assert rec["summary"].startswith("1 rps series (statistical regime); exponent p: 1 [")


#: (K, gap, eps) of five grid cells whose log K/gap, log K/eta and 1 are independent
FORM_CELLS = [(2, 0.5, 1.0), (4, 0.25, 0.1), (8, 0.5, 0.05), (2, 0.125, 0.02), (16, 0.25, 1.0)]


def _form_table():
    """Grid cells on Reg = 2 log K/gap + 3 log K/eta + 5 exactly (eta = min(eps/2, 1/8))."""
    rows = []
    for i, (K, gap, eps) in enumerate(FORM_CELLS):
        m = 2 * math.log(K) / gap + 3 * math.log(K) / min(eps / 2, 1 / 8) + 5
        rows.append(
            {
                "experiment": "grid",
                "cell_id": f"g{i}",
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
                "se": 1e-9 * m,
            }
        )
    return pd.DataFrame(rows)


def test_c4_form_record_title_and_cells_by_hand():
    rec = c4_rate.check_form(
        {"grid": _form_table()},
        {"rate_form_factor": 1.5, "confidence": 0.95},
        ["agg/grid.parquet"],
    )
    assert rec["title"] == (
        "Rate form: regret ~ a log K/gap + b log K/eta + c (eta = min(eps/2, 1/8))"
    )
    assert rec["verdict"] == "PASS"
    fit, first, *_ = rec["cells"]
    assert fit["kind"] == "fit" and fit["n"] == 5
    assert (fit["a"], fit["b"], fit["c"]) == pytest.approx((2.0, 3.0, 5.0), rel=1e-6)
    # K = 2, gap 1/2, eps 1 (eta 1/8): 4 log 2 + 24 log 2 + 5 = 28 log 2 + 5 = 24.408121
    assert set(first) == {
        "env",
        "K",
        "gap",
        "epsilon",
        "mean",
        "fitted",
        "ratio",
        "ratio_low",
        "ratio_high",
        "verdict",
    }
    assert (first["K"], first["gap"], first["epsilon"]) == (2, 0.5, 1.0)
    assert first["mean"] == pytest.approx(28 * math.log(2) + 5, rel=1e-6)
    assert first["ratio"] == pytest.approx(1.0, rel=1e-6)
    assert first["verdict"] == "PASS"


# ----------------------------------------------------------------------------- C5


def test_c5_record_names_the_algorithm_checked():
    """The negative control ``uniform`` (linear regret): 10^4 over C2's bound at K = 8,
    gap 1/2, eps 2 (1 + 1728 log 8 = 3594.3) fails, and the record says whose it is."""
    df = pd.DataFrame(_rows("correlated", [5000.0, 10000.0], 1.0, algorithm="uniform"))
    rec = c5_dependent.check({"dependent": df}, {"confidence": 0.95}, [], "uniform")
    assert rec["algorithm"] == "uniform"
    assert rec["verdict"] == "FAIL"
    assert rec["summary"].startswith("uniform: sub-checks C2[correlated]=FAIL;")


# ----------------------------------------------------------------------------- L4, L5


def _proof_rows(sum_f, algorithm="rps"):
    """Proof rows of ``algorithm``: cell i has K = i + 2, sum_F = sum_f[i], bound 100."""
    n = len(sum_f)
    return pd.DataFrame(
        {
            "experiment": ["grid"] * n,
            "cell_id": [f"c{i}" for i in range(n)],
            "algorithm": [algorithm] * n,
            "K": [i + 2 for i in range(n)],
            "gap": [0.5] * n,
            "epsilon": [1.0] * n,
            "eta": [0.125] * n,
            "sum_F": sum_f,
            "sum_F_err": [0.0] * n,
            "bound_lemma5": [100.0] * n,
        }
    )


def test_proof_step_record_names_the_control_algorithm():
    rows = _proof_rows([50.0, 25.0], "rps_eta_logk")
    rec = lemmas.check_step(pd.concat([rows, _proof_rows([1.0])]), "L5", "rps_eta_logk")
    assert rec["algorithm"] == "rps_eta_logk"
    assert [c["K"] for c in rec["cells"]] == [2, 3]
    assert rec["summary"].startswith("Over 2 exact rps_eta_logk cells")


def test_proof_step_cells_with_equal_ratios_keep_their_input_order():
    """24 cells, ratios 1/2 (even i) and 1/4 (odd i), as when eps >= 1/4 makes eta = 1/8 in
    several cells: by decreasing ratio, ties in the order of the table (K = 2, 4, ..., 24,
    then 3, 5, ..., 25); a quicksort reorders them."""
    rows = _proof_rows([50.0 if i % 2 == 0 else 25.0 for i in range(24)])
    rec = lemmas.check_step(rows, "L5")
    assert [c["K"] for c in rec["cells"]] == [*range(2, 25, 2), *range(3, 26, 2)]
    assert [c["ratio"] for c in rec["cells"]] == [0.5] * 12 + [0.25] * 12
