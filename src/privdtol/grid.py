"""The experiment grid of the pipeline: configuration -> cells -> batches.

A configuration (``config/*.yaml``, JSON schema ``workflow/schemas/config.schema.yaml``) lists
experiments; each experiment is data: a name, the algorithms, the loss model, and lists for K,
gap, epsilon and horizon (plus ``rho``/``kappa`` for the correlated/Beta models), the runs per
cell, and optional ``slices`` (partial overrides, each expanded separately; the experiment's
cells are the union).

- :func:`load_config` validates a config (schema *and* semantics) and fills the schema defaults;
  any problem is one :class:`~privdtol.errors.InputError` naming the key and the allowed values.
- :func:`expand_experiment` turns an experiment into :class:`Cell` s.  Non-private algorithms
  (``ftl``, ``hedge``) are not multiplied over the epsilon list: one cell per (K, gap, ...), with
  ``epsilon = None``.  Each cell has a stable id: a short SHA-256 of its canonical parameters,
  so its output file ``results/sim/<experiment>/<cell_id>.parquet`` depends on the cell only.
- :func:`make_batches` groups the cells of an experiment into simulation jobs by a
  deterministic greedy pass over the sorted cells, bounded by an estimated cost
  (``batching.target_seconds``) and a cell count (``batching.max_cells``).  Batches are a pure
  scheduling device: a cell's bytes never depend on the batch it lands in (its seed derives
  from its parameters, see :mod:`privdtol.seeding`).
"""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import clock
from .algorithms import ALGORITHMS
from .errors import InputError
from .runner import CellSpec, instance_means
from .seeding import stable_digest

#: the repository's schema (editable install: src/privdtol/grid.py -> repository root)
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"
#: characters of the SHA-256 hex digest kept as a cell id
CELL_ID_LENGTH = 16
#: keys of an experiment that a slice may override
SLICE_KEYS = ("algorithms", "env", "instance", "K", "gap", "epsilon", "horizon", "mu_best",
              "rho", "kappa", "runs")
#: models the pipeline simulates from generated instances (``replay`` needs a user's file)
PIPELINE_ENVS = ("bernoulli", "correlated", "beta", "deterministic")
#: cost model of :func:`estimated_seconds` (measured on one core: rps, K=1024, T=2^30-1,
#: 2000 runs takes ~5 s; explicit per-round draws are slower per element)
FAST_ELEMENTS_PER_SECOND = 12e6
EXPLICIT_ELEMENTS_PER_SECOND = 8e6
SECONDS_PER_CELL = 0.03
#: bound on a batch's --cells argument (Linux limits one argument to 128 KiB)
MAX_JSON_CHARS = 100_000


# --------------------------------------------------------------------------- validation
def _allowed(error) -> str:
    """The allowed values of a failed JSON-schema keyword, in words."""
    kw, schema = error.validator, error.schema
    if kw == "enum":
        return ", ".join(str(v) for v in schema["enum"])
    if kw == "additionalProperties":
        return ", ".join(schema.get("properties", {}))          # in the schema's order
    if kw == "required":
        return "a value for it"
    if kw in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        parts = []
        for key, op in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="),
                        ("exclusiveMaximum", "<")):
            if key in schema:
                parts.append(f"{op} {schema[key]}")
        kind = "integers" if schema.get("type") == "integer" else "numbers"
        return f"{kind} " + " and ".join(parts)
    if kw == "type":
        return f"type {schema['type']}"
    if kw in ("minItems", "maxItems"):
        return f"lists with {'at least' if kw == 'minItems' else 'at most'} {schema[kw]} items"
    if kw == "pattern":
        return f"strings matching {schema['pattern']}"
    if kw == "uniqueItems":
        return "lists without repeated values"
    return schema.get("description", kw)


