"""Guards from the second fresh mutation sample of ``privdtol.analysis.claims``
(docs/testing.md): C0's list of Monte Carlo estimators, C4's form ratios' limits, C5 reading
only its own experiment and algorithm, and the proof steps' table without a stray index."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from test_mutants_claims import THRESHOLDS_C0, _agreement, _rows
from test_mutants_claims_fresh import _form_table, _proof_rows

from privdtol.analysis.claims import c0_agreement, c4_rate, c5_dependent, lemmas


def test_c0_names_every_monte_carlo_estimator_in_order():
    """Two cells, one estimated by "mc", one by "explicit": both named, sorted, comma-joined."""
    a = _agreement(1.0, 0.5, 1.0, 0.1)
    b = _agreement(1.0, 0.5, 1.0, 0.1, K=4)
    b.loc[b["estimator"] == "mc", "estimator"] = "explicit"
    rec = c0_agreement.check({"agreement": pd.concat([a, b])}, THRESHOLDS_C0, [])
    assert "(rps; Monte Carlo estimators explicit, mc)" in rec["summary"]


def test_c4_form_cells_carry_the_limits_of_their_ratio():
    """The fit is exact (ratio 1) and each cell's interval mean -+ 1.96 se over the fitted
    value: with se = 1% of the mean the ratio's limits are 1 -+ 0.0196."""
    df = _form_table()
    df["se"] = 0.01 * df["mean"]
    tab, _ = c4_rate.form_table(c4_rate.form_columns(df).reset_index(drop=True), 0.95)
    z = 1.959963984540054
    assert tab["ratio"].to_numpy() == pytest.approx([1.0] * len(tab), rel=1e-9)
    assert tab["ratio_low"].to_numpy() == pytest.approx([1 - 0.01 * z] * len(tab), rel=1e-9)
    assert tab["ratio_high"].to_numpy() == pytest.approx([1 + 0.01 * z] * len(tab), rel=1e-9)


def test_c5_reads_only_the_dependent_experiment_and_the_algorithm_checked():
    """rps within its bound on correlated losses; a correlated table of another experiment and
    the uniform control's rows in the dependent table, both far over the bound, are ignored."""
    dep = pd.concat(
        [
            pd.DataFrame(_rows("correlated", [5.0, 6.0], 0.1)),
            pd.DataFrame(_rows("correlated", [5e4, 1e5], 1.0, algorithm="uniform")),
        ]
    )
    # another cell (K = 4: not one a dedupe would merge with the dependent one)
    other = pd.DataFrame(_rows("correlated", [5e4, 1e5], 1.0)).assign(experiment="grid", K=4)
    rec = c5_dependent.check({"dependent": dep, "grid": other}, {"confidence": 0.95}, [], "rps")
    assert rec["verdict"] == "PASS"
    assert rec["statistic"] == pytest.approx(6.0 / (1 + 1728 * math.log(8)), rel=1e-5)


def test_the_proof_step_table_has_no_index_column():
    tab = lemmas.step_table(_proof_rows([1.0, 2.0]), "L5")
    assert "index" not in tab.columns
    assert list(tab.index) == [0, 1]
