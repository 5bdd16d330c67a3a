"""The experiment grid of the pipeline: configuration -> cells -> batches.

A configuration (``config/*.yaml``, JSON schema ``privdtol/pipeline/config.schema.yaml``) lists
experiments; each experiment is data: a name, the algorithms, the loss model, and lists for K,
gap, epsilon and horizon (plus ``rho``/``kappa`` for the correlated/Beta models), the runs per
cell, and optional ``slices`` (partial overrides, each expanded separately; the experiment's
cells are the union).

- :func:`privdtol.pipeline.config.load_config` validates a config (schema *and* semantics)
  and fills the schema defaults;
  any problem is one :class:`~privdtol.errors.InputError` naming the key and the allowed values.
- :func:`expand_experiment` turns an experiment into :class:`Cell` s.  Non-private algorithms
  (``ftl``, ``hedge``) are not multiplied over the epsilon list: one cell per (K, gap, ...), with
  ``epsilon = None``.  Each cell has a stable id: a short SHA-256 of its canonical parameters,
  so its output file ``results/sim/<experiment>/<cell_id>.parquet`` depends on the cell only.
- :func:`make_batches` groups the cells of an experiment into simulation jobs by a
  deterministic greedy pass over the sorted cells, bounded by an estimated cost
  (``batching.target_seconds``) and a cell count (``batching.max_cells``).  Batches are a pure
  scheduling device: a cell's bytes never depend on the batch it lands in (its seed derives
  from its parameters, see :mod:`privdtol.core.seeding`).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from privdtol.algorithms import ALGORITHMS
from privdtol.core import clock
from privdtol.core.seeding import stable_digest
from privdtol.engine import ENGINE_VERSION
from privdtol.engine.choice import EXACT_SETTINGS
from privdtol.engine.exact import cost_units, exact_available, law_family
from privdtol.engine.runner import CellSpec, make_spec
from privdtol.environments import instance_means
from privdtol.errors import InputError
from privdtol.pipeline.config import experiment_slices
from privdtol.pipeline.limits import check_plan

#: characters of the SHA-256 hex digest kept as a cell id
CELL_ID_LENGTH = 16
#: cost model of :meth:`Cell.estimated_seconds` (measured on one core: rps, K=1024, T=2^30-1,
#: 2000 runs takes ~5 s; explicit per-round draws are slower per element)
FAST_ELEMENTS_PER_SECOND = 12e6
EXPLICIT_ELEMENTS_PER_SECOND = 8e6
SECONDS_PER_CELL = 0.03
#: an exact cell (privdtol.engine.exact): CPU seconds per unit of its work estimate
#: (:func:`~privdtol.engine.exact.cost_units`), the median over 180 paper-config cells timed on
#: one core (0.02 s to 90 s a cell; the model is within a factor of 3 for most of them)
SECONDS_PER_EXACT_UNIT = 6.7e-7
#: bound on a batch's --cells argument (Linux limits one argument to 128 KiB)
MAX_JSON_CHARS = 100_000


def monte_carlo_seconds(K: int, runs: int, horizon: int, explicit: bool) -> float:
    """Rough single-core seconds of a Monte Carlo cell: O(K T) per run round by round
    (``explicit``: the per-round reference, or a loss model without exact block sums), else
    O(K log T) per run (the batching cost model; ``privdtol simulate`` refuses by it too)."""
    elements = float(runs) * K
    if explicit:
        return SECONDS_PER_CELL + elements * horizon / EXPLICIT_ELEMENTS_PER_SECOND
    return SECONDS_PER_CELL + elements * clock.n_blocks(horizon) / FAST_ELEMENTS_PER_SECOND


# --------------------------------------------------------------------------- cells
@dataclass(frozen=True)
class Cell:
    """One simulated cell: canonical parameters (and derived id)."""

    algorithm: str
    env: str
    instance: str
    K: int
    gap: float
    mu_best: float | None
    epsilon: float | None
    horizon: int
    runs: int
    rho: float | None
    kappa: float | None
    seed: int
    #: how a Monte Carlo cell is simulated: "auto" (:func:`privdtol.engine.fast.resolve_mode`:
    #: block sums where the loss model has an exact law) or "explicit" (the round-by-round
    #: reference :mod:`privdtol.engine.explicit`, a slice's ``exact: explicit``; C0 compares
    #: it with the exact engine)
    engine: str = "auto"

    def params(self) -> dict[str, Any]:
        """The canonical parameters; ``engine`` only when it is not "auto", so that the ids,
        files and proof records of every cell from before the field existed are unchanged."""
        out = {f: getattr(self, f) for f in self.__dataclass_fields__}
        if out["engine"] == "auto":
            del out["engine"]
        return out

    @cached_property
    def cell_id(self) -> str:
        """A short SHA-256 of the parameters and the engine version: a new law of the engine
        (:data:`~privdtol.engine.ENGINE_VERSION` bumped) gives every cell a new id and file.
        Computed once per cell (Snakemake's parse of the paper config asks for each about six
        times)."""
        params = {**self.params(), "engine_version": ENGINE_VERSION}
        return stable_digest(params)[:CELL_ID_LENGTH]

    @property
    def exact(self) -> bool:
        """An exact cell (``runs`` 0): its expected regret is computed, not sampled."""
        return self.runs == 0

    def spec(self) -> CellSpec:
        """The engine's cell (:class:`~privdtol.engine.runner.CellSpec`): the one boundary
        between the two; its generated means, its mode ("exact" for an exact cell, else
        ``engine``) and its loss model's parameters (``rho``/``kappa`` None: not the model's,
        or its default)."""
        params = self.params()
        mode = "exact" if self.exact else params.pop("engine", "auto")
        return make_spec(**params, mode=mode)

    def sort_key(self) -> tuple:
        """Batch order: exact cells by the kind of their rule first and their algorithm
        last, so that cells whose laws may coincide (``rnm_ftnl`` and ``wu_wang`` on Bernoulli
        losses, ``rps`` at eps >= 1/4) are neighbours, whose regret the exact engine then
        computes once (:func:`privdtol.engine.exact.regret_and_averager`)."""
        nan_last = lambda v: (v is None, -1.0 if v is None else v)  # noqa: E731
        return (
            f"exact {law_family(self.algorithm)}" if self.exact else self.algorithm,
            self.env,
            self.instance,
            self.K,
            self.gap,
            nan_last(self.mu_best),
            nan_last(self.epsilon),
            nan_last(self.rho),
            nan_last(self.kappa),
            self.horizon,
            self.runs,
            self.seed,
            self.engine,
            self.algorithm,
        )

    def estimated_seconds(self) -> float:
        """Rough single-core cost (used to size batches and by the size guard, once a cell)."""
        return _estimated_seconds(self)

    def _estimate(self) -> float:
        if self.exact:
            means = instance_means(self.K, self.gap, self.mu_best, self.instance)
            work = cost_units(self.algorithm, means, self.epsilon, self.horizon, self.env)
            return SECONDS_PER_CELL + SECONDS_PER_EXACT_UNIT * work
        alg = ALGORITHMS[self.algorithm]
        elements = self.runs * self.K
        # no exact block sums (beta), or a small per-round problem: O(K T) per run
        explicit = (
            self.env == "beta"
            or self.engine == "explicit"
            or (alg.kind == "round" and self.horizon * elements <= (1 << 24))
        )
        return monte_carlo_seconds(self.K, self.runs, self.horizon, explicit)

    @classmethod
    def from_params(cls, params: dict) -> Cell:
        return cls(**params)


@lru_cache(maxsize=1 << 16)
def _estimated_seconds(cell: Cell) -> float:
    return cell._estimate()


def expand_experiment(exp: dict, config: dict) -> list[Cell]:
    """All cells of one (validated) experiment, deduplicated and sorted."""
    cells: dict[str, Cell] = {}
    for part in experiment_slices(exp):
        runs = int(part.get("runs") or config["runs"])
        env = part["env"]
        rhos = part["rho"] if env == "correlated" else [None]
        kappas = part["kappa"] if env == "beta" else [None]
        for alg in part["algorithms"]:
            epsilons = part["epsilon"] if ALGORITHMS[alg].private else [None]
            # exact cells: no runs and no seed (their value does not depend on either)
            how = part.get("exact", config["exact"])
            exact = how in EXACT_SETTINGS and exact_available(alg, env)
            for K, gap, eps, T, rho, kappa in itertools.product(
                part["K"], part["gap"], epsilons, part["horizon"], rhos, kappas
            ):
                cell = Cell(
                    algorithm=alg,
                    env=env,
                    instance=part["instance"],
                    K=int(K),
                    gap=float(gap),
                    mu_best=_opt_float(part.get("mu_best")),
                    epsilon=_opt_float(eps),
                    horizon=int(T),
                    runs=0 if exact else runs,
                    rho=_opt_float(rho),
                    kappa=_opt_float(kappa),
                    seed=0 if exact else int(config["seed"]),
                    engine="explicit" if how == "explicit" else "auto",
                )
                cells.setdefault(cell.cell_id, cell)
    return sorted(cells.values(), key=Cell.sort_key)


def _opt_float(v):
    return None if v is None else float(v)


def experiment_names(config: dict) -> list[str]:
    return [exp["name"] for exp in config["experiments"]]


def experiment(config: dict, name: str) -> dict:
    for exp in config["experiments"]:
        if exp["name"] == name:
            return exp
    raise InputError(
        "experiment", f"unknown experiment {name!r}", ", ".join(experiment_names(config))
    )


# --------------------------------------------------------------------------- batches
@dataclass(frozen=True)
class Batch:
    experiment: str
    index: int
    cells: tuple[Cell, ...]

    @property
    def name(self) -> str:
        return f"{self.experiment}_{self.index:03d}"

    def estimated_seconds(self) -> float:
        return sum(c.estimated_seconds() for c in self.cells)

    def cells_json(self) -> str:
        """The batch's cells as compact canonical JSON, column-wise ({field: [values]}):
        the simulate-batch job's input (see :func:`cells_from_json`)."""
        return cells_to_json(self.cells)


