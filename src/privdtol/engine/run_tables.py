"""Turn a :class:`~privdtol.engine.fast.SimResult` into the tidy long table of the CLI contract:
one row per run and checkpoint horizon."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.algorithms import Algorithm
from privdtol.engine.fast import SimResult
from privdtol.environments import LossModel


def run_table(result: SimResult, alg: Algorithm, env: LossModel) -> pd.DataFrame:
    runs, n_ckpt = result.regret.shape
    eta = getattr(alg, "eta", np.nan)
    return pd.DataFrame(
        {
            "algorithm": alg.name,
            "env": env.name,
            "K": env.K,
            "gap": env.delta_min,
            "mu_best": float(env.means.min()),
            "epsilon": np.nan if alg.epsilon is None else alg.epsilon,
            "eta": float(eta),
            "horizon": np.tile(result.checkpoints, runs),
            "run": np.repeat(np.arange(runs), n_ckpt),
            "regret": result.regret.ravel(),
            "regret_realized": result.regret_realized.ravel(),
            "estimator": result.estimator,
        }
    )


def actions_table(result: SimResult) -> pd.DataFrame:
    runs, blocks = result.actions.shape
    return pd.DataFrame(
        {
            "run": np.repeat(np.arange(runs), blocks),
            "block": np.tile(np.arange(blocks), runs),
            "action": result.actions.ravel(),
        }
    )
