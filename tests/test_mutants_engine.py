"""Guards found by mutation testing of ``privdtol.engine`` (``make mutation GROUPS=engine``,
docs/testing.md), with values written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.engine.selection import select_next


def test_select_next_charges_a_point_mass_where_the_law_is_not_explicit():
    """rnm_ftnl draws Laplace noise (no explicit law): the law charged is the point mass at the
    action drawn; rps's is its softmax, explicit."""
    rng = np.random.default_rng(3)
    sums = np.array([[0.0, 50.0, 50.0], [50.0, 50.0, 0.0]])  # a lead of 50 >> noise 2/eps
    act, law, explicit = select_next(make_algorithm("rnm_ftnl", 8.0), rng, sums, 2)
    assert act.tolist() == [0, 2] and explicit is False
    np.testing.assert_array_equal(law, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    act, law, explicit = select_next(make_algorithm("rps", 1.0), rng, np.zeros((2, 3)), 2)
    assert explicit is True
    np.testing.assert_allclose(law, np.full((2, 3), 1 / 3), rtol=1e-15)


def test_check_exact_lists_what_it_accepts():
    from privdtol.engine.exact import check_exact
    from privdtol.errors import InputError

    with pytest.raises(InputError) as err:
        check_exact("rps", "beta")
    assert str(err.value) == "env: 'beta' has no exact engine (allowed: bernoulli, deterministic)"
    with pytest.raises(InputError) as err:
        check_exact("ftl_egreedy", "bernoulli")
    assert str(err.value) == (
        "algorithm: 'ftl_egreedy' has no exact engine (allowed: rps, rps_full_prefix, "
        "rps_uncapped, rnm_ftnl, wu_wang, wu_wang_gumbel, rps_eta_logk, rps_eta_sq, "
        "rps_short_prefix)"
    )


def test_auto_mode_simulates_inexact_sums_round_by_round():
    """Beta losses have no exact block sums: small cells run the explicit per-round engine;
    Bernoulli block sums are exact, so a block algorithm takes the fast engine at any size;
    a round algorithm runs explicitly up to T runs K = 2^24, then fast."""
    from privdtol.engine.fast import resolve_mode
    from privdtol.environments.bernoulli import BernoulliProduct
    from privdtol.environments.beta import BetaLosses

    rps, hedge = make_algorithm("rps", 1.0), make_algorithm("hedge", None)
    beta, bern = BetaLosses([0.4, 0.5]), BernoulliProduct([0.4, 0.5])
    assert resolve_mode(rps, beta, 1023, 100, "auto") == "explicit"
    assert resolve_mode(rps, bern, 1023, 100, "auto") == "fast"
    assert resolve_mode(hedge, bern, 2**19, 16, "auto") == "explicit"  # 2^19 x 16 x 2 = 2^24
    assert resolve_mode(hedge, bern, 2**19 + 1, 16, "auto") == "fast"
    assert resolve_mode(rps, beta, 2**19, 16, "auto") == "explicit"
    assert resolve_mode(rps, beta, 2**19 + 1, 16, "auto") == "fast"
    assert resolve_mode(rps, bern, 1023, 100, "explicit") == "explicit"


@pytest.mark.parametrize(
    ("K", "gap", "budget"), [(1, 0.1, 10), (2, 0.0, 10), (2, 1.0, 10), (2, 0.1, 3)]
)
def test_worst_case_search_refuses_degenerate_instances(K, gap, budget):
    from privdtol.engine.worst_case import search

    with pytest.raises(ValueError, match="need K >= 2, 0 < gap < 1 and budget >= 4"):
        search("rps", K, gap, 1.0, budget=budget)


def test_run_table_records_eps_and_eta_of_each_algorithm():
    """rps at eps = 1: eta = min(1/2, 1/8) = 1/8; ftl is not private: no eps, no eta."""
    from privdtol.engine.fast import simulate
    from privdtol.engine.run_tables import run_table
    from privdtol.environments.bernoulli import BernoulliProduct

    env = BernoulliProduct([0.25, 0.5])
    for name, eps, eta in (("rps", 1.0, 0.125), ("ftl", None, None)):
        alg = make_algorithm(name, eps)
        res = simulate(alg, env, 3, 2, {"test": name}, mode="fast")
        tab = run_table(res, alg, env)
        assert tab["horizon"].tolist() == [1, 3, 1, 3]
        assert tab["gap"].tolist() == [0.25] * 4 and tab["mu_best"].tolist() == [0.25] * 4
        assert tab["epsilon"].dtype == np.float64 and tab["eta"].dtype == np.float64
        if eps is None:
            assert tab["epsilon"].isna().all() and tab["eta"].isna().all()
        else:
            assert tab["epsilon"].tolist() == [eps] * 4 and tab["eta"].tolist() == [eta] * 4


def test_cell_spec_builds_its_loss_model_with_every_parameter():
    from privdtol.engine.runner import CellSpec

    spec = CellSpec("rps", 1.0, 3, 1, env="beta", means=(0.4, 0.5), kappa=5.0)
    assert spec.build_env().kappa == 5.0
    spec = CellSpec("rps", 1.0, 3, 1, env="correlated", means=(0.4, 0.5), rho=0.25)
    assert spec.build_env().rho == 0.25


def test_fast_engine_names_its_estimator_and_keeps_actions_on_request():
    """rps's laws are explicit: the Rao-Blackwellised block estimator; rnm_ftnl's Laplace noise
    has none: the realised one."""
    from privdtol.engine.fast import simulate
    from privdtol.environments.bernoulli import BernoulliProduct

    env = BernoulliProduct([0.25, 0.5])
    rps = simulate(make_algorithm("rps", 1.0), env, 7, 3, {"test": "rb"}, mode="fast")
    assert rps.estimator == "block_rb" and rps.actions is None
    rnm = simulate(
        make_algorithm("rnm_ftnl", 1.0), env, 7, 3, {"test": "re"}, mode="fast", keep_actions=True
    )
    assert rnm.estimator == "block_realized" and rnm.actions.shape == (3, 3)
