"""One entry point from plain parameters to the tidy run table: used by the CLI and the
pipeline alike, so both key the random stream identically (see :mod:`privdtol.core.seeding`).

A :class:`CellSpec` is the engine's cell: the law of the data (means, loss model and its
parameters), the algorithm, the sizes and the seed.  The pipeline's cell
(:class:`privdtol.pipeline.plan.Cell`: the grid's canonical parameters and the id of the cell's
file) becomes one through one function, :meth:`~privdtol.pipeline.plan.Cell.spec`; the engine's
tables then carry every parameter column of a cell file (instance, rho, kappa included), so
nothing is put back after the engine but the pipeline's own key, the cell id."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from privdtol.algorithms import make_algorithm
from privdtol.engine.fast import SimResult, simulate
from privdtol.engine.run_tables import actions_table, run_table
from privdtol.environments import LossModel, instance_means, make_env

#: the label of a cell whose means were given as such (not generated from K and gap)
GIVEN = "given"


@dataclass(frozen=True)
class CellSpec:
    """Everything that determines one simulated cell (and therefore its random stream), and the
    label ``instance`` of where its means came from (an instance family, :data:`GIVEN`, or a
    worst-case search's objective), which its table records but its stream does not depend on.
    ``rho``/``kappa`` None: the loss model's own default (its constructor's, the one place it is
    written)."""

    algorithm: str
    epsilon: float | None
    horizon: int
    runs: int
    env: str = "bernoulli"
    means: tuple[float, ...] | None = None
    rho: float | None = None
    kappa: float | None = None
    losses: str | None = None
    seed: int = 0
    mode: str = "auto"
    instance: str = GIVEN

    def build_env(self) -> LossModel:
        return make_env(self.env, self.means, rho=self.rho, kappa=self.kappa, losses=self.losses)

    def seed_params(self, env: LossModel) -> dict:
        """The seed key: the law of the data (not the file name, nor the instance's label),
        the algorithm and sizes."""
        key = {
            k: v
            for k, v in asdict(self).items()
            if k not in ("means", "losses", "rho", "kappa", "env", "instance")
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
    instance: str | None = None,
    **options,
) -> CellSpec:
    """The :class:`CellSpec` of a cell given by its instance parameters (the CLI and the
    pipeline's cells alike): ``means`` as given (``instance`` :data:`GIVEN` unless named), or,
    with ``K`` and ``gap``, the generated instance
    :func:`~privdtol.environments.instance_means` ``(K, gap, mu_best, instance)`` (``instance``
    "standard" unless named); ``options`` are its other fields (env, rho, kappa, losses, seed,
    mode)."""
    if means is None and K is not None:
        instance = instance or "standard"
        means = tuple(float(m) for m in instance_means(K, gap, mu_best, instance))
    instance = instance or GIVEN
    return CellSpec(algorithm, epsilon, horizon, runs, means=means, instance=instance, **options)


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
    return run_table(result, alg, env, spec.instance, error_bound=error), avg


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
    return run_table(result, alg, env, spec.instance), acts, result
