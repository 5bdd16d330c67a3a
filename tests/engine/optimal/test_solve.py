"""Tests of :mod:`privdtol.engine.optimal.solve`: the floor OPT_T on values derived by hand
(T = 1, ε = 0, randomized response at T = 2, the Bayes rule without privacy), the values of a
first independent computation (HiGHS's interior point on the unreduced program, K = 2, T = 5 and
K = 3, T = 3 at mu = 3/4, gap = 1/2) as literals, the unreduced program of
tests/support/optimal_reference.py on other instances, and monotonicity in ε and T."""

from __future__ import annotations

import itertools
import math

import pytest
from support.optimal_reference import ftl_regret, unreduced_optimum

from privdtol.engine.optimal import optimal

MU, GAP = 0.75, 0.5


@pytest.mark.parametrize("K", [2, 3, 4])
def test_one_round_is_uniform_play(K):
    # T = 1: no data read; each placement is missed with probability 1 - 1/K
    r = optimal(K, MU, GAP, 1.0, 1)
    assert r["optimal"] == pytest.approx(GAP * (1 - 1 / K), rel=1e-9)
    assert r["status"] == "optimal" and r["duality_gap"] < 1e-9


@pytest.mark.parametrize(("K", "T"), [(2, 4), (3, 3)])
def test_no_privacy_budget_pays_uniform_play_every_round(K, T):
    # ε = 0: the actions ignore the data, T gap (1 - 1/K)
    assert optimal(K, MU, GAP, 0.0, T)["optimal"] == pytest.approx(T * GAP * (1 - 1 / K), rel=1e-8)


@pytest.mark.parametrize(("mu", "gap", "epsilon"), [(0.75, 0.5, 1.0), (0.6, 0.2, 0.3)])
def test_two_rounds_is_randomized_response(mu, gap, epsilon):
    # K = 2, T = 2: gap (1/2 + e2), e2 = p01/(1 + e^ε) + p10 e^ε/(1 + e^ε) + (1 - p01 - p10)/2,
    # p01 = P(only the worse action loses), p10 = P(only the best one loses)
    best = mu - gap
    p01, p10 = mu * (1 - best), best * (1 - mu)
    w = math.exp(epsilon)
    e2 = p01 / (1 + w) + p10 * w / (1 + w) + (1 - p01 - p10) / 2
    r = optimal(2, mu, gap, epsilon, 2)
    assert r["optimal"] == pytest.approx(gap * (0.5 + e2), rel=1e-8)
    # the rule: after a round where one action alone lost, the other w.p. e^ε/(1 + e^ε)
    laws = {d["losses"]: d["p"] for d in r["first_decisions"]}
    assert laws["="] == pytest.approx([0.5, 0.5], abs=1e-7)
    assert laws["10"] == pytest.approx([1 / (1 + w), w / (1 + w)], abs=1e-7)
    assert laws["01"] == pytest.approx([w / (1 + w), 1 / (1 + w)], abs=1e-7)


def test_hand_values_at_mu_three_quarters():
    # K = 2, T = 2, ε = 1: p01 = 9/16, p10 = 1/16: gap (1/2 + e2) = 0.44223535534...
    assert optimal(2, MU, GAP, 1.0, 2)["optimal"] == pytest.approx(0.4422353553, rel=1e-9)


@pytest.mark.parametrize(("K", "T"), [(2, 3), (2, 4), (3, 2), (3, 3)])
def test_without_privacy_the_optimum_is_follow_the_leader(K, T):
    # the Bayes rule under the uniform placement: the leader (ties uniform), enumerated
    want = ftl_regret(K, 0.7, 0.35, T)
    assert optimal(K, 0.7, 0.35, math.inf, T)["optimal"] == pytest.approx(want, rel=1e-7)


@pytest.mark.parametrize(
    ("K", "T", "epsilon", "want"),
    [
        (2, 5, 0.1, 1.2125),
        (2, 5, 0.25, 1.1569),
        (2, 5, 1.0, 0.9187),
        (2, 5, 4.0, 0.5662),
        (3, 3, 1.0, 0.877),
    ],
)
def test_values_of_an_independent_computation(K, T, epsilon, want):
    # HiGHS's interior point on the unreduced program (one variable per data and actions)
    assert optimal(K, MU, GAP, epsilon, T)["optimal"] == pytest.approx(want, abs=5e-5)


@pytest.mark.parametrize(
    ("K", "mu", "gap", "epsilon", "T"),
    [
        (2, 0.6, 0.3, 0.5, 3),
        (2, 0.9, 0.2, 2.0, 4),
        (3, 0.55, 0.25, 0.7, 2),
        (2, 1.0, 0.6, 0.8, 3),
        pytest.param(3, 0.8, 0.4, 1.5, 3, marks=pytest.mark.slow),
    ],
)
def test_agrees_with_the_unreduced_program(K, mu, gap, epsilon, T):
    want = unreduced_optimum(K, mu, gap, epsilon, T)
    assert optimal(K, mu, gap, epsilon, T)["optimal"] == pytest.approx(want, rel=1e-6)


@pytest.mark.slow
def test_agrees_with_the_unreduced_program_at_five_rounds():
    want = unreduced_optimum(2, 0.45, 0.15, 0.3, 5, method="highs-ipm")  # about 40 s
    assert optimal(2, 0.45, 0.15, 0.3, 5)["optimal"] == pytest.approx(want, rel=1e-6)


def test_monotone_in_epsilon_and_horizon():
    values = [optimal(2, MU, GAP, e, 3)["optimal"] for e in (0, 0.25, 1, 4, math.inf)]
    assert all(a > b for a, b in itertools.pairwise(values))
    values = [optimal(3, 0.6, 0.25, 0.5, t)["optimal"] for t in (1, 2, 3)]
    assert all(a < b for a, b in itertools.pairwise(values))
