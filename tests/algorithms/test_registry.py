"""Tests of :mod:`privdtol.algorithms.registry`: the common tests.  Every registered
algorithm, the plugins' included (whatever is installed beside privdtol: a plugin on the path is
collected here like a built-in), is held to one contract, as scikit-learn's common tests
(``sklearn.utils.estimator_checks``) hold every estimator; they mirror the registry module
because they are parametrized over what it registers (the registry's order and refusals are
tested in tests/test_algorithms.py).

Per algorithm: the load-time contract (:func:`privdtol.algorithms.check_algorithm`); the same
seed gives the same actions; actions in range; the law the class gives (``law`` or, failing
it, its declared exact law) matches its sampler (chi-square at a fixed seed); relabelling the
actions relabels the law where ``symmetric`` is declared; the declared per-selection privacy
bounds the exact audit's worst loss; a declared exact law gives the exact engine's regret,
which Monte Carlo matches within its standard error."""

from __future__ import annotations

import numpy as np
import pytest
from support.stats import P_MIN, assert_within_se, chisquare_against

from privdtol.algorithms import (
    ALGORITHMS,
    BlockAlgorithm,
    check_algorithm,
    laplace_noisy_min_law,
    make_algorithm,
    softmax_law,
)
from privdtol.engine.exact import EXACT_ALGORITHMS, expected_regret
from privdtol.engine.fast import simulate
from privdtol.environments import make_env
from privdtol.privacy.exact_selection import audit_selection
from privdtol.privacy.mechanisms import PRIVATE, lemma3_bound

NAMES = list(ALGORITHMS)
BLOCK = [n for n in NAMES if issubclass(ALGORITHMS[n], BlockAlgorithm)]
#: one row of sums (block r = 3: sums of up to 8 losses) and the block index
SUMS, R = np.array([[3.0, 0.0, 8.0, 5.0]]), 3
EPS = 1.0
#: selections drawn per law test
DRAWS = 20_000


def _alg(name):
    return make_algorithm(name, EPS if ALGORITHMS[name].private else None)


def reference_law(alg, sums, r=R):
    """The law the algorithm gives for its selection from ``sums``: its ``law`` method, else
    its declared exact law (Laplace report-noisy-min by quadrature); None without either."""
    own = alg.law(sums, r) if isinstance(alg, BlockAlgorithm) else alg.law(sums, 9)
    if own is not None:
        return np.asarray(own)
    law = type(alg).exact_law
    if law is None:
        return None
    if law.softmax:
        p = softmax_law(sums, law.temperature(alg, sums.shape[1]))
        return (1 - law.uniform_mix) * p + law.uniform_mix / sums.shape[1]
    return laplace_noisy_min_law(sums, law.parameter(alg, sums.shape[1]))


def draw(alg, sums, n, seed):
    """n selections from one row of sums (block algorithms: the sampler ``select``; per-round
    ones: inversion of their law, which is all they are)."""
    rng = np.random.default_rng(seed)
    rows = np.repeat(sums, n, axis=0)
    if isinstance(alg, BlockAlgorithm):
        return np.asarray(alg.select(rng, rows, R)[0])
    from privdtol.algorithms import sample_from

    return sample_from(rng, alg.law(rows, 9))


@pytest.mark.parametrize("name", NAMES)
def test_meets_the_load_time_contract(name):
    check_algorithm(ALGORITHMS[name])


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_actions_and_actions_in_range(name):
    alg = _alg(name)
    sums = np.random.default_rng(1).integers(0, 9, size=(50, 5)).astype(float)
    a, b = draw(alg, sums[:1], 200, 7), draw(alg, sums[:1], 200, 7)
    assert np.array_equal(a, b)
    assert a.min() >= 0 and a.max() < 5
    if isinstance(alg, BlockAlgorithm):
        m1 = alg.prefix_lengths(np.random.default_rng(3), 4, 100)
        m2 = alg.prefix_lengths(np.random.default_rng(3), 4, 100)
        assert np.array_equal(m1, m2) and m1.min() >= 1 and m1.max() <= 16


@pytest.mark.parametrize("name", NAMES)
def test_law_matches_sampling(name):
    alg = _alg(name)
    law = reference_law(alg, SUMS)
    if law is None:
        pytest.skip(f"{name} gives no law: sampling only")
    assert np.allclose(law.sum(axis=1), 1.0)
    p = chisquare_against(draw(alg, SUMS, DRAWS, 11), law[0], SUMS.shape[1])
    assert p > P_MIN, (name, p)


@pytest.mark.parametrize("name", [n for n in NAMES if ALGORITHMS[n].symmetric])
def test_relabelling_the_actions_relabels_the_law(name):
    alg = _alg(name)
    perm = np.array([2, 0, 3, 1])
    law, relabelled = reference_law(alg, SUMS), reference_law(alg, SUMS[:, perm])
    if law is None:  # sampling only: the permuted draws follow the permuted frequencies
        a, b = draw(alg, SUMS, DRAWS, 5), draw(alg, SUMS[:, perm], DRAWS, 6)
        law = np.bincount(a, minlength=4)[None] / DRAWS
        relabelled = np.bincount(b, minlength=4)[None] / DRAWS
        se = np.sqrt(law * (1 - law) / DRAWS * 2) + 1e-12
        assert_within_se(relabelled[0], law[0, perm], se[0, perm], m=4, what=name)
        return
    np.testing.assert_allclose(relabelled, law[:, perm], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in BLOCK if n in PRIVATE])
def test_declared_privacy_bounds_the_exact_audit(name):
    """The worst privacy loss the exact per-selection audit finds (K = 3, a block of 4, eps
    0.5) is at most what the algorithm declares per selection (rounding aside)."""
    alg = make_algorithm(name, 0.5)
    res = audit_selection(alg, K=3, block=4, seed=0, n_random=40, max_steps=3)
    assert res.loss <= lemma3_bound(alg) * (1 + 1e-9) + 1e-12, (name, res.loss)


@pytest.mark.parametrize("name", [n for n in NAMES if n in EXACT_ALGORITHMS])
def test_declared_exact_law_gives_the_regret_monte_carlo_measures(name):
    """The exact engine's regret (from the declared law) against the fast engine's Monte Carlo
    mean (the class's own sampler) at K = 3, T = 63, eps = 1: within the familywise z of the
    Monte Carlo standard error (the exact error bound is far smaller)."""
    means, T, runs = np.array([0.3, 0.5, 0.7]), 63, 4000
    alg = make_algorithm(name, EPS)
    exact, _ = expected_regret(name, means, EPS, [T])
    sim = simulate(alg, make_env("bernoulli", means), T, runs, {"test": "common", "alg": name})
    final = sim.regret[:, -1]
    se = final.std(ddof=1) / np.sqrt(runs)
    assert_within_se(final.mean(), exact[0], max(se, 1e-9), m=len(EXACT_ALGORITHMS), what=name)
