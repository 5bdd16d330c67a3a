"""Tests of :mod:`privdtol.engine.runner`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.engine import explicit
from privdtol.engine.explicit import simulate_chunk_explicit
from privdtol.engine.runner import CellSpec, exact_table, make_spec, run_cell
from privdtol.environments.replay import ReplayLosses

# --- from tests/test_mutants_engine.py


def test_cell_spec_builds_its_loss_model_with_every_parameter():
    from privdtol.engine.runner import CellSpec

    spec = CellSpec("rps", 1.0, 3, 1, env="beta", means=(0.4, 0.5), kappa=5.0)
    assert spec.build_env().kappa == 5.0
    spec = CellSpec("rps", 1.0, 3, 1, env="correlated", means=(0.4, 0.5), rho=0.25)
    assert spec.build_env().rho == 0.25


# --- from tests/test_mutants_engine_fresh.py


def test_seed_params_keep_only_the_law_of_the_data():
    """The seed key of a Bernoulli cell has no Beta kappa (nor rho): changing a parameter the
    loss model ignores must not change the random stream; a Beta cell's kappa enters through
    its law."""
    from privdtol.engine.runner import CellSpec

    spec = CellSpec("rps", 1.0, 3, 1, means=(0.25, 0.5))
    assert spec.seed_params(spec.build_env()) == {
        "algorithm": "rps",
        "epsilon": 1.0,
        "horizon": 3,
        "runs": 1,
        "seed": 0,
        "mode": "auto",
        "env": "bernoulli",
        "means": [0.25, 0.5],
    }
    beta = CellSpec("rps", 1.0, 3, 1, env="beta", means=(0.25, 0.5), kappa=5.0)
    assert beta.seed_params(beta.build_env())["kappa"] == 5.0


# --- from tests/test_mutants_engine_r4d.py

#: a 15 x 2 loss matrix whose leader changes: column sums 5 and 10, means (1/3, 2/3), gaps
#: (0, 1/3); blocks B_0 = {1}, B_1 = {2, 3}, B_2 = {4..7}, B_3 = {8..15}
ROWS = [0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0]  # X_t = (ROWS[t-1], 1 - ROWS[t-1])


MATRIX = np.array([[a, 1 - a] for a in ROWS], dtype=float)


GAP = 1.0 / 3.0


BLOCKS = [(1, 1), (2, 3), (4, 7), (8, 15)]


def _run(name, eps, n, monkeypatch, chunk=None, horizon=15):
    """simulate_chunk_explicit on the replayed matrix; ``chunk`` the rounds per chunk."""
    if chunk is not None:
        monkeypatch.setattr(explicit, "ROUND_CHUNK_ELEMENTS", chunk * n * 2)
    alg = make_algorithm(name, eps)
    env = ReplayLosses(MATRIX[:horizon])
    return simulate_chunk_explicit(alg, env, horizon, n, np.random.default_rng(4), None)


def _loss_before(t):
    """L_(t-1) of the matrix, by a plain loop."""
    L0 = sum(ROWS[: t - 1])
    return L0, (t - 1) - L0


@pytest.mark.parametrize("chunk", [None, 2, 1])
def test_ftl_explicit_regret_on_a_replayed_matrix(monkeypatch, chunk):
    """FTL plays uniformly over the leaders of L_(t-1).  By hand: t = 1 tie (1/2 · 1/3), t = 2
    leader 0, t = 3 tie, t = 4 leader 1 (1/3), t = 5 tie, t = 6, 7 leader 0, and from L_7 =
    (3, 4) on action 0 leads: per block GAP/2, GAP/2, 3 GAP/2, 0.
    Charged regret per block: the sum of law · gaps; realized: the gaps of the actions drawn,
    deterministic (leader) rounds contributing exactly their gap, whatever the chunking."""
    rb, real, actions, explicit_law = _run("ftl", None, 3, monkeypatch, chunk)
    expected, sure = [], []
    for a, b in BLOCKS:
        total, floor = 0.0, 0.0
        for t in range(a, b + 1):
            L0, L1 = _loss_before(t)
            p1 = 0.5 if L0 == L1 else float(L1 < L0)
            total += p1 * GAP
            floor += GAP if L1 < L0 else 0.0
        expected.append(total)
        sure.append(floor)
    assert expected == pytest.approx([GAP / 2, GAP / 2, 1.5 * GAP, 0.0], rel=1e-15)
    np.testing.assert_allclose(rb, np.tile(expected, (3, 1)), rtol=1e-13, atol=0)
    assert np.all(actions == -1) and explicit_law is True
    assert rb.shape == real.shape == actions.shape == (3, 4)
    for r in range(4):  # at least the rounds with a unique leader 1, at most those plus ties
        assert np.all(real[:, r] >= sure[r] - 1e-12)
        assert np.all(real[:, r] <= sure[r] + 2 * (expected[r] - sure[r]) + 1e-12)
    assert real[:, 2].min() >= GAP - 1e-12  # t = 4 (leader 1) is in the first chunk of B_2


def test_hedge_explicit_charged_regret_is_the_decreasing_hedge_law(monkeypatch):
    """Decreasing Hedge: p_t(1) = 1 / (1 + exp(eta_t (L1 - L0))), eta_t = 2 sqrt(ln 2 / t),
    evaluated with math at every t of the replayed matrix; with chunks of 2 rounds (B_2, B_3
    split) the times and L_(t-1) must still run on across chunks and blocks."""
    rb, real, actions, explicit_law = _run("hedge", None, 2, monkeypatch, chunk=2)
    expected = []
    for a, b in BLOCKS:
        total = 0.0
        for t in range(a, b + 1):
            L0, L1 = _loss_before(t)
            eta = 2.0 * math.sqrt(math.log(2) / t)
            total += GAP / (1.0 + math.exp(eta * (L1 - L0)))
        expected.append(total)
    np.testing.assert_allclose(rb, np.tile(expected, (2, 1)), rtol=1e-12, atol=0)
    assert np.all(actions == -1) and explicit_law is True
    counts = real / GAP  # the number of times action 1 was played in each block
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert np.all(counts >= 0) and np.all(counts <= [1, 2, 4, 8])


def test_realized_regret_adds_up_over_every_chunk_of_a_block(monkeypatch):
    """With one round per chunk, block r's realized regret sums 2^r draws: over 2000 runs its
    mean matches the charged regret (a martingale: variance <= sum_t p_t (1 - p_t) gap^2 per
    run, bounded here by 5 standard errors); keeping only the last chunk would leave one draw."""
    n = 2000
    rb, real, _, _ = _run("hedge", None, n, monkeypatch, chunk=1)
    var = np.zeros(4)
    for r, (a, b) in enumerate(BLOCKS):
        for t in range(a, b + 1):
            L0, L1 = _loss_before(t)
            p = 1.0 / (1.0 + math.exp(2.0 * math.sqrt(math.log(2) / t) * (L1 - L0)))
            var[r] += p * (1 - p) * GAP**2
    tol = 5 * np.sqrt(var / n)
    assert np.all(np.abs(real.mean(axis=0) - rb[0]) <= tol)


@pytest.mark.parametrize("chunk", [None, 2])
def test_block_algorithm_explicit_regret_follows_the_block_sums(monkeypatch, chunk):
    """rps_full_prefix (M_r = 2^r, eta = min(eps/2, 1/8) = 1/8 at eps = 1): A_0 uniform, then
    A_(r+1) ~ softmax(-eta S_r) with S_r block r's column sums (B_0: (0, 1), B_1: (2, 0), B_2:
    (1, 3)); block r is charged 2^r law · gaps and realizes 2^r gaps[A_r]."""
    rb, real, actions, explicit_law = _run("rps_full_prefix", 1.0, 3, monkeypatch, chunk)
    laws = [0.5]
    for S0, S1 in [(0, 1), (2, 0), (1, 3)]:
        laws.append(1.0 / (1.0 + math.exp(0.125 * (S1 - S0))))
    lengths = np.array([1, 2, 4, 8])
    np.testing.assert_allclose(rb, np.tile(lengths * GAP * np.array(laws), (3, 1)), rtol=1e-13)
    assert explicit_law is True and actions.dtype == np.int64
    assert set(np.unique(actions)) <= {0, 1}
    np.testing.assert_allclose(real, lengths * np.array([0.0, GAP])[actions], rtol=1e-15)


def test_block_algorithm_with_laplace_noise_charges_the_action_played(monkeypatch):
    """rnm_ftnl has no explicit selection law: the law charged after block 0 is the point mass
    at the action drawn, so charged and realized regret agree from block 1 on, and the flag is
    False.  A horizon of 10 cuts B_3 to 3 rounds and replays the first 10 rows: column sums 4
    and 6, gaps (0, 0.2); block 0 (uniform A_0) is charged 0.2 / 2."""
    rb, real, actions, explicit_law = _run("rnm_ftnl", 1.0, 4, monkeypatch, horizon=10)
    assert explicit_law is False
    np.testing.assert_allclose(rb[:, 0], 0.1, rtol=1e-15)
    np.testing.assert_allclose(rb[:, 1:], real[:, 1:], rtol=1e-15)
    np.testing.assert_allclose(real, np.array([1, 2, 4, 3]) * np.array([0.0, 0.2])[actions])


def test_make_spec_passes_every_field_through():
    """Every field given to make_spec lands in the CellSpec of the same name; rho/kappa None
    keep CellSpec's defaults (0.5, 2.0); means given are kept even with K."""
    spec = make_spec(
        "rps", 0.5, 63, 7, means=(0.25, 0.75), K=3, gap=0.1, rho=0.3, kappa=4.0,
        env="correlated", seed=9, mode="explicit", losses=None,
    )  # fmt: skip
    assert spec == CellSpec(
        algorithm="rps", epsilon=0.5, horizon=63, runs=7, env="correlated",
        means=(0.25, 0.75), rho=0.3, kappa=4.0, losses=None, seed=9, mode="explicit",
    )  # fmt: skip
    default = make_spec("ftl", None, 15, 2, means=(0.5, 0.6))
    assert (default.rho, default.kappa, default.env, default.seed, default.mode) == (
        0.5, 2.0, "bernoulli", 0, "auto",
    )  # fmt: skip
    assert make_spec("rps", 1.0, 7, 1).means is None
    # staircase K = 4, gap 0.2, mu_best 0.1: gaps 0.2, 0.55, 0.9 (linear up to 1 - mu_best)
    stair = make_spec("rps", 1.0, 7, 1, K=4, gap=0.2, mu_best=0.1, instance="staircase")
    assert stair.means == pytest.approx((0.1, 0.3, 0.65, 1.0), abs=1e-15)
    assert all(type(m) is float for m in stair.means)
    assert make_spec("rps", 1.0, 7, 1, K=2, gap=0.2).means == (0.4, 0.6)