def cells_to_json(cells) -> str:
    """Column-wise JSON of ``cells``; the ``engine`` column only when a cell is not "auto"
    (a batch's JSON, a rule's params, is then what it was before the field existed)."""
    fields = list(Cell.__dataclass_fields__)
    if all(c.engine == "auto" for c in cells):
        fields.remove("engine")
    return json.dumps(
        {f: [getattr(c, f) for c in cells] for f in fields}, sort_keys=True, separators=(",", ":")
    )


def cells_from_json(text: str) -> list[Cell]:
    """Inverse of :func:`cells_to_json` (also accepts a list of cell objects)."""
    data = json.loads(text)
    if isinstance(data, list):
        return [Cell.from_params(c) for c in data]
    fields = list(Cell.__dataclass_fields__)
    if set(data) == set(fields) - {"engine"}:
        fields.remove("engine")
    if set(data) != set(fields):
        raise ValueError(f"fields {sorted(data)} != {sorted(fields)}")
    n = len(data[fields[0]])
    return [Cell.from_params({f: data[f][i] for f in fields}) for i in range(n)]


def _json_chars(cell: Cell) -> int:
    return sum(len(json.dumps(v)) + 1 for v in cell.params().values())


def make_batches(
    cells: list[Cell], experiment_name: str, target_seconds: float, max_cells: int
) -> list[Batch]:
    """Greedy, deterministic grouping of sorted cells: close a batch when adding the next
    cell would exceed ``target_seconds`` of estimated work, ``max_cells`` cells, or
    :data:`MAX_JSON_CHARS` characters of the job's ``--cells`` argument."""
    batches, current, cost, chars = [], [], 0.0, 0
    for cell in cells:
        c, n = cell.estimated_seconds(), _json_chars(cell)
        if current and (
            cost + c > target_seconds or len(current) >= max_cells or chars + n > MAX_JSON_CHARS
        ):
            batches.append(current)
            current, cost, chars = [], 0.0, 0
        current.append(cell)
        cost += c
        chars += n
    if current:
        batches.append(current)
    return [Batch(experiment_name, i, tuple(b)) for i, b in enumerate(batches)]


