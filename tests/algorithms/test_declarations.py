"""Tests of :mod:`privdtol.algorithms.declarations`: the law declarations' checks and the
parameters they give the exact engine and the audits."""

from __future__ import annotations

import pytest

from privdtol.algorithms import make_algorithm
from privdtol.algorithms.declarations import SelectionLaw, eta_of, noise_scale_of


@pytest.mark.parametrize(
    "kwargs", [{"family": "uniform"}, {"family": "softmax", "uniform_mix": 1.0}]
)
def test_a_law_outside_the_engines_families_is_refused(kwargs):
    with pytest.raises(ValueError):
        SelectionLaw(parameter=eta_of, **kwargs)


def test_gumbel_noise_of_scale_b_is_softmax_at_one_over_b_and_laplace_has_no_temperature():
    gumbel = make_algorithm("wu_wang_gumbel", 0.5)  # scale 2/eps = 4
    assert gumbel.exact_law.rule(gumbel, 3) == (True, 0.25)
    laplace = make_algorithm("rnm_ftnl", 0.5)
    assert laplace.exact_law.rule(laplace, 3) == (False, 4.0)
    with pytest.raises(ValueError, match="no temperature"):
        SelectionLaw("laplace_noisy_min", noise_scale_of).temperature(laplace)


def test_a_temperature_that_depends_on_k_is_read_at_k():
    alg = make_algorithm("rps_eta_logk", 1.0)  # eta / log2 K
    assert alg.exact_law.temperature(alg, 8) == pytest.approx(0.125 / 3, rel=1e-15)
    with pytest.raises(AttributeError):
        alg.exact_law.temperature(alg)  # no K: no single eta


def test_the_declared_privacy_is_the_mechanisms_epsilon_per_selection():
    assert make_algorithm("rps", 1.0).privacy.selection_epsilon(make_algorithm("rps", 1.0)) == 0.25
    rnm = make_algorithm("rnm_ftnl", 0.5)
    assert rnm.privacy.selection_epsilon(rnm) == pytest.approx(0.5, rel=1e-15)