def test_exact_table_record_of_a_two_action_cell():
    """The exact table of rps (eps 1, eta 1/8) on means (1/4, 3/4), horizon 3: checkpoints 1
    and 3, run 0, estimator "exact", realized regret a float NaN, an error bound per row; at
    T = 1 the regret is the uniform first action's, gap/2 = 1/4."""
    t = exact_table(make_spec("rps", 1.0, 3, 0, means=(0.25, 0.75)))
    assert list(t.columns) == [
        "algorithm", "env", "K", "gap", "mu_best", "epsilon", "eta", "horizon", "run",
        "regret", "regret_realized", "estimator", "error_bound",
    ]  # fmt: skip
    assert t["horizon"].tolist() == [1, 3] and t["run"].tolist() == [0, 0]
    assert t["estimator"].tolist() == ["exact", "exact"]
    assert t["regret_realized"].dtype == np.float64 and t["regret_realized"].isna().all()
    assert (t["algorithm"].iloc[0], t["env"].iloc[0], t["K"].iloc[0]) == ("rps", "bernoulli", 2)
    assert (t["gap"].iloc[0], t["mu_best"].iloc[0], t["eta"].iloc[0]) == (0.5, 0.25, 0.125)
    err = t["error_bound"].to_numpy()
    assert np.all(err >= 0) and np.all(err < 1e-6)
    assert abs(t["regret"].iloc[0] - 0.25) <= err[0] + 1e-15
    assert 0.25 < t["regret"].iloc[1] < 0.25 + 2 * 0.5  # block B_1 adds 2 E[gap of A_1]


