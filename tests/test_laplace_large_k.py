"""The exact report-noisy-min (Laplace) law at large K (issue 22): the flattening of the Laplace
competitors' curves at K >= 2^14 in the paper configuration is a defect of the exact engine
there, found by an independent quadrature; the report flags those cells
(:data:`privdtol.analysis.findings.LAPLACE_EXACT_K_LIMIT`).  If the known-defect test below
starts failing, the engine was fixed: drop the limit and the report's caveat."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import integrate

from privdtol.analysis.findings import LAPLACE_EXACT_K_LIMIT, laplace_large_k
from privdtol.engine.exact.spec import _Spec
from privdtol.environments import instance_means
from privdtol.report.findings import large_k_sentence


def quadrature_p_best(K: int, eps: float, mu1: float = 0.25, mu: float = 0.75) -> float:
    """P(argmin_j (S_j - Z_j) = best) after one round (S_j ~ Bernoulli), Z_j Laplace(2/eps),
    by scipy's adaptive quadrature of f_best(v) P(V > v)^(K - 1) over v = S - Z, with
    breakpoints around v = -b ln K where the integrand sits.  Shares no code with the engine."""
    b = 2 / eps

    def sf(x):  # P(W > x), W Laplace(b)
        return 1 - 0.5 * np.exp(x / b) if x < 0 else 0.5 * np.exp(-x / b)

    def pdf(x):
        return np.exp(-abs(x) / b) / (2 * b)

    def f(v):
        dens = (1 - mu1) * pdf(v) + mu1 * pdf(v - 1)
        return dens * ((1 - mu) * sf(v) + mu * sf(v - 1)) ** (K - 1)

    c = -b * np.log(K)
    pts = [c - 20 * b, c - 5 * b, c, c + 5 * b, 0.0, 1.0, 1 + 20 * b]
    total = sum(
        integrate.quad(f, lo, hi, limit=400, epsabs=1e-16, epsrel=1e-10)[0]
        for lo, hi in itertools.pairwise(pts)
    )
    return total + integrate.quad(f, -np.inf, pts[0])[0] + integrate.quad(f, pts[-1], np.inf)[0]


def exact_p_best(K: int, eps: float) -> float:
    spec = _Spec("rnm_ftnl", instance_means(K, 0.5, None, "standard"), eps, "bernoulli")
    return float(spec.law(1)[0][0])


def test_exact_laplace_law_matches_the_quadrature_below_the_limit():
    """K = 2^13, eps = 2^-5 (b = 64), one round: P(best) = 1.2304e-4, about 1/K."""
    q = quadrature_p_best(1 << 13, 0.03125)
    assert q == pytest.approx(1.2304e-4, rel=1e-3)
    assert exact_p_best(1 << 13, 0.03125) == pytest.approx(q, rel=1e-6)


def test_known_defect_of_the_exact_laplace_law_at_the_limit():
    """K = 2^14 = LAPLACE_EXACT_K_LIMIT: the quadrature gives 6.151e-5, the exact engine 1."""
    assert LAPLACE_EXACT_K_LIMIT == 1 << 14
    q = quadrature_p_best(LAPLACE_EXACT_K_LIMIT, 0.03125)
    assert q == pytest.approx(6.1514e-5, rel=1e-3)
    assert exact_p_best(LAPLACE_EXACT_K_LIMIT, 0.03125) > 0.5  # the defect the report flags


def test_the_report_flags_exact_laplace_cells_at_large_k():
    rows = pd.DataFrame(
        {
            "algorithm": ["rnm_ftnl", "wu_wang", "rnm_ftnl", "rps", "rnm_ftnl"],
            "K": [1 << 16, 1 << 14, 1 << 12, 1 << 16, 1 << 16],
            "gap": [0.5] * 5,
            "epsilon": [0.03125] * 5,
            "runs": [0, 0, 0, 0, 200],  # the last is Monte Carlo: not affected
        }
    )
    big = laplace_large_k(rows)
    assert big == {"n": 2, "K": [1 << 14, 1 << 16]}
    text = large_k_sentence({"laplace_large_k": big})
    assert "2 of the exact Laplace-competitor cells" in text and "$2^{14}$, $2^{16}$" in text
    assert large_k_sentence({"laplace_large_k": {"n": 0, "K": []}}) == ""