def plan(config: dict) -> dict[str, tuple[list[Cell], list[Batch]]]:
    """experiment name -> (cells, batches) for a validated config; a grid above the config's
    ``limits`` (jobs, CPU hours) is one InputError
    (:func:`~privdtol.pipeline.limits.check_plan`)."""
    out = {}
    for exp in config["experiments"]:
        cells = expand_experiment(exp, config)
        b = config["batching"]
        out[exp["name"]] = (
            cells,
            make_batches(cells, exp["name"], b["target_seconds"], b["max_cells"]),
        )
    if "limits" in config:
        check_plan(_rows(out), config["limits"])
    return out


def _rows(planned) -> list[dict]:
    return [
        {
            "experiment": name,
            "cells": len(cells),
            "batches": len(batches),
            "estimated_seconds": round(sum(c.estimated_seconds() for c in cells), 1),
            "max_horizon": max(c.horizon for c in cells),
        }
        for name, (cells, batches) in planned.items()
    ]


#: the key of a cell file's table attributes (Parquet metadata) that carries the cell's
#: parameters (:meth:`Cell.params`): the promise its reader
#: (:func:`privdtol.pipeline.aggregate.read_cell`) holds the file's rows and id to
CELL_ATTR = "privdtol_cell"
#: the key of a cell file's metadata that holds the digest of the code that computed it
#: (:func:`privdtol.pipeline.staleness.cell_code`): a file of other code is computed again
CODE_ATTR = "privdtol_code"


def cell_path(sim_dir: str | Path, experiment_name: str, cell: Cell | str) -> str:
    cid = cell if isinstance(cell, str) else cell.cell_id
    return f"{sim_dir}/{experiment_name}/{cid}.parquet"


def summary(config: dict) -> list[dict]:
    """Per experiment: cells, batches, estimated single-core seconds."""
    return _rows(plan(config))