def test_run_cell_returns_the_run_table_of_its_mode_without_actions():
    """FTL on the deterministic losses (1/4, 3/4), mode "fast": only t = 1 (a tie) costs
    anything, 1/2 · 1/2, so every run's regret is 1/4 at the checkpoints 1, 3, 7, with the
    fast engine's estimator "uniform_round"; no action table unless asked for."""
    spec = make_spec("ftl", None, 7, 2, means=(0.25, 0.75), env="deterministic", mode="fast")
    table, acts, result = run_cell(spec)
    assert acts is None and result.estimator == "uniform_round"
    assert table["estimator"].tolist() == ["uniform_round"] * 6
    assert table["horizon"].tolist() == [1, 3, 7] * 2 and table["run"].tolist() == [0] * 3 + [1] * 3
    np.testing.assert_allclose(table["regret"], 0.25, rtol=1e-15)
    assert (table["algorithm"].iloc[0], table["env"].iloc[0]) == ("ftl", "deterministic")


def test_run_cell_keeps_the_block_actions_it_realized():
    """rps_full_prefix on deterministic (1/4, 3/4), explicit mode, keep_actions: one action per
    run and block; the realized regret at T = 7 is sum_r 2^r · 1/2 · [A_r = 1]; the charged
    regret at T = 1 is 1/4 (uniform A_0)."""
    spec = make_spec(
        "rps_full_prefix", 1.0, 7, 3, means=(0.25, 0.75), env="deterministic", mode="explicit"
    )
    table, acts, result = run_cell(spec, keep_actions=True)
    assert list(acts.columns) == ["run", "block", "action"] and len(acts) == 9
    assert acts["block"].tolist() == [0, 1, 2] * 3
    a = acts["action"].to_numpy().reshape(3, 3)
    last = table[table["horizon"] == 7]["regret_realized"].to_numpy()
    np.testing.assert_allclose(last, (a * [0.5, 1.0, 2.0]).sum(axis=1), rtol=1e-15)
    np.testing.assert_allclose(table[table["horizon"] == 1]["regret"], 0.25, rtol=1e-15)
    assert result.actions.shape == (3, 3) and result.estimator == "per_round"


