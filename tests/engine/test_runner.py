"""Tests of :mod:`privdtol.engine.runner`: a cell's specification (its means, loss model and
the seed key of its random stream), its exact table and the run of one cell."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from privdtol.engine.runner import CellSpec, exact_table, make_spec, run_cell


def test_make_spec_passes_every_field_through():
    """Every field given to make_spec lands in the CellSpec of the same name; rho/kappa None
    leave the loss model's defaults (0.5, 2.0), written in the model alone; means given are
    kept even with K, labelled instance "given"; generated ones carry their family."""
    spec = make_spec(
        "rps", 0.5, 63, 7, means=(0.25, 0.75), K=3, gap=0.1, rho=0.3, kappa=4.0,
        env="correlated", seed=9, mode="explicit", losses=None,
    )  # fmt: skip
    assert spec == CellSpec(
        algorithm="rps", epsilon=0.5, horizon=63, runs=7, env="correlated",
        means=(0.25, 0.75), rho=0.3, kappa=4.0, losses=None, seed=9, mode="explicit",
        instance="given",
    )  # fmt: skip
    default = make_spec("ftl", None, 15, 2, means=(0.5, 0.6))
    assert (default.rho, default.kappa, default.env, default.seed, default.mode) == (
        None, None, "bernoulli", 0, "auto",
    )  # fmt: skip
    assert make_spec("ftl", None, 15, 2, means=(0.5, 0.6), env="correlated").build_env().rho == 0.5
    assert make_spec("ftl", None, 15, 2, means=(0.5, 0.6), env="beta").build_env().kappa == 2.0
    assert make_spec("rps", 1.0, 7, 1).means is None
    # staircase K = 4, gap 0.2, mu_best 0.1: gaps 0.2, 0.55, 0.9 (linear up to 1 - mu_best)
    stair = make_spec("rps", 1.0, 7, 1, K=4, gap=0.2, mu_best=0.1, instance="staircase")
    assert stair.means == pytest.approx((0.1, 0.3, 0.65, 1.0), abs=1e-15)
    assert all(type(m) is float for m in stair.means) and stair.instance == "staircase"
    standard = make_spec("rps", 1.0, 7, 1, K=2, gap=0.2)
    assert standard.means == (0.4, 0.6) and standard.instance == "standard"


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


def test_cell_spec_builds_its_loss_model_with_every_parameter():
    from privdtol.engine.runner import CellSpec

    spec = CellSpec("rps", 1.0, 3, 1, env="beta", means=(0.4, 0.5), kappa=5.0)
    assert spec.build_env().kappa == 5.0
    spec = CellSpec("rps", 1.0, 3, 1, env="correlated", means=(0.4, 0.5), rho=0.25)
    assert spec.build_env().rho == 0.25


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


def test_exact_table_record_of_a_two_action_cell():
    """The exact table of rps (eps 1, eta 1/8) on means (1/4, 3/4), horizon 3: checkpoints 1
    and 3, run 0, estimator "exact", realized regret a float NaN, an error bound per row; at
    T = 1 the regret is the uniform first action's, gap/2 = 1/4."""
    t = exact_table(make_spec("rps", 1.0, 3, 0, means=(0.25, 0.75)))
    assert list(t.columns) == [
        "algorithm", "env", "K", "gap", "mu_best", "epsilon", "eta", "horizon", "run",
        "regret", "regret_realized", "estimator", "error_bound", "instance", "rho", "kappa",
    ]  # fmt: skip
    assert t["instance"].tolist() == ["given", "given"]
    assert t["rho"].isna().all() and t["kappa"].isna().all()
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


def _table_bytes(seed: int) -> bytes:
    spec = make_spec("rps", 1.0, 63, 50, K=4, gap=0.25, seed=seed, mode="fast")
    table, _, _ = run_cell(spec)
    buf = io.BytesIO()
    table.to_parquet(buf, index=False)
    return buf.getvalue()


def test_two_seeds_give_different_draws_and_one_seed_the_same_bytes():
    """The seed is part of the random stream's key (engine/runner.py CellSpec.seed_params):
    replicates with another seed must not repeat the same draws."""
    a, b = _table_bytes(0), _table_bytes(1)
    assert a == _table_bytes(0)
    assert a != b
    ra = pd.read_parquet(io.BytesIO(a))["regret"].to_numpy()
    rb = pd.read_parquet(io.BytesIO(b))["regret"].to_numpy()
    assert not np.array_equal(ra, rb)
