"""Turn a :class:`~privdtol.engine.fast.SimResult` into the tidy long table of the CLI contract:
one row per run and checkpoint horizon."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privdtol.algorithms import Algorithm
from privdtol.engine.fast import SimResult
from privdtol.environments import LossModel


def run_table(
    result: SimResult, alg: Algorithm, env: LossModel, instance: str, error_bound=None
) -> pd.DataFrame:
    """One row per run and checkpoint: the cell's parameters (the algorithm's eps and eta, the
    instance's K, gap and best mean), the regret and its estimator; then ``error_bound`` (an
    exact table's bound on each value's numerical error, if given), the label ``instance`` of
    where the means came from, and the loss model's ``rho`` and ``kappa`` (NaN for a model
    without them): the parameter columns of a cell file
    (:data:`privdtol.pipeline.aggregate.CELL_FILE_COLUMNS`), in its order."""
    runs, n_ckpt = result.regret.shape
    eta = getattr(alg, "eta", np.nan)
    law = env.params()
    columns = {
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
    if error_bound is not None:
        columns["error_bound"] = np.tile(error_bound, runs)
    columns["instance"] = instance
    columns["rho"] = float(law.get("rho", np.nan))
    columns["kappa"] = float(law.get("kappa", np.nan))
    return pd.DataFrame(columns)


def actions_table(result: SimResult) -> pd.DataFrame:
    runs, blocks = result.actions.shape
    return pd.DataFrame(
        {
            "run": np.repeat(np.arange(runs), blocks),
            "block": np.tile(np.arange(blocks), runs),
            "action": result.actions.ravel(),
        }
    )
