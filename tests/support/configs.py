"""Small pipeline configs and the cells planned from them, shared by the config, plan, limits,
aggregate and exact-engine tests."""

from __future__ import annotations

import pytest

from privdtol.errors import InputError
from privdtol.pipeline import config, plan
from privdtol.pipeline.config import load_config
from support.paths import SMOKE

#: the horizon 2^30 - 1
T30 = (1 << 30) - 1
#: the horizon 2^20 - 1
T20 = (1 << 20) - 1

#: one small experiment's keys: rps at K = 2, gap 1/2, eps 1, T = 1023
SMALL = {"algorithms": ["rps"], "K": [2], "gap": [0.5], "epsilon": [1.0], "horizon": [1023]}


def minimal(**exp) -> dict:
    """One experiment ``e`` (rps and ftl, K in {2, 4}, two gaps, three epsilons, T = 2^30 - 1;
    ``exp`` overrides) and nothing else."""
    base = {
        "name": "e",
        "algorithms": ["rps", "ftl"],
        "K": [2, 4],
        "gap": [0.5, 0.25],
        "epsilon": [1.0, 0.5, 0.25],
        "horizon": [T30],
    }
    base.update(exp)
    return {"experiments": [base]}


def smoke_with_one(**exp) -> dict:
    """The smoke config with one experiment ``x`` of the keys given."""
    cfg = config.read_config_files([SMOKE])
    cfg["experiments"] = [{"name": "x", **exp}]
    return cfg


def refusal_message(cfg) -> str:
    """The one-line message of the InputError that loading ``cfg`` raises."""
    with pytest.raises(InputError) as err:
        config.load_config(cfg)
    return str(err.value)


def exact_config(exact=None, **exp) -> dict:
    """One experiment ``e`` (rps, rnm_ftnl and ftl at K = 4, gap 1/4, eps 1/2, T = 2^20 - 1;
    ``exp`` overrides) with 50 runs, seed 7 and, when given, the ``exact`` switch."""
    base = {
        "name": "e",
        "algorithms": ["rps", "rnm_ftnl", "ftl"],
        "K": [4],
        "gap": [0.25],
        "epsilon": [0.5],
        "horizon": [T20],
    }
    base.update(exp)
    cfg = {"runs": 50, "seed": 7, "experiments": [base]}
    if exact is not None:
        cfg["exact"] = exact
    return cfg


def planned_cells(cfg) -> dict:
    """The cells of the config's one experiment, by algorithm."""
    (cells, _), *_ = plan.plan(load_config(cfg)).values()
    return {c.algorithm: c for c in cells}


def bernoulli_cell(algorithm, eps, gap=0.125) -> plan.Cell:
    """A standard Bernoulli cell at K = 8, T = 2^20 - 1, no runs, seed 0."""
    return plan.Cell.from_params(
        dict(
            algorithm=algorithm,
            env="bernoulli",
            K=8,
            gap=gap,
            epsilon=eps,
            horizon=(1 << 20) - 1,
            runs=0,
            seed=0,
            instance="standard",
            mu_best=None,
            rho=None,
            kappa=None,
        )
    )
