"""Tests of :mod:`privdtol.algorithms`."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import softmax
from support.stats import P_MIN, chisquare_against

from privdtol.algorithms import (
    ALGORITHMS,
    laplace_noisy_min_law,
    make_algorithm,
)
from privdtol.errors import InputError
from privdtol.privacy.result import exact_verdict

# --- from tests/test_algorithms.py

N = 40_000


SUMS = np.array([3.0, 4.0, 5.0, 9.0, 4.5])


def _draws(alg, sums, r=3, n=N, seed=1):
    rng = np.random.default_rng(seed)
    actions, law = alg.select(rng, np.tile(sums, (n, 1)), r)
    return actions, law


@pytest.mark.parametrize(
    "name,eps,eta",
    [
        ("rps", 1.2, 0.125),
        ("rps_full_prefix", 1.2, 0.125),
        ("rps_uncapped", 1.2, 0.6),
        ("wu_wang_gumbel", 1.2, 0.6),
        ("rps", 0.3, 0.125),
        ("rps_eta_sq", 0.3, 0.045),  # min(eps^2/2, 1/8)
        ("rps_eta_sq", 1.2, 0.125),
        ("rps_eta_logk", 0.3, 0.125 / np.log2(SUMS.size)),  # min(eps/2, 1/8) / log2 K
        ("rps_eta_logk", 0.1, 0.05 / np.log2(SUMS.size)),
    ],
)
def test_softmax_selection_matches_exact_law(name, eps, eta):
    alg = make_algorithm(name, eps)
    actions, law = _draws(alg, SUMS)
    exact = np.exp(-eta * SUMS) / np.exp(-eta * SUMS).sum()
    np.testing.assert_allclose(law[0], exact, rtol=1e-12)
    assert chisquare_against(actions, exact, SUMS.size) > P_MIN


@pytest.mark.parametrize("name", ["rnm_ftnl", "wu_wang"])
def test_laplace_noisy_min_matches_quadrature(name):
    alg = make_algorithm(name, 0.8)
    actions, law = _draws(alg, SUMS)
    assert law is None
    exact = laplace_noisy_min_law(SUMS, 2 / 0.8)
    assert chisquare_against(actions, exact, SUMS.size) > P_MIN


def test_eta_is_capped_for_rps_only():
    assert make_algorithm("rps", 10).eta == 1 / 8
    assert make_algorithm("rps", 0.1).eta == 0.05
    assert make_algorithm("rps_uncapped", 10).eta == 5


def test_full_prefix_reads_whole_block():
    alg = make_algorithm("rps_full_prefix", 1.0)
    assert np.all(alg.prefix_lengths(np.random.default_rng(0), 5, 10) == 32)


def test_ftl_law_uniform_over_leaders():
    law = ALGORITHMS["ftl"]().law(np.array([[2.0, 1.0, 1.0, 3.0]]), 5)
    np.testing.assert_array_equal(law[0], [0, 0.5, 0.5, 0])


def test_hedge_law_and_rate():
    alg = ALGORITHMS["hedge"]()
    L = np.array([[2.0, 1.0, 4.0]])
    eta = 2 * np.sqrt(np.log(3) / 7)
    np.testing.assert_allclose(alg.law(L, 7)[0], softmax(-eta * L[0]), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(arrays(float, (3, 6), elements=st.floats(0, 2.0**40)), st.floats(1e-6, 10))
def test_softmax_law_agrees_with_scipy_and_never_overflows(sums, eta):
    law = make_algorithm("rps", 2 * eta).law(sums, 0)
    assert np.all(np.isfinite(law))
    np.testing.assert_allclose(law.sum(axis=1), 1, rtol=1e-12)
    np.testing.assert_allclose(law, softmax(-min(eta, 1 / 8) * sums, axis=1), atol=1e-12)


def test_private_algorithms_need_positive_epsilon():
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(InputError, match="epsilon"):
            make_algorithm("rps", bad)
    with pytest.raises(InputError, match="algorithm"):
        make_algorithm("nope", 1.0)


# --------------------------------------------------------------------------- negative controls
CONTROLS = [n for n, c in ALGORITHMS.items() if c.role == "control"]


def test_controls_are_registered_last_with_their_targets():
    assert CONTROLS == ["uniform", "ftl_egreedy", "rps_eta_logk", "rps_eta_sq", "rps_short_prefix"]
    roles = [c.role for c in ALGORITHMS.values()]
    assert set(roles) == {"algorithm", "control"}
    assert roles == sorted(roles), "controls must come after every algorithm (display order)"
    for name in CONTROLS:
        cls = ALGORITHMS[name]
        assert cls.control_of, name
        doc = cls.__doc__ or ""
        assert "CONTROL of" in doc and "must FAIL" in doc and "Section" in doc, name
        for check in cls.control_of:
            assert check in doc, (name, check)
        assert cls.display_name.startswith("control:")
    for name in ALGORITHMS:
        if name not in CONTROLS:
            assert ALGORITHMS[name].control_of == ()


def test_short_prefix_is_the_ceiling_of_two_to_the_two_thirds_r():
    """rps_short_prefix reads n_r = ceil(2^(2r/3)) rounds of block r: n^3 >= 4^r > (n-1)^3
    (integer arithmetic, every r up to 62), n_r <= 2^r, deterministic for every run."""
    from privdtol.algorithms.controls import short_prefix

    for r in range(63):
        n = short_prefix(r)
        assert n**3 >= 4**r > (n - 1) ** 3 and 1 <= n <= 2**r, r
    alg = make_algorithm("rps_short_prefix", 0.5)
    lengths = alg.prefix_lengths(np.random.default_rng(0), 10, 5)
    np.testing.assert_array_equal(lengths, np.full(5, 102))
    assert alg.eta == make_algorithm("rps", 0.5).eta


def test_uniform_law_ignores_the_data():
    alg = make_algorithm("uniform", 0.5)
    actions, law = _draws(alg, SUMS)
    np.testing.assert_array_equal(law, np.full((N, SUMS.size), 1 / SUMS.size))
    assert chisquare_against(actions, law[0], SUMS.size) > P_MIN
    other = alg.law(np.tile(SUMS[::-1] * 100, (3, 1)), 7)
    np.testing.assert_array_equal(other, law[:3])


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.int64, (4, 5), elements=st.integers(0, 3)),  # small integers: many ties
    st.integers(1, 40),
)
def test_ftl_egreedy_law_is_the_formula(cumulative, t):
    L = cumulative.astype(float)
    K = L.shape[1]
    law = ALGORITHMS["ftl_egreedy"]().law(L, t)
    eps_t = min(1.0, K / t)
    leaders = (L.min(axis=1, keepdims=True) == L).astype(float)
    expected = eps_t / K + (1 - eps_t) * leaders / leaders.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(law, expected, rtol=0, atol=1e-15)
    # per-run times (the engines pass one t per row)
    ts = np.arange(1, L.shape[0] + 1) * t
    rows = ALGORITHMS["ftl_egreedy"]().law(L, ts)
    for i, ti in enumerate(ts):
        np.testing.assert_allclose(rows[i], ALGORITHMS["ftl_egreedy"]().law(L[i : i + 1], ti)[0])


@pytest.mark.parametrize("eps", [1e-3, 0.05, 0.25, 0.5, 0.9, 1.0, 1.7, 8.0])
def test_rate_controls_stay_eps_dp(eps):
    # Lemma 3: a softmax selection with inverse temperature eta is 2 eta-DP, so eps-DP
    # needs eta <= eps/2
    assert make_algorithm("rps_eta_sq", eps).eta <= eps / 2 + 1e-15
    alg = make_algorithm("rps_eta_logk", eps)
    for K in (2, 3, 8, 4096):
        assert alg.eta_for(K) <= min(eps / 2, 1 / 8) + 1e-15
        np.testing.assert_allclose(alg.eta_for(K), min(eps / 2, 1 / 8) / np.log2(K))
    with pytest.raises(AttributeError):
        _ = alg.eta  # no single temperature: the audits must not use a wrong one


# --- from tests/test_mutants_algorithms.py


def test_make_algorithm_names_the_field_and_lists_the_registry_in_order():
    with pytest.raises(InputError) as err:
        make_algorithm("nope", 1.0)
    assert str(err.value) == (
        "algorithm: unknown algorithm 'nope' (allowed: rps, rnm_ftnl, wu_wang, wu_wang_gumbel, "
        "rps_full_prefix, rps_uncapped, ftl, hedge, uniform, ftl_egreedy, rps_eta_logk, "
        "rps_eta_sq, rps_short_prefix)"
    )
    assert err.value.field == "algorithm"


# --- from tests/test_paper_constants.py

#: relative tolerance of a literal against the formula: rounding only
REL = 1e-12


def test_the_competitors_noise_scales_and_temperatures():
    for name in ("rnm_ftnl", "wu_wang", "wu_wang_gumbel"):
        assert make_algorithm(name, 0.5).noise_scale == 4.0  # 2/eps
        assert make_algorithm(name, 0.1).noise_scale == pytest.approx(20.0, rel=REL)
    assert make_algorithm("rps", 1.0).eta == 0.125
    assert make_algorithm("rps", 0.1).eta == pytest.approx(0.05, rel=REL)
    assert make_algorithm("rps_uncapped", 1.0).eta == 0.5
    # softmax(-eta S) at S = (0, 8), eta = 1/8, and Gumbel(2/eps = 1) at S = (0, 1):
    # (1/(1 + e^-1), e^-1/(1 + e^-1))
    law = [0.7310585786300049, 0.2689414213699951]
    rps = make_algorithm("rps", 1.0).law(np.array([[0.0, 8.0]]), 3)
    gumbel = make_algorithm("wu_wang_gumbel", 2.0).law(np.array([[0.0, 1.0]]), 3)
    np.testing.assert_allclose(rps[0], law, rtol=REL)
    np.testing.assert_allclose(gumbel[0], law, rtol=REL)


# --- from tests/test_tolerances.py


@pytest.mark.parametrize(
    ("excess", "violation"), [(0.0, False), (1e-12, False), (1e-7, True), (1e-4, True)]
)
def test_an_exact_audit_flags_any_loss_beyond_rounding_over_eps(excess, violation):
    alg = make_algorithm("rnm_ftnl", 0.5)  # Laplace report-noisy-min: the bound is eps itself
    out = exact_verdict(alg, 0.5 + excess)
    assert out["violation"] is violation
    assert out["within_selection_bound"] is not violation
    assert out["verdict"] == ("violation" if violation else "within eps")
    rps = exact_verdict(make_algorithm("rps", 1.0), 0.25 + excess)  # 2 eta = 1/4 < eps = 1
    assert (rps["violation"], rps["within_selection_bound"]) == (False, not violation)
