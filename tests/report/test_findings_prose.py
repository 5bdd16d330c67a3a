"""Tests of :mod:`privdtol.report.findings_prose`: a figure's caption ends with where the
verdicts of its claims are, never with the check itself."""

from __future__ import annotations

from privdtol.analysis.registry import CLAIMS, NOTEBOOKS, notebook_claims
from privdtol.report.findings_prose import (
    finding_label,
    finding_sentence,
    finding_tables,
    verdict_pointer,
)


def test_a_caption_points_to_the_verdict_table_of_its_claims():
    for name in NOTEBOOKS:
        pointer = verdict_pointer(name)
        claims = notebook_claims(name)
        for claim in claims:
            assert f"claim:{claim}" in pointer
        if claims and all(CLAIMS[c].diagnostic for c in claims):
            assert r"\ref{tab:diagnostics}" in pointer
        elif claims and all(CLAIMS[c].cited for c in claims):
            assert r"\ref{tab:cited}" in pointer
        elif claims:
            assert r"\ref{tab:verdicts}" in pointer
        else:  # no claim: its numbers are findings
            assert r"\ref{sec:findings}" in pointer
    # the pointer is short: it repeats no statistic, rule or estimate
    assert max(len(verdict_pointer(n).split()) for n in NOTEBOOKS) <= 12
    assert r"Table~\ref{tab:verdicts}" in verdict_pointer("horizon")
    assert r"Table~\ref{tab:diagnostics}" in verdict_pointer("rates")
    assert r"\S\ref{sec:findings}" in verdict_pointer("worst")
    assert r"Table~\ref{tab:cited}" in verdict_pointer("separation")


def test_a_finding_sentence_comes_from_its_numbers():
    found = {
        "prefix_cost": {
            "available": True,
            "n": 16,
            "median": 1.38492,
            "min": 1.37913,
            "max": 1.38876,
            "where": "",
        }
    }
    text = finding_sentence("prefix_cost", found)
    assert r"\num{1.38}" in text and "16 cells" in text and "rps\\_full\\_prefix" in text
    assert finding_sentence("prefix_cost", {}) is None


def test_a_finding_is_named_by_its_label_else_by_its_title_typeset():
    assert finding_label("theta_band") == r"The $\Theta$ band"
    assert finding_label("competitors") == "RPS against its competitors"
    # no label declared: the title, typeset (LB_T as mathematics)
    assert finding_label("lower_bound") == (
        r"regret over the explicit lower bound $\mathrm{LB}_T$, per algorithm"
    )


def test_a_findings_table_is_shown_only_when_its_numbers_are_there():
    row = {"regime": "privacy", "competitor": "best", "n": 3, "median": 1.5, "min": 1.25}
    found = {"competitors": {"table": [row | {"max": 2.0, "rps_better": 0}]}}
    (table,) = finding_tables(found)
    assert r"\label{tab:competitors}" in table
    assert r"privacy ($\varepsilon < \Delta_{\min}$) & best of them, per cell & 3" in table
    assert finding_tables({}) == [] and finding_tables(None) == []
