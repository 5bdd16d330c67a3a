"""Tests of :mod:`privdtol.engine.choice`: the engine of a cell and the reason, from the
algorithm's declarations, the loss model and the config's ``exact``."""

from __future__ import annotations

import pytest

from privdtol.engine.choice import engine_of


@pytest.mark.parametrize(
    "alg,env,how,engine,why",
    [
        ("rps", "bernoulli", "auto", "exact", "declared law softmax"),
        ("rps_uniform_mix", "bernoulli", "required", "exact", "mixed with uniform (0.0625)"),
        ("wu_wang", "deterministic", "auto", "exact", "declared law laplace_noisy_min"),
        ("rps", "correlated", "auto", "monte carlo", "loss model correlated has no exact"),
        ("uniform", "bernoulli", "auto", "monte carlo", "declares no exact selection law"),
        ("hedge", "bernoulli", "auto", "monte carlo", "a per-round algorithm"),
        ("rps", "bernoulli", "off", "monte carlo", "exact: off"),
        ("rps", "bernoulli", "explicit", "explicit", "round-by-round"),
    ],
)
def test_engine_and_reason(alg, env, how, engine, why):
    got, reason = engine_of(alg, env, how)
    assert got == engine and why in reason, (got, reason)
