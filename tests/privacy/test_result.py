"""Tests of :mod:`privdtol.privacy.result`: the verdict of an exact audit, a violation when the
privacy loss exceeds eps by more than rounding (TOL), and whether it is within Lemma 3's
per-selection bound 2 eta."""

from __future__ import annotations

import pytest

from privdtol.algorithms import make_algorithm
from privdtol.privacy import mechanisms, result


def test_exact_verdict_at_the_lemma3_bound_and_over_eps():
    """rps at eps = 1: Lemma 3's bound is 2 eta = 1/4; a loss exactly at bound + TOL is within
    it, a loss over eps is a violation, named so."""
    alg = mechanisms.make_audited("rps", 1.0)
    edge = result.exact_verdict(alg, 0.25 + result.TOL)
    assert edge["within_selection_bound"] is True and edge["violation"] is False
    assert edge["verdict"] == "within eps"
    over = result.exact_verdict(alg, 1.5)
    assert (over["violation"], over["verdict"]) == (True, "violation")
    assert over["within_selection_bound"] is False


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


@pytest.mark.parametrize(
    ("excess", "violation"), [(0.0, False), (1e-12, False), (1e-7, True), (1e-4, True)]
)
def test_an_exact_audit_flags_any_loss_beyond_rounding_over_eps(excess, violation):
    alg = make_algorithm("rnm_ftnl", 0.5)  # Laplace report-noisy-min: the bound is eps itself
    out = result.exact_verdict(alg, 0.5 + excess)
    assert out["violation"] is violation
    assert out["within_selection_bound"] is not violation
    assert out["verdict"] == ("violation" if violation else "within eps")
    rps = result.exact_verdict(make_algorithm("rps", 1.0), 0.25 + excess)  # 2 eta = 1/4 < eps = 1
    assert (rps["violation"], rps["within_selection_bound"]) == (False, not violation)
