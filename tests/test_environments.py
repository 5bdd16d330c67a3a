"""Block-sum sampling against explicit per-round draws (same law), and instance generators."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privdtol.environments import (BernoulliProduct, BetaLosses, CorrelatedBernoulli,
                                   DeterministicLosses, ReplayLosses, read_loss_matrix,
                                   standard_means, staircase_means)
from privdtol.errors import InputError

from conftest import P_MIN, two_sample_chisquare

MEANS = np.array([0.3, 0.45, 0.45, 0.8])
N = 20_000


def _explicit(env, rng, start, lengths, resample=False):
    return env._explicit_window_sums(rng, start, lengths, resample=resample)


def _lengths(n, rng):
    return rng.integers(3, 9, size=n)  # different window per run, as M_r gives


@pytest.mark.parametrize("env", [BernoulliProduct(MEANS), CorrelatedBernoulli(MEANS, rho=0.7),
                                 CorrelatedBernoulli(MEANS, rho=1.0)], ids=lambda e: e.name)
def test_exact_window_sums_match_explicit_joint_law(env):
    rng = np.random.default_rng(11)
    lengths = _lengths(N, rng)
    fast = env.window_sums(np.random.default_rng(1), 0, lengths)
    slow = _explicit(env, np.random.default_rng(2), 0, lengths)
    for i, j in [(0, 1), (1, 2), (0, 3)]:  # joint law of pairs: catches missing dependence
        assert two_sample_chisquare(fast[:, [i, j]], slow[:, [i, j]]) > P_MIN


def test_correlated_covariance_is_as_documented():
    env = CorrelatedBernoulli(MEANS, rho=0.6)
    x = env.sample_rounds(np.random.default_rng(3), 1, 0, 200_000)[0]
    cov = np.cov(x[:, 0], x[:, 3])[0, 1]
    target = 0.6 * (min(MEANS[0], MEANS[3]) - MEANS[0] * MEANS[3])
    se = np.sqrt(np.var((x[:, 0] - MEANS[0]) * (x[:, 3] - MEANS[3])) / x.shape[0])
    assert abs(cov - target) < 4 * se
    np.testing.assert_allclose(x.mean(axis=0), MEANS, atol=4 * 0.5 / np.sqrt(x.shape[0]))


def test_beta_window_sums_are_explicit_and_resampling_is_binomial():
    env = BetaLosses(MEANS, kappa=3.0)
    rng = np.random.default_rng(5)
    lengths = _lengths(5000, rng)
    sums = env.window_sums(np.random.default_rng(6), 0, lengths)
    expected_var = lengths.mean() * MEANS * (1 - MEANS) / 4.0
    np.testing.assert_allclose(sums.mean(axis=0), lengths.mean() * MEANS, rtol=0.03)
    assert np.all(np.abs(np.var(sums - lengths[:, None] * MEANS, axis=0) / expected_var - 1) < 0.1)
    fast = env.resampled_window_sums(np.random.default_rng(7), 0, lengths)
    slow = _explicit(env, np.random.default_rng(8), 0, lengths, resample=True)
    for j in range(4):
        assert two_sample_chisquare(fast[:, j], slow[:, j]) > P_MIN
    assert two_sample_chisquare(fast[:, [0, 1]], slow[:, [0, 1]]) > P_MIN


def test_deterministic_sums_and_resampling():
    env = DeterministicLosses(MEANS)
    lengths = np.array([1, 5, 8])
    np.testing.assert_allclose(env.window_sums(None, 0, lengths), lengths[:, None] * MEANS)
    fast = env.resampled_window_sums(np.random.default_rng(1), 0, np.full(N, 6))
    slow = _explicit(env, np.random.default_rng(2), 0, np.full(N, 6), resample=True)
    for j in range(4):
        assert two_sample_chisquare(fast[:, j], slow[:, j]) > P_MIN


def test_replay_window_sums_are_prefix_sums(tmp_path):
    matrix = np.random.default_rng(0).random((37, 3))
    matrix[:, 0] *= 0.5
    path = tmp_path / "losses.csv"
    np.savetxt(path, matrix, delimiter=",", header="a,b,c", comments="")
    env = ReplayLosses.from_csv(path)
    lengths = np.array([1, 4, 10])
    expected = np.array([matrix[6:6 + n].sum(axis=0) for n in lengths])
    np.testing.assert_allclose(env.window_sums(None, 6, lengths), expected)
    np.testing.assert_allclose(_explicit(env, np.random.default_rng(0), 6, lengths), expected)
    with pytest.raises(InputError, match="horizon"):
        env.window_sums(None, 30, np.array([10]))


@pytest.mark.parametrize("content,problem", [
    ("", "empty"), ("a,b\n0.1,x\n", "non-numeric"), ("0.1,0.2\n0.3\n", "different numbers"),
    ("0.1,1.5\n", "outside"), ("0.5\n0.2\n", "column"), ("a,b\n", "no data rows")])
def test_malformed_loss_files_are_rejected(tmp_path, content, problem):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(InputError, match=problem):
        read_loss_matrix(path)


def test_standard_and_staircase_instances():
    m = standard_means(5, 0.2)
    np.testing.assert_allclose(m, [0.4, 0.6, 0.6, 0.6, 0.6])
    s = staircase_means(5, 0.1, 0.2)
    assert s[0] == 0.2 and np.isclose(s[1] - s[0], 0.1) and np.isclose(s[-1], 1.0)
    assert np.all(np.diff(s[1:]) > 0)
    env = BernoulliProduct(m)
    assert env.best == 0 and np.isclose(env.delta_min, 0.2)


@pytest.mark.parametrize("kwargs,field", [
    (dict(K=1, gap=0.1), "K"), (dict(K=3, gap=0.0), "gap"), (dict(K=3, gap=1.2), "gap"),
    (dict(K=3, gap=0.5, mu_best=0.7), "mu_best")])
def test_bad_instances(kwargs, field):
    with pytest.raises(InputError) as err:
        standard_means(**kwargs)
    assert err.value.field == field


@pytest.mark.parametrize("means", [[0.5], [0.2, 0.2, 0.5], [-0.1, 0.5], [0.1, 1.01]])
def test_bad_means(means):
    with pytest.raises(InputError, match="means"):
        BernoulliProduct(np.array(means))


def test_huge_windows_do_not_overflow():
    env = CorrelatedBernoulli(MEANS, rho=0.5)
    sums = env.window_sums(np.random.default_rng(0), 0, np.array([1 << 40, 1 << 39]))
    assert np.all(np.isfinite(sums)) and np.all(np.abs(sums / [[1 << 40], [1 << 39]] - MEANS) < 1e-4)
