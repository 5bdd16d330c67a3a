"""Tests of :mod:`privdtol.analysis.claims.lemmas`: the proof-step claims L4, L5, L5a and L5b
(Lemma 4, Lemma 5 and eqs. (5) and (6) of the paper) checked on the exact proof terms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.tables import proof_row

from privdtol.analysis.claims import (
    lemmas,
)
from privdtol.analysis.claims.lemmas import check_step


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
    rows = _proof_rows([50.0, 25.0], "rps_uniform_mix")
    rec = lemmas.check_step(pd.concat([rows, _proof_rows([1.0])]), "L5", "rps_uniform_mix")
    assert rec["algorithm"] == "rps_uniform_mix"
    assert [c["K"] for c in rec["cells"]] == [2, 3]
    assert rec["summary"].startswith("Over 2 exact rps_uniform_mix cells")


def test_proof_step_cells_with_equal_ratios_keep_their_input_order():
    """24 cells, ratios 1/2 (even i) and 1/4 (odd i), as when eps >= 1/4 makes eta = 1/8 in
    several cells: by decreasing ratio, ties in the order of the table (K = 2, 4, ..., 24,
    then 3, 5, ..., 25); a quicksort reorders them."""
    rows = _proof_rows([50.0 if i % 2 == 0 else 25.0 for i in range(24)])
    rec = lemmas.check_step(rows, "L5")
    assert [c["K"] for c in rec["cells"]] == [*range(2, 25, 2), *range(3, 26, 2)]
    assert [c["ratio"] for c in rec["cells"]] == [0.5] * 12 + [0.25] * 12


def _proof(**columns):
    n = len(next(iter(columns.values())))
    base = {
        "experiment": ["grid"] * n,
        "cell_id": [f"c{i}" for i in range(n)],
        "algorithm": ["rps"] * n,
        "K": [4, 8, 16][:n],
        "gap": [0.5, 0.25, 0.125][:n],
        "epsilon": [1.0, 0.5, 0.25][:n],
        "eta": [0.125, 0.125, 0.125][:n],
    }
    return pd.DataFrame({**base, **columns})


def test_lemma5_record_by_hand():
    """Ratios 45.678/100, 80/90, 30/20 with relative errors 0.01, 0.0123456, 0.01: PASS, PASS,
    FAIL (29.7/20 > 1)."""
    df = _proof(
        sum_F=[45.678, 80.0, 30.0],
        sum_F_err=[0.45678, 80 * 0.0123456, 0.3],
        bound_lemma5=[100.0, 90.0, 20.0],
    )
    other = _proof(sum_F=[1.0], sum_F_err=[0.0], bound_lemma5=[100.0]).assign(
        algorithm="hedge", cell_id="h0"
    )
    twice = df.iloc[[1]]  # a cell shared by two experiments: counted once
    rec = lemmas.check_lemma5(
        {"proof": pd.concat([df, other, twice], ignore_index=True)}, {}, ["agg/proof.parquet"]
    )
    assert rec["claim"] == "L5"
    assert rec["title"] == "Lemma 5: sum_m F_m <= 200 log K/gap + 4 log K/eta"
    assert rec["threshold"] == "exact sum_m F_m + error <= the bound in every cell"
    assert rec["inputs"] == ["agg/proof.parquet"]
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] == pytest.approx(1.5)
    assert rec["ci_low"] == pytest.approx(29.7 / 20)
    assert rec["ci_high"] == pytest.approx(30.3 / 20)
    assert rec["summary"] == (
        "Over 3 exact rps cells the largest exact left side / bound is 1.5 (K=16, gap=0.125, "
        "eps=0.25); the smallest is 0.4568; 1 cells exceed the bound beyond their numerical "
        "error bounds; the largest relative error bound is 0.012."
    )
    first, second, third = rec["cells"]  # by decreasing ratio
    assert first == {
        "experiment": "grid",
        "K": 16,
        "gap": 0.125,
        "epsilon": 0.25,
        "eta": 0.125,
        "lhs": 30.0,
        "lhs_err": 0.3,
        "rhs": 20.0,
        "ratio": 1.5,
        "ratio_high": pytest.approx(30.3 / 20),
        "verdict": "FAIL",
    }
    assert (second["ratio"], third["ratio"]) == (pytest.approx(80 / 90), 0.45678)
    assert (second["verdict"], third["verdict"]) == ("PASS", "PASS")


def test_lemma4_reads_the_limit_where_known_and_its_bound_with_four_errors():
    """Row 0: lim Reg = 2 (err 0.1) against 1 + 4 sum F = 10 (err 4 * 0.5): ratio 0.2, high
    2.1 / 8; row 1: no limit, Reg = 0.5 (err 0.1) against 1 (err 4): rhs - err <= 0, so the
    upper limit is infinite and the cell INCONCLUSIVE (low = 0.4 / 5)."""
    df = _proof(
        regret_limit=[2.0, np.nan],
        regret_limit_err=[0.1, np.nan],
        regret=[1.5, 0.5],
        regret_err=[0.2, 0.1],
        bound_lemma4=[10.0, 1.0],
        sum_F_err=[0.5, 1.0],
    )
    tab = lemmas.step_table(df, "L4")
    np.testing.assert_allclose(tab["lhs"], [2.0, 0.5])
    np.testing.assert_allclose(tab["rhs_err"], [2.0, 4.0])
    np.testing.assert_allclose(tab["ratio_high"], [2.1 / 8, np.inf])
    np.testing.assert_allclose(tab["ratio_low"], [1.9 / 12, 0.4 / 5])
    assert list(tab["verdict"]) == ["PASS", "INCONCLUSIVE"]
    rec = lemmas.check_lemma4({"proof": df}, {}, [])
    assert rec["verdict"] == "INCONCLUSIVE"
    assert rec["ci_high"] is None  # infinite: JSON null


def test_lemma_without_proof_rows_says_so():
    rec = lemmas.check_eq6({}, {}, ["agg/proof.parquet"], "hedge")
    assert rec["claim"] == "L5b"
    assert rec["summary"] == "No exact hedge cells with proof terms."
    assert rec["inputs"] == ["agg/proof.parquet"]
    assert rec["algorithm"] == "hedge"
    assert rec["verdict"] == "INCONCLUSIVE"


def test_the_proof_step_table_has_no_index_column():
    tab = lemmas.step_table(_proof_rows([1.0, 2.0]), "L5")
    assert "index" not in tab.columns
    assert list(tab.index) == [0, 1]


def test_one_failing_cell_of_many_fails_the_claim():
    rows = [proof_row(i, regret=100.0) for i in range(50)] + [proof_row(50, regret=121.01)]
    record = check_step(pd.DataFrame(rows), "L4")
    assert record["verdict"] == "FAIL"
    assert record["statistic"] == pytest.approx(121.01 / 121.0, rel=1e-5)
    assert record["cells"][0]["verdict"] == "FAIL"  # worst first


def test_checks_read_only_their_algorithm_and_count_shared_cells_once():
    rows = [
        proof_row(0),
        {**proof_row(0), "experiment": "actions"},
        proof_row(1, "rps_eta_logk", sum_F=5e3),
    ]
    df = pd.DataFrame(rows)
    own = check_step(df, "L5")
    assert own["verdict"] == "PASS" and len(own["cells"]) == 1
    assert check_step(df, "L5", algorithm="rps_eta_logk")["verdict"] == "FAIL"
    assert check_step(df, "L5", algorithm="rps_full_prefix")["verdict"] == "INCONCLUSIVE"


def _verdict(claim, *rows):
    return check_step(pd.DataFrame(list(rows)), claim)["verdict"]


@pytest.mark.parametrize(
    ("values", "verdict"),
    [
        ({"regret": 120.0}, "PASS"),
        ({"regret": 122.0}, "FAIL"),
        # the error bounds straddle the bound: neither side can be asserted
        ({"regret": 121.0, "regret_err": 0.5}, "INCONCLUSIVE"),
        # exactly at the bound once both error bounds are counted: <= holds
        ({"regret": 121.0 - 2e-6, "regret_err": 1e-6, "sum_F_err": 0.25e-6}, "PASS"),
        # the limit over T, when known, is the left side (not Reg_T at the horizon)
        ({"regret": 100.0, "regret_limit": 121.5, "regret_limit_err": 1e-6}, "FAIL"),
    ],
)
def test_lemma4_verdicts_at_and_around_the_bound(values, verdict):
    assert _verdict("L4", proof_row(**values)) == verdict


@pytest.mark.parametrize(
    ("claim", "column", "bound"),
    [
        ("L5", "sum_F", "bound_lemma5"),
        ("L5a", "small_gap", "bound_eq5"),
        ("L5b", "large_gap", "bound_eq6"),
    ],
)
def test_lemma5_and_its_halves_pass_below_and_fail_above(claim, column, bound):
    at = proof_row()[bound]
    assert _verdict(claim, proof_row(**{column: 0.5 * at})) == "PASS"
    assert _verdict(claim, proof_row(**{column: at * (1 + 1e-4)})) == "FAIL"
    assert _verdict(claim, proof_row(**{column: at, f"{column}_err": 1e-3})) == "INCONCLUSIVE"


def test_the_lemma_claims_name_their_negative_controls():
    """L4's control is rps_short_prefix; Lemma 5 and both halves of its proof have the eps-DP
    rps_uniform_mix, whose own terms break them (not a bound evaluated at another eta)."""
    controls = {c.id: c.controls for c in lemmas.RECORDS}
    assert controls == {
        "L4": ("rps_short_prefix",),
        "L5": ("rps_uniform_mix",),
        "L5a": ("rps_uniform_mix",),
        "L5b": ("rps_uniform_mix",),
    }


def _exact_rows():
    """Proof-table rows (:func:`privdtol.pipeline.proof.flat_row`) of rps and rps_uniform_mix
    on three Bernoulli instances at K = 4, gap 1/8: eps = 1 (eta 1/8: every gap small), eps =
    1/64 (eta 1/128: every gap large) and a staircase at eps = 1/16 (eta 1/32: the gap 1/8
    small, the others large)."""
    from privdtol.engine.exact.proof import proof_terms
    from privdtol.environments import instance_means
    from privdtol.pipeline.proof import flat_row

    rows = []
    for inst, eps in (("standard", 1.0), ("standard", 1 / 64), ("staircase", 1 / 16)):
        means = instance_means(4, 1 / 8, None, inst)
        for alg in ("rps", "rps_uniform_mix"):
            terms = proof_terms(alg, means, eps)
            cell = {"cell_id": f"{alg}-{inst}-{eps}", "cell": {"instance": inst, "mu_best": None}}
            rows.append({"experiment": "grid", **flat_row({**terms, **cell})})
    return pd.DataFrame(rows)


def test_lemma5_and_its_halves_fail_on_the_uniform_mix_own_exact_terms():
    """On exact proof terms: rps PASSes L5, L5a and L5b in every cell; rps_uniform_mix FAILs
    each in every cell where the part has an action, by a factor above 1e5 (its lower values
    sum the uniform term to m = 2^40 - 1), and PASSes only where the part is empty (0)."""
    df = _exact_rows()
    parts = {"L5": "sum_F", "L5a": "small_gap", "L5b": "large_gap"}
    for claim, column in parts.items():
        assert check_step(df, claim, "rps")["verdict"] == "PASS", claim
        rec = check_step(df, claim, "rps_uniform_mix")
        assert rec["verdict"] == "FAIL", claim
        mix = df[df["algorithm"] == "rps_uniform_mix"]
        has = mix[column] > 0
        assert has.sum() == {"L5": 3, "L5a": 2, "L5b": 2}[claim]
        for c in rec["cells"]:
            if c["lhs"] > 0:
                assert c["verdict"] == "FAIL" and c["ratio"] > 1e5, (claim, c)
            else:
                assert c["verdict"] == "PASS", (claim, c)