def _key_path(path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


def _schema_error(error) -> InputError:
    path = list(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        key = _key_path(path + [extra[0]]) if extra else _key_path(path)
        return InputError(key, "unknown key", _allowed(error))
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return InputError(_key_path(path + missing[:1]), "missing", _allowed(error))
    return InputError(_key_path(path), f"got {error.instance!r}", _allowed(error))


def load_schema(path: str | Path | None = None) -> dict:
    import yaml

    with open(path or SCHEMA_PATH) as fh:
        return yaml.safe_load(fh)


def validate_schema(config: dict, schema: dict | None = None, set_default: bool = True) -> dict:
    """Validate ``config`` against the JSON schema; fill defaults (in place) and return it.

    The first error (in document order) becomes one InputError naming the key.
    """
    from jsonschema import Draft202012Validator, validators

    schema = schema if schema is not None else load_schema()
    errors = sorted(Draft202012Validator(schema).iter_errors(config),
                    key=lambda e: ([str(p) for p in e.absolute_path], e.validator))
    if errors:
        # prefer the most specific error (the deepest path)
        deepest = max(len(e.absolute_path) for e in errors)
        raise _schema_error(next(e for e in errors if len(e.absolute_path) == deepest))
    if set_default:
        base = Draft202012Validator

        def set_defaults(validator, properties, instance, schema):
            for prop, sub in properties.items():
                if isinstance(instance, dict) and "default" in sub:
                    instance.setdefault(prop, copy.deepcopy(sub["default"]))
            yield from base.VALIDATORS["properties"](validator, properties, instance, schema)

        Filler = validators.extend(base, {"properties": set_defaults})
        for _ in Filler(schema).iter_errors(config):
            pass
    return config


def validate_semantics(config: dict) -> dict:
    """Checks beyond the schema: unique names, epsilon present for private algorithms,
    instances that exist, sane batching.  Raises one InputError naming the key."""
    seen = set()
    for i, exp in enumerate(config["experiments"]):
        where = f"experiments[{i}]"
        if exp["name"] in seen:
            raise InputError(f"{where}.name", f"duplicate experiment {exp['name']!r}",
                             "a name used once")
        seen.add(exp["name"])
        for j, part in enumerate(_slices(exp)):
            here = where if "slices" not in exp else f"{where}.slices[{j}]"
            private = [a for a in part["algorithms"] if ALGORITHMS[a].private]
            if private and not part.get("epsilon"):
                raise InputError(f"{here}.epsilon", f"missing for private algorithms "
                                 f"{', '.join(private)}", "a list of numbers > 0")
            for K, gap in itertools.product(part["K"], part["gap"]):
                try:
                    means = instance_means(K, gap, part.get("mu_best"), part["instance"])
                except InputError as err:
                    raise InputError(f"{here}.{err.field}", f"{err.problem} (K={K}, gap={gap})",
                                     err.allowed) from None
                if part["env"] == "beta" and (means.min() <= 0 or means.max() >= 1):
                    raise InputError(f"{here}.gap", f"Beta losses need means inside (0, 1); "
                                     f"gap {gap} gives {means.min():g}..{means.max():g}",
                                     "gap < 1 with mu_best > 0")
    return config


def load_config(config: dict | str | Path, schema: dict | str | Path | None = None) -> dict:
    """Validate a config (a dict, or a YAML path) and return a filled, independent copy."""
    import yaml

    if isinstance(config, (str, Path)):
        with open(config) as fh:
            config = yaml.safe_load(fh) or {}
    else:
        config = copy.deepcopy(dict(config))
    if not isinstance(schema, dict):
        schema = load_schema(schema)
    validate_schema(config, schema)
    return validate_semantics(config)


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

    def params(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}

    @property
    def cell_id(self) -> str:
        return stable_digest(self.params())[:CELL_ID_LENGTH]

    def spec(self) -> CellSpec:
        means = tuple(float(m) for m in instance_means(self.K, self.gap, self.mu_best,
                                                       self.instance))
        extra = {}
        if self.rho is not None:
            extra["rho"] = self.rho
        if self.kappa is not None:
            extra["kappa"] = self.kappa
        return CellSpec(algorithm=self.algorithm, epsilon=self.epsilon, horizon=self.horizon,
                        runs=self.runs, env=self.env, means=means, seed=self.seed, **extra)

    def sort_key(self) -> tuple:
        nan_last = lambda v: (v is None, -1.0 if v is None else v)  # noqa: E731
        return (self.algorithm, self.env, self.instance, self.K, self.gap,
                nan_last(self.mu_best), nan_last(self.epsilon), nan_last(self.rho),
                nan_last(self.kappa), self.horizon, self.runs, self.seed)

    def estimated_seconds(self) -> float:
        """Rough single-core cost (used only to size batches)."""
        alg = ALGORITHMS[self.algorithm]
        elements = self.runs * self.K
        # no exact block sums (beta), or a small per-round problem: O(K T) per run
        explicit = self.env == "beta" or (
            alg.kind == "round" and self.horizon * elements <= (1 << 24))
        if explicit:
            return SECONDS_PER_CELL + elements * self.horizon / EXPLICIT_ELEMENTS_PER_SECOND
        return SECONDS_PER_CELL + elements * clock.n_blocks(self.horizon) / \
            FAST_ELEMENTS_PER_SECOND

    @classmethod
    def from_params(cls, params: dict) -> "Cell":
        return cls(**params)


def _slices(exp: dict) -> list[dict]:
    base = {k: exp[k] for k in SLICE_KEYS if k in exp}
    return [{**base, **s} for s in exp.get("slices") or [{}]]


def expand_experiment(exp: dict, config: dict) -> list[Cell]:
    """All cells of one (validated) experiment, deduplicated and sorted."""
    cells: dict[str, Cell] = {}
    for part in _slices(exp):
        runs = int(part.get("runs") or config["runs"])
        env = part["env"]
        rhos = part["rho"] if env == "correlated" else [None]
        kappas = part["kappa"] if env == "beta" else [None]
        for alg in part["algorithms"]:
            epsilons = part["epsilon"] if ALGORITHMS[alg].private else [None]
            for K, gap, eps, T, rho, kappa in itertools.product(
                    part["K"], part["gap"], epsilons, part["horizon"], rhos, kappas):
                cell = Cell(algorithm=alg, env=env, instance=part["instance"], K=int(K),
                            gap=float(gap), mu_best=_opt_float(part.get("mu_best")),
                            epsilon=_opt_float(eps), horizon=int(T), runs=runs,
                            rho=_opt_float(rho), kappa=_opt_float(kappa),
                            seed=int(config["seed"]))
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
    raise InputError("experiment", f"unknown experiment {name!r}",
                     ", ".join(experiment_names(config)))


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
    fields = list(Cell.__dataclass_fields__)
    return json.dumps({f: [getattr(c, f) for c in cells] for f in fields}, sort_keys=True,
                      separators=(",", ":"))


def cells_from_json(text: str) -> list[Cell]:
    """Inverse of :func:`cells_to_json` (also accepts a list of cell objects)."""
    data = json.loads(text)
    if isinstance(data, list):
        return [Cell.from_params(c) for c in data]
    fields = list(Cell.__dataclass_fields__)
    if set(data) != set(fields):
        raise ValueError(f"fields {sorted(data)} != {sorted(fields)}")
    n = len(data[fields[0]])
    return [Cell.from_params({f: data[f][i] for f in fields}) for i in range(n)]


def _json_chars(cell: Cell) -> int:
    return sum(len(json.dumps(v)) + 1 for v in cell.params().values())


def make_batches(cells: list[Cell], experiment_name: str, target_seconds: float,
                 max_cells: int) -> list[Batch]:
    """Greedy, deterministic grouping of sorted cells: close a batch when adding the next
    cell would exceed ``target_seconds`` of estimated work, ``max_cells`` cells, or
    :data:`MAX_JSON_CHARS` characters of the job's ``--cells`` argument."""
    batches, current, cost, chars = [], [], 0.0, 0
    for cell in cells:
        c, n = cell.estimated_seconds(), _json_chars(cell)
        if current and (cost + c > target_seconds or len(current) >= max_cells
                        or chars + n > MAX_JSON_CHARS):
            batches.append(current)
            current, cost, chars = [], 0.0, 0
        current.append(cell)
        cost += c
        chars += n
    if current:
        batches.append(current)
    return [Batch(experiment_name, i, tuple(b)) for i, b in enumerate(batches)]


def plan(config: dict) -> dict[str, tuple[list[Cell], list[Batch]]]:
    """experiment name -> (cells, batches) for a validated config."""
    out = {}
    for exp in config["experiments"]:
        cells = expand_experiment(exp, config)
        b = config["batching"]
        out[exp["name"]] = (cells, make_batches(cells, exp["name"], b["target_seconds"],
                                                b["max_cells"]))
    return out


def cell_path(sim_dir: str | Path, experiment_name: str, cell: Cell | str) -> str:
    cid = cell if isinstance(cell, str) else cell.cell_id
    return f"{sim_dir}/{experiment_name}/{cid}.parquet"


def summary(config: dict) -> list[dict]:
    """Per experiment: cells, batches, estimated single-core seconds."""
    rows = []
    for name, (cells, batches) in plan(config).items():
        rows.append({"experiment": name, "cells": len(cells), "batches": len(batches),
                     "estimated_seconds": round(sum(c.estimated_seconds() for c in cells), 1),
                     "max_horizon": max(c.horizon for c in cells)})
    return rows
