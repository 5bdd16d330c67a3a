"""Guards found by a third mutation sample of the exact engine (``make mutation GROUPS=engine``,
docs/testing.md): the terms of the potential's error bound (:func:`privdtol.engine.exact.
potential._log_w`), each made the largest term in turn by loosening the constant it guards
and pinned to its documented formula worked out by hand, with the value still within the bound
of a brute-force expectation in 50-digit decimals."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import pytest

#: rps at eps = 1 (eta = 1/8), means (0.4, 0.95): the gap 0.55 > 4 eta, so the restricted
#: instance is both actions, one group each (tests/test_mutants_exact_round2.py)
ETA, MU0, MU1 = 0.125, 0.4, 0.95
EULER_GAMMA = 0.57721566490153286060651209008240243104215933593992


def _e1(x: float) -> float:
    """The exponential integral E_1(x) = -gamma - log x + sum_(k>=1) (-1)^(k+1) x^k / (k k!)
    (terms < 1e-40 past k = 30 for x < 1)."""
    terms = [(-1) ** (k + 1) * x**k / (k * math.factorial(k)) for k in range(1, 40)]
    return -EULER_GAMMA - math.log(x) + math.fsum(terms)


def _log_z_at_one() -> Decimal:
    """E log(e^(-eta (S_0 - c)) + e^(-eta (S_1 - c))) = E log(1 + e^(-eta (S_1 - S_0))),
    S_i ~ Bernoulli(mu_i) independent (m = 1), in 50-digit decimals (the floats taken as
    exact)."""
    with localcontext() as ctx:
        ctx.prec = 50
        p0, p1, e = Decimal(MU0), Decimal(MU1), Decimal(ETA)
        return sum(
            (p0 if k0 else 1 - p0) * (p1 if k1 else 1 - p1) * (1 + (-e * (k1 - k0)).exp()).ln()
            for k0 in (0, 1)
            for k1 in (0, 1)
        )


@pytest.mark.parametrize(
    ("tol", "edge_lo", "edge_hi"), [(1e-8, 45.0, 50.0), (1e-16, 10.0, 50.0), (1e-16, 45.0, 5.0)]
)
def test_log_w_error_bound_holds_its_trapezoid_and_end_terms(monkeypatch, tol, edge_lo, edge_hi):
    """E[log W] at m = 1 with the trapezoid tolerance loosened to 1e-8, the left end cut at
    e^-10 in place of e^-45, or the right end at 5 in place of 50, so that the term each
    guards dominates the bound. By hand (module docstring, c = m mu_0): the windows are
    {0, 1}; E W = sum_g ((1 - mu_g) e^(eta c) + mu_g e^(-eta (1 - c))), W_min =
    e^(-eta (1 - c)), M = 1 + E W + E_1(cos a) + E_1(W_min cos a) with a = 1.2,
    h = 2 pi a / log(2 M / tol + 1); the trapezoid term 2 M / (e^(2 pi a / h) - 1) is then tol
    itself, the left end 2 e^-EDGE_LO (1 + E W) / (1 - e^-h), the right end
    4 e^-EDGE_HI / EDGE_HI. The hand sum and the engine's agree to a few dozen U (1e-12
    relative allows ~4500). The rest of the bound (pmf errors and rounding, O(N U) over
    N ~ 200 nodes) is at most the whole bound at the package's own constants (where the node
    count is largest), the allowance above the hand sum. The value must stay within the bound
    of the brute-force expectation (without its trapezoid term the bound would be ~3e-13,
    below the 2.4e-12 quadrature error at tol = 1e-8)."""
    from privdtol.engine.exact import potential

    want = _log_z_at_one()
    _, base = potential.expected_log_z("rps", [MU0, MU1], 1.0, [1])
    assert 0 < base[0] < 1e-12
    monkeypatch.setattr(potential, "TRAPEZOID_TOL", tol)
    monkeypatch.setattr(potential, "EDGE_LO", edge_lo)
    monkeypatch.setattr(potential, "EDGE_HI", edge_hi)
    value, err = potential.expected_log_z("rps", [MU0, MU1], 1.0, [1])

    mean_w = sum(
        (1 - mu) * math.exp(ETA * MU0) + mu * math.exp(-ETA * (1 - MU0)) for mu in (MU0, MU1)
    )
    w_min, a = math.exp(-ETA * (1 - MU0)), 1.2
    M = 1 + mean_w + _e1(math.cos(a)) + _e1(w_min * math.cos(a))
    h = 2 * math.pi * a / math.log(2 * M / tol + 1)
    hand = (
        tol
        + 2 * math.exp(-edge_lo) * (1 + mean_w) / -math.expm1(-h)
        + 4 * math.exp(-edge_hi) / edge_hi
    )
    assert hand * (1 - 1e-12) <= err[0] <= hand * (1 + 1e-12) + base[0]
    assert abs(Decimal(float(value[0])) - want) <= Decimal(float(err[0]))
