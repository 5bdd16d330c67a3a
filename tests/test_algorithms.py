"""Tests of :mod:`privdtol.algorithms`: the registry (its display order, the negative controls
last, the refusal of unknown names and of a bad eps) and, through it, the selection law and
the constants (eta, noise scales) of every block algorithm."""

from __future__ import annotations

import numpy as np
import pytest
from support.laws import SUMS, draws
from support.stats import P_MIN, chisquare_against

from privdtol.algorithms import ALGORITHMS, ROLES, laplace_noisy_min_law, make_algorithm
from privdtol.errors import InputError

#: relative tolerance of a literal against the formula: rounding only
REL = 1e-12

CONTROLS = [n for n, c in ALGORITHMS.items() if c.role == "control"]


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
    actions, law = draws(alg, SUMS)
    exact = np.exp(-eta * SUMS) / np.exp(-eta * SUMS).sum()
    np.testing.assert_allclose(law[0], exact, rtol=1e-12)
    assert chisquare_against(actions, exact, SUMS.size) > P_MIN


@pytest.mark.parametrize("name", ["rnm_ftnl", "wu_wang"])
def test_laplace_noisy_min_matches_quadrature(name):
    alg = make_algorithm(name, 0.8)
    actions, law = draws(alg, SUMS)
    assert law is None
    exact = laplace_noisy_min_law(SUMS, 2 / 0.8)
    assert chisquare_against(actions, exact, SUMS.size) > P_MIN


def test_eta_is_capped_for_rps_only():
    assert make_algorithm("rps", 10).eta == 1 / 8
    assert make_algorithm("rps", 0.1).eta == 0.05
    assert make_algorithm("rps_uncapped", 10).eta == 5


def test_the_competitors_noise_scales_and_temperatures():
    for name in ("rnm_ftnl", "wu_wang", "wu_wang_gumbel"):
        assert make_algorithm(name, 0.5).noise_scale == 4.0  # 2/eps
        assert make_algorithm(name, 0.1).noise_scale == pytest.approx(20.0, rel=REL)
    assert make_algorithm("rps", 1.0).eta == 0.125
    assert make_algorithm("rps_uncapped", 1.0).eta == 0.5
    # softmax(-eta S) at S = (0, 8), eta = 1/8, and Gumbel(2/eps = 1) at S = (0, 1):
    # (1/(1 + e^-1), e^-1/(1 + e^-1))
    law = [0.7310585786300049, 0.2689414213699951]
    rps = make_algorithm("rps", 1.0).law(np.array([[0.0, 8.0]]), 3)
    gumbel = make_algorithm("wu_wang_gumbel", 2.0).law(np.array([[0.0, 1.0]]), 3)
    np.testing.assert_allclose(rps[0], law, rtol=REL)
    np.testing.assert_allclose(gumbel[0], law, rtol=REL)


def test_private_algorithms_need_positive_epsilon():
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(InputError, match="epsilon"):
            make_algorithm("rps", bad)


def test_make_algorithm_names_the_field_and_lists_the_registry_in_order():
    with pytest.raises(InputError) as err:
        make_algorithm("nope", 1.0)
    assert str(err.value) == (
        "algorithm: unknown algorithm 'nope' (allowed: rps, rnm_ftnl, wu_wang, wu_wang_gumbel, "
        "rps_full_prefix, rps_uncapped, ftl, hedge, uniform, ftl_egreedy, rps_eta_logk, "
        "rps_eta_sq, rps_short_prefix, rps_uniform_mix, rps_hot)"
    )
    assert err.value.field == "algorithm"


def test_controls_are_registered_last_with_their_targets():
    assert CONTROLS == [
        "uniform",
        "ftl_egreedy",
        "rps_eta_logk",
        "rps_eta_sq",
        "rps_short_prefix",
        "rps_uniform_mix",
        "rps_hot",
    ]
    roles = [c.role == "control" for c in ALGORITHMS.values()]
    assert {c.role for c in ALGORITHMS.values()} == set(ROLES)
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
