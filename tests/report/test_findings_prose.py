"""Tests of :mod:`privdtol.report.findings_prose`: the summary sentences and each notebook's
takeaway come from the computed findings and refer to the notebook's claims."""

from __future__ import annotations

from privdtol.analysis.registry import CLAIMS, NOTEBOOKS, notebook_claims
from privdtol.report.claims import claim_context
from privdtol.report.findings_prose import summary_sentences, takeaway


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
