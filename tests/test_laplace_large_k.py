"""The exact report-noisy-min (Laplace) law at large K (issue 22): an independent quadrature
found the exact engine's law wrong at K >= 2^14 (P(best) = 1 with an error bound below 1e-13
after one round, where the quadrature gives 6.2e-5): its left half-line was one Gauss-Kronrod
piece, and with n actions the integrand sits near v ~ 1/n, below the rule's first node, so all
15 nodes saw zeros and the piece stopped with no error.  Engine version 2 splits that piece
dyadically; these tests compare the law with the quadrature on both sides of the old limit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate

from privdtol.engine.exact.spec import _Spec
from privdtol.environments import instance_means


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


def exact_p_best(K: int, eps: float) -> tuple[float, float]:
    spec = _Spec("rnm_ftnl", instance_means(K, 0.5, None, "standard"), eps, "bernoulli")
    P, err = spec.law(1)
    return float(P[0]), float(err[0])


@pytest.mark.parametrize(
    "K, eps, expected",
    [(1 << 13, 2**-5, 1.2304e-4), (1 << 14, 2**-5, 6.1514e-5), (1 << 16, 2**-5, 1.5378e-5)],
)
def test_exact_laplace_law_matches_the_quadrature_at_large_k(K, eps, expected):
    """One round, P(best) about 1/K: the quadrature's value pinned, the engine's within 1e-6
    of it, its error bound small (engine version 1 gave 1 at K = 2^14 and 2^16)."""
    q = quadrature_p_best(K, eps)
    assert q == pytest.approx(expected, rel=1e-3)
    p, err = exact_p_best(K, eps)
    assert p == pytest.approx(q, rel=1e-6)
    assert err < 1e-5 * p  # its bound: an absolute floor of about 1e-13 K per group
