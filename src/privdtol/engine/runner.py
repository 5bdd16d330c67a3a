"""One entry point from plain parameters to the tidy run table: used by the CLI and the
pipeline alike, so both key the random stream identically (see :mod:`privdtol.core.seeding`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from privdtol.algorithms import make_algorithm
from privdtol.engine.fast import SimResult, simulate
from privdtol.engine.run_tables import actions_table, run_table
from privdtol.environments import LossModel, instance_means, make_env


@dataclass(frozen=True)
class CellSpec:
    """Everything that determines one simulated cell (and therefore its random stream)."""

    algorithm: str
    epsilon: float | None
    horizon: int
    runs: int
    env: str = "bernoulli"
    means: tuple[float, ...] | None = None
    rho: float = 0.5
    kappa: float = 2.0
    losses: str | None = None
    seed: int = 0
    mode: str = "auto"

    def build_env(self) -> LossModel:
        return make_env(self.env, self.means, rho=self.rho, kappa=self.kappa, losses=self.losses)

    def seed_params(self, env: LossModel) -> dict:
        """The seed key: the law of the data (not the file name), the algorithm and sizes."""
        key = {
            k: v
            for k, v in asdict(self).items()
            if k not in ("means", "losses", "rho", "kappa", "env")
        }
        return {**key, **env.params()}


def make_spec(
    algorithm: str,
    epsilon: float | None,
    horizon: int,
    runs: int,
    *,
    means: tuple[float, ...] | None = None,
    K: int | None = None,
    gap: float | None = None,
    mu_best: float | None = None,
    instance: str = "standard",
    rho: float | None = None,
    kappa: float | None = None,
    **options,
) -> CellSpec:
    """The :class:`CellSpec` of a cell given by its instance parameters (the CLI and the
    pipeline's cells alike): ``means`` as given, or, with ``K`` and ``gap``, the generated
    instance :func:`~privdtol.environments.instance_means` ``(K, gap, mu_best, instance)``;
    ``rho``/``kappa`` None keep CellSpec's defaults; ``options`` are its other fields (env,
    losses, seed, mode)."""
    if means is None and K is not None:
        means = tuple(float(m) for m in instance_means(K, gap, mu_best, instance))
    if rho is not None:
        options["rho"] = rho
    if kappa is not None:
        options["kappa"] = kappa
    return CellSpec(algorithm, epsilon, horizon, runs, means=means, **options)


def exact_table(spec: CellSpec) -> pd.DataFrame:
    """The exact expected regret of a cell (:mod:`privdtol.engine.exact`), as a table with the
    columns of :func:`~privdtol.engine.run_tables.run_table` (one row per checkpoint horizon,
    ``run`` 0, ``estimator`` "exact", no realized regret) plus ``error_bound``, a bound on the
    absolute numerical error of ``regret``.  Deterministic: no seed, no runs."""
    return exact_table_and_averager(spec)[0]


def exact_table_and_averager(spec: CellSpec):
    """:func:`exact_table` and the M-averager that computed it (its selection laws, which the
    cell's proof terms reuse: :func:`privdtol.pipeline.proof.cell_terms`)."""
    import numpy as np

    from privdtol.core import clock
    from privdtol.engine.exact import check_exact, regret_and_averager

    env = spec.build_env()
    alg = make_algorithm(spec.algorithm, spec.epsilon)
    check_exact(alg.name, env.name)
    horizons, _ = clock.checkpoints(clock.check_horizon(spec.horizon))
    regret, error, avg = regret_and_averager(
        alg.name, env.means, alg.epsilon, horizons, env=env.name
    )
    result = SimResult(horizons, regret[None, :], np.full((1, horizons.size), np.nan), "exact")
    table = run_table(result, alg, env)
    table["error_bound"] = error
    return table, avg


def run_cell(
    spec: CellSpec, progress: bool = False, keep_actions: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame | None, SimResult]:
    """Simulate a cell; return the run table, the block-action table (or None), the result.
    A cell with ``mode`` "exact" is computed by :func:`exact_table` instead."""
    env = spec.build_env()
    alg = make_algorithm(spec.algorithm, spec.epsilon)
    result = simulate(
        alg,
        env,
        spec.horizon,
        spec.runs,
        spec.seed_params(env),
        mode=spec.mode,
        keep_actions=keep_actions,
        progress=progress,
    )
    acts = actions_table(result) if keep_actions else None
    return run_table(result, alg, env), acts, result
