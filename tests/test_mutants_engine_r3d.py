"""Guards for two survivors of the engine's third fresh sample (docs/testing.md, mutation
testing) that had first timed out under load: Lemma 4's limit of the regret charges half of
the tail bound of the unsummed prefixes (:func:`regret_limit`), and :func:`sum_terms` reports
Lemma 5's bound under the key ``lemma5`` (Section 4 of Cesari & Colomboni)."""

from __future__ import annotations

import math

import pytest

from privdtol.engine.exact.proof import regret_limit, sum_terms

U = 2.0**-53


def test_regret_limit_charges_half_the_tail_bound_by_hand():
    """means (0, 1/2): E[Delta_(A_0)] = 1/4; F_1's block 0.1, the next 0.05, tail bound 0.02:
    lim Reg = 1/4 + 2 (0.1) + 4 (0.05 + 0.02/2) = 0.69; its error bound 2 (0.01) + 4 (0.001)
    + 2 (0.02) + 8 U (2 blocks) (0.69)."""
    sums = {
        "means": [0.0, 0.5],
        "blocks": [{"sum": 0.1, "error_bound": 0.01}, {"sum": 0.05, "error_bound": 0.001}],
        "tail_bound": 0.02,
    }
    value, err = regret_limit(sums)
    assert value == pytest.approx(0.69, rel=1e-14, abs=0)
    assert err == pytest.approx(0.064 + 16 * U * 0.69, rel=1e-14, abs=0)


def test_sum_terms_reports_lemma5_and_theorem1_under_their_keys():
    """rps on deterministic (0.2, 0.9), eps = 1: K = 2, gap 0.7, eta = min(1/2, 1/8) = 1/8, so
    Lemma 5's bound is 200 ln 2/0.7 + 4 ln 2/(1/8) and Theorem 1's 1 + 800 ln 2/0.7 +
    16 ln 2/(1/8)."""
    out = sum_terms("rps", [0.2, 0.9], 1.0, "deterministic")["bounds"]
    ln2 = math.log(2.0)
    assert list(out) == ["lemma4", "lemma5", "eq5", "eq5_groups", "eq6", "drift", "theorem1"]
    assert out["lemma5"] == pytest.approx(200 * ln2 / 0.7 + 32 * ln2, rel=1e-12)
    assert out["theorem1"] == pytest.approx(1 + 800 * ln2 / 0.7 + 128 * ln2, rel=1e-12)
