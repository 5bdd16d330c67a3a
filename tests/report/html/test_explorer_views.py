"""Tests of :mod:`privdtol.report.html.explorer_views`: the explorer's claims table (paper claims
and diagnostics told apart by the registry's flag, every control with its verdict) and the data of
its views (privacy audit, proof slack, worst-case searches) from small synthetic tables; bad tables
are one line naming the file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from support.explorer_tables import privacy_table, searches_table, slack_proof_row
from support.records import check_json

from privdtol.analysis.findings.slack import slack_table
from privdtol.analysis.registry import CLAIMS, control_id, diagnostics, paper_claims
from privdtol.errors import InputError
from privdtol.report.html import explorer_views as ev
from privdtol.report.html.explorer import LINKS


# ----------------------------------------------------------------------------- claims
def test_claims_are_labelled_paper_or_diagnostic_by_the_registry(tmp_path):
    rows = [r for r in ev.claims(tmp_path, LINKS) if r["control"] is None]
    assert [r["id"] for r in rows] == list(CLAIMS)
    assert [r["id"] for r in rows if r["diagnostic"]] == diagnostics()
    assert [r["id"] for r in rows if not r["diagnostic"] and not r["cited"]] == paper_claims()
    assert [r["id"] for r in rows if r["cited"]] == ["H1", "W1"]
    by_id = {r["id"]: r for r in rows}
    # the registry's reason is carried (the page shows it on hover); C1 is the paper's
    assert by_id["C0"]["diagnostic"] == CLAIMS["C0"].diagnostic != ""
    assert {"C4a", "C4b", "C4c"} <= {r["id"] for r in rows if r["diagnostic"]}
    assert by_id["C1"]["diagnostic"] == ""


def test_every_control_follows_its_claim_with_its_verdict(tmp_path):
    (tmp_path / "C1.json").write_text(json.dumps(check_json("C1", "PASS")))
    control = {**check_json("C1", "FAIL"), "control_of": "C1", "algorithm": "rps_eta_eps"}
    (tmp_path / "C1--rps_eta_eps.json").write_text(json.dumps(control))
    rows = ev.claims(tmp_path, LINKS)
    ids = [r["id"] for r in rows]
    expected = [
        i for c in CLAIMS.values() for i in [c.id, *(control_id(c.id, a) for a in c.controls)]
    ]
    assert ids == expected
    by_id = {r["id"]: r for r in rows}
    eta, prefix = by_id["C1--rps_eta_eps"], by_id["C1--rps_data_prefix"]
    assert (eta["claim"], eta["control"], eta["expected"]) == ("C1", "rps_eta_eps", "FAIL")
    assert eta["verdict"] == "FAIL" and eta["href"] == "../checks/C1--rps_eta_eps.json"
    # no record: not run, no link
    assert prefix["verdict"] is None and prefix["href"] is None
    assert by_id["C1"]["verdict"] == "PASS" and by_id["C1"]["expected"] is None
    assert by_id["C3"]["verdict"] is None


# ----------------------------------------------------------------------------- privacy
def test_privacy_view_gives_the_largest_loss_per_algorithm_audit_and_epsilon():
    algs = ev.privacy_view(privacy_table())["algorithms"]
    assert [a["algorithm"] for a in algs] == ["rps", "rps_eta_eps"]  # controls last
    rps, control = algs
    assert rps["role"] == "private" and control["role"] == "negative_control"
    assert rps["epsilon"] == [0.5, 1.0]
    assert rps["exact_selection"] == [0.125, 0.24]
    assert rps["whole_sequence"] == [None, 0.1]
    assert rps["loss"] == [0.125, 0.24] and rps["bound_selection"] == [0.25, 0.25]
    assert rps["stat_lower"] == [0.05, None] and rps["stat_upper"] == [0.3, None]
    assert rps["verdict"] == ["PASS", "PASS"]
    assert control["loss"] == [1.6] and control["verdict"] == ["caught"]


# ----------------------------------------------------------------------------- proof
def test_proof_view_gives_each_step_s_factor_per_rps_cell():
    proof = pd.DataFrame(
        [
            slack_proof_row(0),  # statistical: eps 1 > gap 1/4
            slack_proof_row(1, epsilon=1 / 16, small_gap=60.0),  # privacy regime
            slack_proof_row(2, algorithm="rps_uniform_mix", regret=500.0),  # a control: not shown
        ]
    )
    view = ev.proof_view(proof)
    tab = slack_table(proof).set_index("cell_id")
    assert [c["id"] for c in view["cells"]] == ["c001", "c000"]  # by K, gap, eps
    assert [c["regime"] for c in view["cells"]] == ["privacy", "statistical"]
    for cell in view["cells"]:
        for step in view["steps"]:
            want = tab.at[cell["id"], step["key"]]
            got = cell["factors"][step["key"]]
            assert (got is None) if np.isnan(want) else got == want, step["key"]
    first = view["cells"][1]["factors"]
    assert first["lemma4"] == 121 / 99 and first["eq5"] == 1600 / 30
    assert first["eq6"] is None  # no large-gap action: eq. (6) does not apply
    assert {s["key"]: s["part_of"] for s in view["steps"]}["groups"] == "eq5"


def test_proof_view_without_rps_cells_is_none():
    assert ev.proof_view(pd.DataFrame([slack_proof_row(0, algorithm="rps_uniform_mix")])) is None


# ----------------------------------------------------------------------------- searches
def test_searches_view_gives_each_search_s_trace_and_instances():
    view = ev.searches_view(searches_table())
    assert view["order"] == ["theorem1", "lower_max", "lower_min", "eq6"]
    assert [s["id"] for s in view["searches"]] == ["s0", "s1"]  # by algorithm, K, gap, eps
    s1 = view["searches"][1]
    assert (s1["algorithm"], s1["K"], s1["evaluations"]) == ("rps", 3, 3)
    assert s1["standard_means"] == [0.375, 0.625, 0.625]
    t1, low = s1["objectives"]["theorem1"], s1["objectives"]["lower_min"]
    assert t1["trace"] == [2.0, 3.0, 2.5] and t1["value"] == 3.0 and t1["standard"] == 2.0
    assert t1["sign"] == 1 and low["sign"] == -1  # lower_min: the smallest is the most extreme
    assert low["means"] == [0.0, 0.25, 1.0] and low["description"] == "lower_min instance"
    assert t1["unseen"] == 1.5 and t1["unseen_margin"] == -0.25


# ----------------------------------------------------------------------------- inputs
def test_views_absent_are_none_and_present_are_read(tmp_path):
    privacy_table().to_parquet(tmp_path / "privacy.parquet")
    out = ev.views({"privacy": tmp_path / "privacy.parquet", "proof": None})
    assert out["proof"] is None and out["searches"] is None
    assert [a["algorithm"] for a in out["privacy"]["algorithms"]] == ["rps", "rps_eta_eps"]


@pytest.mark.parametrize("name", ["privacy", "proof", "searches"])
def test_a_missing_table_is_one_line_naming_it(tmp_path, name):
    path = tmp_path / f"{name}.parquet"
    with pytest.raises(InputError) as err:
        ev.views({name: path})
    assert str(path) in str(err.value) and "does not exist" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_table_lacking_columns_or_unreadable_is_one_line_naming_it(tmp_path):
    path = tmp_path / "searches.parquet"
    searches_table().drop(columns=["trace_ratio", "means"]).to_parquet(path)
    with pytest.raises(InputError, match=r"searches\.parquet lacks the columns means, trace_ratio"):
        ev.views({"searches": path})
    path = tmp_path / "privacy.parquet"
    path.write_text("not parquet")
    with pytest.raises(InputError) as err:
        ev.views({"privacy": path})
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_a_table_under_another_name_is_refused(tmp_path):
    privacy_table().to_parquet(tmp_path / "audit.parquet")
    with pytest.raises(InputError, match=r"is not a privacy\.parquet table"):
        ev.views({"privacy": tmp_path / "audit.parquet"})