# --- from tests/test_mutants_engine_round2.py


def test_make_spec_generates_the_means_at_the_given_best_mean():
    """K = 3, gap 0.25, mu_best 0.125 (dyadic: exact): the standard instance (0.125, 0.375,
    0.375); without mu_best the default 1/2 - gap/2 = 0.375, others 0.625."""
    from privdtol.engine.runner import make_spec

    assert make_spec("rps", 1.0, 100, 2, K=3, gap=0.25, mu_best=0.125).means == (
        0.125,
        0.375,
        0.375,
    )
    assert make_spec("rps", 1.0, 100, 2, K=3, gap=0.25).means == (0.375, 0.625, 0.625)


# --- from tests/test_mutation_guards.py


def test_seed_key_holds_every_parameter_of_the_stream():
    spec = make_spec("rps", 1.0, 63, 50, K=4, gap=0.25, seed=7)
    key = spec.seed_params(spec.build_env())
    for field, value in [
        ("algorithm", "rps"),
        ("epsilon", 1.0),
        ("horizon", 63),
        ("runs", 50),
        ("seed", 7),
    ]:
        assert key[field] == value
    other = make_spec("rps", 0.5, 63, 50, K=4, gap=0.25, seed=7)
    assert other.seed_params(other.build_env()) != key
