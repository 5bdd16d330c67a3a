"""The report's number style, typeset mathematics and table shapes, without running LaTeX: exact
dyadic values and horizons as powers of two, three significant figures, the analysis layer's
ASCII mathematics typeset, tables sorted/pivoted with their constant columns in the caption,
the size/power record and the diagnoses rendered, the summary's findings generated from the
numbers, the notebooks' generated notes and index."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, NOTEBOOKS, notebook_claims
from privdtol.environments import MODELS
from privdtol.report.claims import claim_context, failure_items, power_tex
from privdtol.report.config_tables import models_tex
from privdtol.report.findings import summary_sentences, takeaway
from privdtol.report.latex import fmt_int_or_pow2, fmt_num, mathify, plain_num
from privdtol.report.tables import constant_columns, dyadic_column, shape_table

#: ASCII stand-ins that must not survive mathify (outside \texttt)
ASCII = ("eps", "eta", "<=", ">=", "log K/gap", "mu_", "kappa", "1073741823")


@pytest.mark.parametrize(
    "value, text",
    [
        (0.03125, r"\ensuremath{2^{-5}}"),
        (0.0078125, r"\ensuremath{2^{-7}}"),
        (0.25, r"\num{0.25}"),  # 1/2 and 1/4 stay decimals
        ((1 << 30) - 1, r"\ensuremath{2^{30}-1}"),
        (16383, r"\ensuremath{2^{14}-1}"),
        (3780, r"\num{3780}"),  # a count: exact
        (2921.79, r"\num{2920}"),  # a statistic: three figures
        (130697.0, r"\num{131000}"),
        (0.1446243, r"\num{0.145}"),
        (1.004, r"\num{1.00}"),  # figures kept when they carry information
        (None, "n/a"),
    ],
)
def test_one_number_style(value, text):
    assert fmt_num(value) == text


def test_horizons_and_plain_numbers():
    assert fmt_int_or_pow2(511) == r"\num{511}"  # below 2^10 written out
    assert plain_num(0.03125) == "2⁻⁵" and plain_num(1073741823, horizon=True) == "2³⁰−1"
    assert plain_num(0.141234) == "0.141" and plain_num(8) == "8"


@pytest.mark.parametrize(
    "text, wanted",
    [
        ("1.000000 x eps", [r"\num{1} $\times$ $\varepsilon$"]),
        ("loss <= bound, eta = eps/2", [r"$\le$", r"$\eta$", r"$\varepsilon$/2"]),
        ("1 + 800 log K/gap + 16 log K/eta", [r"$\log K$/$\Delta_{\min}$"]),
        ("at K=2, gap=0.00781, eps=0.0156, T0=5.24e+05", [r"$\Delta_{\min} = 2^{-7}$"]),
        ("ratio T=1073741823 / T=1048575", [r"$T = \ensuremath{2^{30}-1}$"]),
        (
            "M_r = 2^r; X_{t,j} mu_j kappa",
            [r"$M_r$", r"$X_{t,j}$", r"$2^{r}$", r"$\mu_j$", r"$\kappa$"],
        ),
        ("2.92e+03 [2.71e+03, 3.13e+03]", [r"\num{2920} [\num{2710}, \num{3130}]"]),
    ],
)
def test_mathify_typesets_ascii_mathematics(text, wanted):
    out = mathify(text)
    for piece in wanted:
        assert piece in out, (out, piece)
    bare = out
    for symbol in (r"\varepsilon", r"\eta", r"\kappa", r"\mu"):
        bare = bare.replace(symbol, "")
    for ascii_ in ASCII:
        assert ascii_ not in bare, (ascii_, out)


def test_every_claim_and_model_is_typeset_once():
    for claim in CLAIMS:  # a claim without an entry (a new one) falls back to escaped text
        ctx = claim_context(claim, None)
        assert ctx["title"] and ctx["quote"] and ctx["stat_label"]
    for claim, tex in CLAIMS_TEX.items():
        assert claim in CLAIMS
        assert "eps" not in tex.title.replace(r"\varepsilon", "")
    table = models_tex()
    assert all(getattr(cls, "law_tex", "") in table for cls in MODELS.values())


def test_tables_drop_constant_columns_sort_and_pivot():
    df = pd.DataFrame(
        {
            "algorithm": ["rps_full_prefix", "rps_uncapped"] * 2,
            "K": [8, 8, 8, 8],
            "gap": [0.25, 0.25, 0.0625, 0.0625],
            "epsilon": [1.0] * 4,
            "regret": [1.0, 2.0, 3.0, 4.0],
            "ratio_to_rps": [0.7, 0.5, 0.72, 0.9],
            "ci_low": [0.6] * 4,
            "ci_high": [0.8] * 4,
        }
    )
    shown, const = shape_table(df, "ablations")
    assert const == ["K", "epsilon"]  # stated once, in the caption
    assert list(shown["gap"]) == [0.0625, 0.25]  # sorted, one row per cell
    assert [c.split(":")[0] for c in shown.columns[1:]] == ["ratio_to_rps"] * 2  # pivoted
    assert constant_columns(df.head(1)) == []
    # a gap or privacy axis: every fraction as a power of two once one is 1/8 or less
    assert dyadic_column([0.25, 0.0625, 1.0]) and not dyadic_column([0.25, 0.5, 0.3])


def test_power_record_and_diagnosis_are_rendered():
    power = {
        "noise": 0.05,
        "replicates": 200,
        "rows": [
            {
                "claim": "C4a",
                "check": "exponent of 1/gap",
                "control": "rps_short_prefix",
                "false_fail_rate": 0.015,
                "control_fail_rate": 0.98,
            }
        ],
    }
    text = power_tex(power)
    assert r"\num{0.015}" in text and r"\num{0.98}" in text and "200 synthetic tables" in text
    assert "1/$\\Delta_{\\min}$" in text
    assert "not available" in power_tex(None)
    record = {
        "verdict": "FAIL",
        "statistic": 0.7,
        "ci_low": 0.6,
        "ci_high": 0.8,
        "threshold": "CI within [0.8, 1.2]",
        "summary": "Slope 0.7.",
        "cells": [],
        "diagnosis": {"cells": "K=2, gap=0.5", "cause": "eta <= 1/8 binds", "follow_up": ""},
    }
    items = failure_items([claim_context("C4a", record)], [], {"C4a": record})
    assert set(items[0]["diagnosis"]) == {"cells", "cause"}
    assert r"$\eta$ $\le$" in items[0]["diagnosis"]["cause"]
    # a control not caught is listed with its own diagnosis and refers to its claim's statement
    from privdtol.report.claims import control_context

    missed = {**record, "verdict": "PASS", "control_of": "C4a", "diagnosis": {"cause": "x"}}
    ctrl = control_context("C4a", "rps_short_prefix", missed)
    items = failure_items([], [ctrl], {"C4a--rps_short_prefix": missed})
    assert items[0]["ref"] == "C4a" and items[0]["diagnosis"] == {"cause": "x"}


def test_summary_and_takeaways_come_from_the_numbers():
    found = {
        "competitors": {
            "regimes": {
                "statistical": {"n": 3, "median": 1.5, "max": 2.0, "min": 1.1, "rps_best": 1},
            }
        },
        "prefix_cost": {"available": True, "n": 4, "median": 1.38, "max": 1.39},
        "cap_cost": {"available": True, "n": 4, "median": 1.3, "max": 5.58},
    }
    text = " ".join(summary_sentences(found, {}))
    assert "in 2 of the 3 cells" in text and r"\num{5.58}" in text and r"\num{1.38}" in text
    claims = {c: claim_context(c, None) for c in CLAIMS}
    for name in NOTEBOOKS:
        sentence = takeaway(name, claims, found)
        for claim in notebook_claims(name):
            assert f"claim:{claim}" in sentence


def test_notebook_notes_and_index_are_generated(tmp_path):
    from privdtol.plotting.narrative import display_table, figure_note
    from privdtol.report.notebook_index import render_index

    checks = tmp_path / "checks"
    checks.mkdir()
    name = next(n for n in NOTEBOOKS if notebook_claims(n))
    claim = notebook_claims(name)[0]
    record = {"verdict": "INCONCLUSIVE", "summary": "hand-written 5e1f"}
    (checks / f"{claim}.json").write_text(json.dumps(record))
    note = figure_note(name, checks)
    assert "hand-written 5e1f" in note and "INCONCLUSIVE" in note
    assert f"Figure {NOTEBOOKS[name].figure}" in note and "replication_report.pdf" in note
    df = pd.DataFrame({"K": [2, 8], "slope": [0.9876543, np.nan], "axis": ["1/gap", "1/eps"]})
    html = display_table(df.assign(algorithm="rps"), "rates").to_html()
    assert "0.988" in html and "0.9876543" not in html
    index = render_index(tmp_path)
    assert all(f"fig_{n}" in index for n in NOTEBOOKS)
    assert "INCONCLUSIVE" in index and "not run" in index


def test_a_new_claim_is_handled_from_the_registry(monkeypatch):
    """A claim the registry gains (here a made-up C9) without a typeset entry or a
    figure: its plain text is typeset, and nothing refers to a missing figure."""
    from privdtol.analysis.registry import Claim
    from privdtol.report.claims import claim_context
    from privdtol.report.tables import verdict_table
    from privdtol.report.templating import fill_template

    claim = Claim(
        "C9",
        "Exact and Monte Carlo values agree (eps <= 1)",
        "engine",
        "exact == MC within 4 se",
        "largest |exact - MC| / se",
        ("grid",),
        ("confidence",),
        "x:y",
        "no_such_notebook",
    )
    monkeypatch.setitem(CLAIMS, "C9", claim)
    record = {
        "verdict": "PASS",
        "statistic": 2.1,
        "ci_low": None,
        "ci_high": None,
        "threshold": "<= 4",
        "summary": "ok.",
        "cells": [],
    }
    ctx = claim_context("C9", record)
    assert r"$\varepsilon$ $\le$ 1" in ctx["title"] and ctx["figure"] is None
    ctx["controls"], ctx["quote_of"] = [], "C9"
    text = fill_template("claims.tex.j2", claims=[ctx])
    assert r"\label{claim:C9}" in text and "fig:" not in text
    assert "fig:" not in verdict_table([ctx])
