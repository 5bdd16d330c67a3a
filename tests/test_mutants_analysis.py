"""Guards found by mutation testing of ``privdtol.analysis`` (``make mutation GROUPS=analysis``,
docs/testing.md): the check records' one-line defects, a diagnosis word for word, the
registry's lookups of a config without experiments, the final rows of cells with gaps."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis import cells, diagnosis, records, registry, slack
from privdtol.errors import InputError


def _record(verdict="INCONCLUSIVE", **kw):
    return records.make_check(
        records.Heading("C2", "t", "s", "thr"),
        1.5,
        1.0,
        2.0,
        verdict,
        "sum",
        cells=[{"K": 2, "verdict": verdict}],
        **kw,
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "{",
            "not readable JSON (Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1))",
        ),
        (
            json.dumps({**_record(), "statistic": "x"}),
            "key 'statistic' has type str (allowed: number or null)",
        ),
        (
            json.dumps({**_record(), "verdict": "MAYBE"}),
            "key 'verdict' is 'MAYBE' (allowed: PASS, FAIL, INCONCLUSIVE)",
        ),
    ],
)
def test_load_check_names_the_file_and_the_defect(tmp_path, text, problem):
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        records.load_check(path)
    assert str(err.value) == f"results: {path}: {problem}"


def test_a_sub_check_quotes_its_claim():
    quote, source = records.claim_words("C5/C2/beta")
    assert quote.startswith("Although the open problem is stated for the usual product-over")
    assert source == "Section 1 (Contributions), on Theorem 1"


def test_diagnosis_of_a_wide_interval_and_of_an_uncaught_control():
    assert diagnosis.diagnose(_record()) == {
        "cells": "1 of 1: K=2",
        "cause": "interval too wide: the statistic [1, 2] straddles the threshold (thr)",
        "follow_up": "more cells along the series (a wider grid) or more Monte Carlo runs in "
        "the cells named; exact cells have no sampling noise, so their width is lack of fit",
    }
    for low, high in ((None, 2.0), (1.0, None), (None, None)):
        cause = diagnosis.diagnose(dict(_record(), ci_low=low, ci_high=high))["cause"]
        assert cause == "interval too wide: the statistic straddles the threshold (thr)"
    control = diagnosis.diagnose(_record("PASS", algorithm="uniform", control_of="C2"))
    assert control["cause"] == (
        "the negative control uniform passes the check [1, 2]: the check cannot tell it from "
        "the paper's algorithm on this configuration"
    )
    assert control["follow_up"] == (
        "a grid that reaches the regime where the control's defect shows (see its docstring)"
    )


def test_registry_reads_slices_and_a_config_without_experiments():
    assert registry.experiment_algorithms({}) == {} and registry.experiment_envs({}) == {}
    config = {
        "experiments": [
            {
                "name": "x",
                "algorithms": ["rps"],
                "env": "bernoulli",
                "slices": [{"algorithms": ["ftl"], "env": "beta"}, {"name": "plain"}],
            }
        ]
    }
    assert registry.experiment_algorithms(config) == {"x": {"rps", "ftl"}}
    assert registry.experiment_envs(config) == {"x": {"bernoulli", "beta"}}


def test_proof_slack_without_proof_terms():
    assert slack.proof_slack({}) == {"available": False, "text": "No proof terms in this run."}


def test_final_rows_keep_cells_with_gaps_in_their_keys():
    """A non-private algorithm has no epsilon (NaN): its cell is a cell like any other; the
    rows come back in table order with a fresh index and the table's columns only."""
    df = pd.DataFrame(
        {
            "algorithm": ["ftl", "ftl", "rps", "rps"],
            "K": [2, 2, 2, 2],
            "epsilon": [np.nan, np.nan, 1.0, 1.0],
            "horizon": [7, 15, 15, 7],
            "mean": [1.0, 2.0, 3.0, 4.0],
        },
        index=[10, 11, 12, 13],
    )
    out = cells.final_rows(df)
    assert list(out.columns) == list(df.columns)
    assert out.index.tolist() == [0, 1]
    assert out["mean"].tolist() == [2.0, 3.0]


def test_a_diagnosed_cell_is_labelled_by_its_loss_model_too():
    cell = {"env": "beta", "K": 2, "gap": 0.5, "kappa": 5.0, "verdict": "FAIL"}
    rec = dict(_record("FAIL"), cells=[cell])
    assert diagnosis.diagnose(rec)["cells"] == "1 of 1: env=beta, K=2, gap=0.5, kappa=5"


def test_null_regret_plateaus_at_the_papers_time_scale():
    """Reg_T = min(T gap, R (1 - exp(-T / t*))), t* = 2 max(log K / gap^2, log K / (eta gap))
    (the power model's null): K = 4, gap = 1/2; without privacy R = log 4 / gap = 2 log 4 and
    t* = 8 log 4; at eps = 1 (eta = 1/8) R = 2 log 4 + 8 log 4 and t* = 32 log 4."""
    from privdtol.analysis.power import null_regret

    lk = np.log(4.0)
    T = np.array([1.0, 10.0, 100.0])
    got = null_regret({"a": 1.0, "b": 0.0, "c": 0.0}, 4, 0.5, np.inf, T)
    np.testing.assert_allclose(got, np.minimum(T / 2, 2 * lk * -np.expm1(-T / (8 * lk))))
    got = null_regret({"a": 1.0, "b": 1.0, "c": 0.0}, 4, 0.5, 1.0, T)
    np.testing.assert_allclose(got, np.minimum(T / 2, 10 * lk * -np.expm1(-T / (32 * lk))))
