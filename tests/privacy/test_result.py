"""Tests of :mod:`privdtol.privacy.result`."""

from __future__ import annotations

import pytest

from privdtol.privacy import mechanisms, result

# --- from tests/test_mutants_privacy.py


def test_exact_verdict_at_the_lemma3_bound_and_over_eps():
    """rps at eps = 1: Lemma 3's bound is 2 eta = 1/4; a loss exactly at bound + TOL is within
    it, a loss over eps is a violation, named so."""
    from privdtol.privacy import mechanisms, result

    alg = mechanisms.make_audited("rps", 1.0)
    edge = result.exact_verdict(alg, 0.25 + result.TOL)
    assert edge["within_selection_bound"] is True and edge["violation"] is False
    assert edge["verdict"] == "within eps"
    over = result.exact_verdict(alg, 1.5)
    assert (over["violation"], over["verdict"]) == (True, "violation")
    assert over["within_selection_bound"] is False


# --- from tests/test_mutants_privacy_fresh.py


@pytest.mark.parametrize(
    ("loss", "violation"), [(1.0, False), (1.0 + 1e-9, False), (1.0 + 3e-9, True)]
)
def test_an_exact_verdict_at_eps_and_at_eps_plus_its_tolerance(loss, violation):
    """rps at eps = 1 (bound 2 eta = 1/4): a loss of exactly eps, or eps + TOL (1e-9), is not a
    violation; 3e-9 over eps is."""
    assert result.TOL == 1e-9
    out = result.exact_verdict(mechanisms.make_audited("rps", 1.0), loss)
    assert out["violation"] is violation
    assert out["verdict"] == ("violation" if violation else "within eps")
    assert (out["bound_selection"], out["bound_eps"]) == (0.25, 1.0)
