"""Tests of :mod:`privdtol.report.latex.claims`: every claim of the registry (a new one too) and
every loss model is typeset, and a failure's diagnosis is rendered."""

from __future__ import annotations

from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX
from privdtol.environments import MODELS
from privdtol.report.latex.claims import claim_context, failure_items
from privdtol.report.latex.config_tables import models_tex


def test_every_claim_and_model_is_typeset_once():
    for claim in CLAIMS:  # a claim without an entry (a new one) falls back to escaped text
        ctx = claim_context(claim, None)
        assert ctx["title"] and ctx["quote"] and ctx["stat_label"]
    for claim, tex in CLAIMS_TEX.items():
        assert claim in CLAIMS
        assert "eps" not in tex.title.replace(r"\varepsilon", "")
    table = models_tex()
    assert all(getattr(cls, "law_tex", "") in table for cls in MODELS.values())


def test_a_failure_s_diagnosis_is_rendered():
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
    from privdtol.report.latex.claims import control_context

    missed = {**record, "verdict": "PASS", "control_of": "C4a", "diagnosis": {"cause": "x"}}
    ctrl = control_context("C4a", "rps_short_prefix", missed)
    items = failure_items([], [ctrl], {"C4a--rps_short_prefix": missed})
    assert items[0]["ref"] == "C4a" and items[0]["diagnosis"] == {"cause": "x"}


def test_a_new_claim_is_handled_from_the_registry(monkeypatch):
    """A claim the registry gains (here a made-up C9) without a typeset entry or a
    figure: its plain text is typeset, and nothing refers to a missing figure."""
    from privdtol.analysis.registry import Claim
    from privdtol.report.latex.claims import claim_context
    from privdtol.report.latex.tables import verdict_table
    from privdtol.report.latex.templating import fill_template

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
    ctx["controls"], ctx["quote_of"], ctx["diagnostic_of"] = [], "C9", "C9"
    text = fill_template("claims.tex.j2", claims=[ctx])
    assert r"\label{claim:C9}" in text and "fig:" not in text
    assert "fig:" not in verdict_table([ctx])


def test_diagnoses_say_a_shared_follow_up_once():
    from privdtol.report.latex.claims import diagnosis_groups

    wide = "more cells along the series"
    items = [
        {"label": "C4a", "run": True, "diagnosis": {"cells": "K = 4", "follow_up": wide}},
        {"label": "C7", "run": True, "diagnosis": {"follow_up": wide}},
        {"label": "C4b", "run": True, "diagnosis": {"cells": "none", "follow_up": "add it"}},
        {"label": "C1", "run": False},  # not run: nothing to diagnose
        {"label": "C5", "run": True, "diagnosis": None},
    ]
    groups = diagnosis_groups(items)
    assert [g["labels"] for g in groups] == ["C4a, C7", "C4b", "C5"]
    assert groups[0]["follow_up"] == wide
    assert groups[0]["members"] == [
        {"label": "C4a", "cells": "K = 4"},
        {"label": "C7", "cells": "none named"},
    ]
    assert groups[2]["follow_up"].startswith("none recorded")
