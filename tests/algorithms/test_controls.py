"""Tests of :mod:`privdtol.algorithms.controls`."""

from __future__ import annotations

import numpy as np
from support.stats import assert_mean_close

from privdtol.algorithms import ALGORITHMS, make_algorithm
from privdtol.engine.fast import simulate
from privdtol.environments import BernoulliProduct, standard_means

# --- from tests/test_algorithms.py


def test_ftl_egreedy_exploration_closed_form():
    from privdtol.algorithms.controls import exploration_regret

    gaps = np.array([0.0, 0.25, 0.5])
    for T in (1, 2, 3, 4, 17, 1000):
        direct = np.minimum(1.0, 3 / np.arange(1, T + 1)).sum() * gaps.mean()
        np.testing.assert_allclose(exploration_regret(3, gaps, T), direct, rtol=1e-12)


# --- from tests/test_simulate.py


def _sim(name, env, horizon, runs, mode, eps=0.7, tag=0):
    alg = make_algorithm(name, eps if ALGORITHMS[name].private else None)
    return simulate(alg, env, horizon, runs, {"test": name, "mode": mode, "tag": tag}, mode=mode)


def test_ftl_egreedy_regret_grows_like_log_T():
    # the exploration part alone: sum_t min(1, K/t) mean(gap) ~ K mean(gap) (1 + ln(T/K))
    from privdtol.algorithms.controls import exploration_regret

    env = BernoulliProduct(standard_means(4, 0.25))
    res = _sim("ftl_egreedy", env, (1 << 30) - 1, 400, "fast")
    r20, r30 = res.regret[:, 19].mean(), res.regret[:, 29].mean()
    grow = exploration_regret(4, env.gaps, (1 << 30) - 1) - exploration_regret(
        4, env.gaps, (1 << 20) - 1
    )
    np.testing.assert_allclose(grow, 4 * env.gaps.mean() * 10 * np.log(2), rtol=1e-4)
    assert_mean_close(res.regret[:, 29] - res.regret[:, 19], grow)
    assert r30 / r20 > 1.3  # what the horizon-free check must see
