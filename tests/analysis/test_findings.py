"""Tests of :mod:`privdtol.analysis.findings`: the findings (measured statements that are not
claims of the paper) are declared apart from the claims, each record with its title."""

from __future__ import annotations

import pytest
from support.synthetic_regret import CONTROLS, rate_tables

from privdtol.analysis import (
    findings,
)
from privdtol.analysis.registry import (
    CLAIMS,
    FINDINGS,
)


@pytest.fixture(scope="module")
def synthetic():
    return {alg: rate_tables(alg) for alg in ("rps", *CONTROLS)}


def test_findings_are_not_claims(synthetic):
    from privdtol.analysis.findings import findings

    out = findings(synthetic["rps"])
    assert set(out) == set(FINDINGS) and not set(FINDINGS) & set(CLAIMS)
    assert out["constants"]["a"] == pytest.approx(1.2, rel=0.3)
    assert out["theta_band"]["min"] <= out["theta_band"]["max"]


def test_every_finding_record_carries_its_title():
    """Without tables every finding says it has no data, under the registry's title."""
    out = findings.findings({})
    assert {k: v["title"] for k, v in out.items()} == {k: f.title for k, f in FINDINGS.items()}
    assert out["competitors"] == {
        "title": "rps against the best private competitor, per regime",
        "available": False,
        "text": "No rate experiments.",
    }
    assert out["dependent_rate"] == {
        "title": "The rate's exponents on dependent losses (not a claim of the paper)",
        "available": False,
        "text": "No dependent experiment.",
    }
