"""Tests of :mod:`privdtol.report.latex.verdict_flags`: a claim changed after its results were seen
is flagged in the verdict table with the variants of the sensitivity analysis that change its
verdict (C3: FAIL at horizon_free_c = 8 in the default run)."""

from __future__ import annotations

from privdtol.report.latex.verdict_flags import (
    changed_claims,
    design_change_cell,
    flips,
    out_of_sample,
)


def _row(claim, threshold, value, verdict, base="PASS"):
    return {
        "claim": claim,
        "threshold": threshold,
        "value": value,
        "verdict": verdict,
        "base_verdict": base,
    }


MULTIVERSE = {
    "rows": [
        _row("C3", "horizon_free_c", 8, "FAIL"),
        _row("C3", "horizon_free_c", 16, "PASS"),
        _row("C2", "confidence", 0.99, "INCONCLUSIVE"),
        _row("C4a", "exponent_range", [0.7, 1.3], "PASS"),
    ]
}


def test_the_changed_claims_are_those_disclosed():
    # the disclosures of privdtol.analysis.diagnosis.DEVIATIONS (literals: a change is added
    # there, and this list with it)
    assert changed_claims() == {"C0", "C1", "C3", "C4a", "C5", "C6", "C7"}


def test_a_changed_claim_names_the_variants_that_change_its_verdict():
    cell = design_change_cell("C3", MULTIVERSE)
    assert cell.startswith(r"\hyperref[sec:deviations]{yes}")
    assert r"FAIL at \texttt{horizon\_\allowbreak{}free\_\allowbreak{}c} = \num{8}" in cell
    assert "16" not in cell
    assert design_change_cell("C4a", MULTIVERSE).endswith("; robust")
    # without a sensitivity record it says only that the design changed
    assert design_change_cell("C3", None) == r"\hyperref[sec:deviations]{yes}"


def test_an_unchanged_claim_has_an_empty_cell_even_when_a_variant_flips_it():
    assert flips("C2", MULTIVERSE)  # C2 moves at confidence 0.99 ...
    assert design_change_cell("C2", MULTIVERSE) == ""  # ... but was never changed


def test_out_of_sample_reads_the_held_out_table():
    table = {
        "rows": [
            {"claim": "C7", "result": "yes"},
            {"claim": "C6", "result": "no"},
            {"claim": "C1", "result": "not run"},
        ]
    }
    assert out_of_sample("C7", table) == "yes"
    assert out_of_sample("C6", table) == "no"
    assert out_of_sample("C1", table) == "not run"
    assert out_of_sample("C3", table) == "not run"  # changed, but no row: not confirmed
    assert out_of_sample("C7", None) == "not run"  # no table (a build without the job)
    assert out_of_sample("C2", table) == ""  # never changed


def test_the_design_change_cell_says_whether_it_is_confirmed():
    cell = design_change_cell("C7", None, "yes")
    assert cell == r"\hyperref[sec:deviations]{yes}; out of sample: yes"
