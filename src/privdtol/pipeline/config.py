"""The one configuration loader of the pipeline (Snakefile, CLI and report alike).

A configuration (``config/*.yaml``) is validated against the JSON schema shipped with the
package (:data:`SCHEMA_PATH`, ``privdtol/pipeline/config.schema.yaml``) and then semantically
(:func:`validate_semantics`); schema defaults are filled in.  Several files merge in order, as
Snakemake's ``--configfile`` does (:func:`load_config_files`).  Any problem is one
:class:`~privdtol.errors.InputError` naming the key and the allowed values.
"""

from __future__ import annotations

import copy
import itertools
from functools import lru_cache
from pathlib import Path

from privdtol.algorithms import ALGORITHMS
from privdtol.environments.instances import instance_means
from privdtol.errors import InputError
from privdtol.pipeline import limits as size
from privdtol.pipeline.semantics import check_values, key_path
from privdtol.pipeline.yaml_load import read_mapping

#: the JSON schema of a config, shipped as package data
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")
#: keys of an experiment that a slice may override
SLICE_KEYS = (
    "algorithms",
    "env",
    "instance",
    "K",
    "gap",
    "epsilon",
    "horizon",
    "mu_best",
    "rho",
    "kappa",
    "runs",
    "exact",
)


# --------------------------------------------------------------------------- validation
#: JSON-schema range keywords and how they read
RANGE_WORDS = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}


def bounds_text(schema: dict, words: dict = RANGE_WORDS, show=str) -> str:
    """A schema node's range keywords in words, e.g. ">= 1 and < 2" ("" if none)."""
    return " and ".join(f"{op} {show(schema[key])}" for key, op in words.items() if key in schema)


def _allowed(error) -> str:
    """The allowed values of a failed JSON-schema keyword, in words."""
    kw, schema = error.validator, error.schema
    if kw == "enum":
        return ", ".join(str(v) for v in schema["enum"])
    if kw == "additionalProperties":
        return ", ".join(schema.get("properties", {}))  # in the schema's order
    if kw == "required":
        return "a value for it"
    if kw in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        kind = "integers" if schema.get("type") == "integer" else "numbers"
        return f"{kind} " + bounds_text(schema)
    if kw == "type":
        return f"type {schema['type']}"
    if kw in ("minItems", "maxItems"):
        return f"lists with {'at least' if kw == 'minItems' else 'at most'} {schema[kw]} items"
    if kw in ("maxLength", "minLength"):
        most = "at most" if kw == "maxLength" else "at least"
        return f"strings of {most} {schema[kw]} characters"
    if kw == "pattern":
        return f"strings matching {schema['pattern']}"
    if kw == "uniqueItems":
        return "lists without repeated values"
    return schema.get("description", kw)


def _schema_error(error) -> InputError:
    path = list(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        key = key_path([*path, extra[0]]) if extra else key_path(path)
        return InputError(key, "unknown key", _allowed(error))
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return InputError(key_path(path + missing[:1]), "missing", _allowed(error))
    return InputError(key_path(path), f"got {error.instance!r}", _allowed(error))


def load_schema(path: str | Path | None = None) -> dict:
    """The JSON schema (the shipped one by default; parsed once, a fresh copy each call)."""
    if path is None:
        return copy.deepcopy(_shipped_schema())
    return read_mapping(path, "schema")


@lru_cache(maxsize=1)
def _shipped_schema() -> dict:
    return derive_multiverse(registry_enums(read_mapping(SCHEMA_PATH, "schema")))


def registry_enums(schema: dict) -> dict:
    """``schema`` with the enums that the registries define filled in at load time (the YAML
    file names none of them, so an installed plugin is accepted like a built-in): the
    algorithms (``$defs.algorithms``), the loss models the pipeline generates instances for
    (``$defs.env``) and the algorithms the worst-case searches accept (the private ones of the
    exact engine that are not negative controls).  The audited algorithms are checked by the
    privacy layer (:func:`privdtol.privacy.audit_grid.merge_grid`).  An experiment's default
    ``rho`` and ``kappa`` are the loss models' own
    (:data:`~privdtol.environments.correlated.DEFAULT_RHO`,
    :data:`~privdtol.environments.beta.DEFAULT_KAPPA`: written once, in the model)."""
    from privdtol.engine.exact import EXACT_ALGORITHMS
    from privdtol.environments import PIPELINE_MODELS
    from privdtol.environments.beta import DEFAULT_KAPPA
    from privdtol.environments.correlated import DEFAULT_RHO

    experiment = schema["properties"]["experiments"]["items"]["properties"]
    experiment["rho"]["default"] = [DEFAULT_RHO]
    experiment["kappa"]["default"] = [DEFAULT_KAPPA]
    defs = schema["$defs"]
    defs["algorithms"]["items"]["enum"] = list(ALGORITHMS)
    defs["env"]["enum"] = list(PIPELINE_MODELS)
    searched = [
        n for n in EXACT_ALGORITHMS if ALGORITHMS[n].private and ALGORITHMS[n].role != "control"
    ]
    worst = schema["properties"]["worst_case"]["properties"]
    worst["algorithms"]["items"]["enum"] = searched
    worst["cells"]["items"]["properties"]["algorithms"]["items"]["enum"] = searched
    return schema


def derive_multiverse(schema: dict) -> dict:
    """``checks.multiverse``'s keys from the thresholds of ``checks`` (one definition): each a
    non-empty list of values of that threshold's schema (type, range, order); any other key is
    unknown."""
    checks = schema["properties"]["checks"]["properties"]
    items = {
        key: {k: v for k, v in node.items() if k not in ("default", "description")}
        for key, node in checks.items()
        if key not in MULTIVERSE_EXCLUDED
    }
    checks["multiverse"]["properties"] = {
        key: {
            "description": f"values of {key} to try (each of its type and range)",
            "type": "array",
            "minItems": 1,
            "items": item,
        }
        for key, item in items.items()
    }
    return schema


#: the ``checks`` keys that are not thresholds of a verdict (no multiverse range)
MULTIVERSE_EXCLUDED = ("multiverse", "power_replicates", "battery_replicates")
#: the schema keyword of a two-number range that must be ordered (low < high)
ORDERED = "x-ordered"


def check_defaults() -> dict:
    """The schema's defaults of the ``checks:`` block (the thresholds of the claim checks), for
    a notebook run by hand without the config's values."""
    props = load_schema()["properties"]["checks"]["properties"]
    return {k: v["default"] for k, v in props.items() if "default" in v}


def validate_schema(config: dict, schema: dict | None = None, set_default: bool = True) -> dict:
    """Validate ``config`` against the JSON schema; fill defaults (in place) and return it.

    The first error (in document order) becomes one InputError naming the key.
    """
    from jsonschema import Draft202012Validator, validators

    schema = schema if schema is not None else load_schema()
    errors = sorted(
        Draft202012Validator(schema).iter_errors(config),
        key=lambda e: ([str(p) for p in e.absolute_path], e.validator),
    )
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


def validate_privacy(grid) -> dict:
    """The ``privacy:`` block alone (``privdtol audit-grid --grid-json``), by the config's
    schema: one InputError naming ``privacy.<key>``; the schema's defaults filled in (in
    place), as in a whole config."""
    schema = load_schema()
    sub = {
        "$defs": schema["$defs"],
        "type": "object",
        "properties": {"privacy": schema["properties"]["privacy"]},
    }
    check_values(grid, ["privacy"])
    validate_schema({"privacy": grid}, sub)
    return grid


def validate_semantics(config: dict) -> dict:
    """Checks beyond the schema: the grid's
    size (``limits.max_cells``, counted before any cell is built), unique names, epsilon
    present for private algorithms, instances that exist, and every cell within the engine's
    limits (:func:`privdtol.pipeline.limits.check_cell`: a unique best action, the exact
    engine's temperature floor, ``limits.max_memory_gb``).  Raises one InputError naming the
    key.  (The output directories are checked where outputs are planned, by the workflow and
    ``check-config``: :func:`.semantics.check_out_dirs`.)"""
    lim = config["limits"]
    private = lambda a: ALGORITHMS[a].private  # noqa: E731
    cells = {
        e["name"]: sum(size.count_cells(p, private) for p in experiment_slices(e))
        for e in config["experiments"]
    }
    if sum(cells.values()) > lim["max_cells"]:
        big = max(cells, key=cells.get)
        raise InputError(
            "limits.max_cells",
            f"the grid has {sum(cells.values())} cells (experiment {big!r}: {cells[big]})",
            f"<= {lim['max_cells']}; raise limits.max_cells or shrink the experiment",
        )
    from privdtol.pipeline import semantics  # imports this module

    semantics.check_ordered(config, load_schema()["properties"]["checks"]["properties"], ORDERED)
    seen = set()
    for i, exp in enumerate(config["experiments"]):
        where = f"experiments[{i}]"
        semantics.check_name(exp["name"], f"{where}.name")
        if exp["name"] in seen:
            raise InputError(
                f"{where}.name", f"duplicate experiment {exp['name']!r}", "a name used once"
            )
        seen.add(exp["name"])
        for j, part in enumerate(experiment_slices(exp)):
            here = where if "slices" not in exp else f"{where}.slices[{j}]"
            private = [a for a in part["algorithms"] if ALGORITHMS[a].private]
            if private and not part.get("epsilon"):
                raise InputError(
                    f"{here}.epsilon",
                    f"missing for private algorithms {', '.join(private)}",
                    "a list of numbers > 0",
                )
            for K, gap in itertools.product(part["K"], part["gap"]):
                try:
                    means = instance_means(K, gap, part.get("mu_best"), part["instance"])
                except InputError as err:
                    raise InputError(
                        f"{here}.{err.field}", f"{err.problem} (K={K}, gap={gap})", err.allowed
                    ) from None
                if part["env"] == "beta" and (means.min() <= 0 or means.max() >= 1):
                    raise InputError(
                        f"{here}.gap",
                        f"Beta losses need means inside (0, 1); "
                        f"gap {gap} gives {means.min():g}..{means.max():g}",
                        "gap < 1 with mu_best > 0",
                    )
                _check_cells(config, part, means, f"{here}.")
    check_required(config)
    return config


def check_required(config: dict) -> None:
    """Refuse (one InputError) a slice whose ``exact: required`` names a cell the exact engine
    cannot compute (:func:`privdtol.engine.choice.engine_of` says why)."""
    from privdtol.engine.choice import engine_of

    for i, exp in enumerate(config["experiments"]):
        for j, part in enumerate(experiment_slices(exp)):
            if part.get("exact", config.get("exact")) != "required":
                continue
            for alg in part["algorithms"]:
                engine, why = engine_of(alg, part["env"], "required")
                if engine != "exact":
                    where = f"experiments[{i}]" + (f".slices[{j}]" if "slices" in exp else "")
                    raise InputError(
                        f"{where}.exact",
                        f"required, but {alg} on {part['env']} cannot be computed exactly: {why}",
                        "auto (Monte Carlo where the exact engine cannot), off, explicit",
                    )


def _check_cells(config: dict, part: dict, means, where: str) -> None:
    """The engine's limits on each cell of one (slice, K, gap)."""
    from privdtol.engine.choice import EXACT_SETTINGS
    from privdtol.engine.exact import exact_available

    runs = int(part.get("runs") or config["runs"])
    max_bytes = config["limits"]["max_memory_gb"] * 1e9
    for alg in part["algorithms"]:
        how = part.get("exact", config["exact"])
        exact = how in EXACT_SETTINGS and exact_available(alg, part["env"])
        epsilons = part["epsilon"] if ALGORITHMS[alg].private else [None]
        for eps, T in itertools.product(epsilons, part["horizon"]):
            size.check_cell(alg, means, eps, T, runs, exact, max_bytes, where)


def load_config(config: dict | str | Path, schema: dict | str | Path | None = None) -> dict:
    """Validate a config (a dict, or a YAML path) and return a filled, independent copy."""
    if isinstance(config, (str, Path)):
        config = read_mapping(config)
    elif not isinstance(config, dict):
        raise InputError("config", f"top level is a {type(config).__name__}", "a mapping")
    try:
        return _load_config(config, schema)
    except InputError as err:
        err.config_key = True  # the CLI names it as a key, not as a --flag
        raise


def _load_config(config: dict, schema) -> dict:
    check_values(config)
    config = copy.deepcopy(dict(config))
    if not isinstance(schema, dict):
        schema = load_schema(schema)
    _bare_off(config)
    experiments = config.get("experiments")
    for exp in experiments if isinstance(experiments, list) else []:
        if isinstance(exp, dict):
            _bare_off(exp)
            slices = exp.get("slices")
            for sl in slices if isinstance(slices, list) else []:
                if isinstance(sl, dict):
                    _bare_off(sl)
    validate_schema(config, schema)
    return validate_semantics(config)


def _bare_off(mapping: dict) -> None:
    """YAML 1.1 reads a bare ``exact: off`` as false: read it as ``"off"``."""
    if mapping.get("exact") is False:
        mapping["exact"] = "off"


def merge_config(base: dict, new: dict) -> dict:
    """Recursive dict update, Snakemake's ``update_config`` semantics (later files win)."""
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge_config(base[key], value)
        else:
            base[key] = value
    return base


def read_config_files(paths) -> dict:
    """Merge the YAML/JSON files ``paths`` in order into one raw (unvalidated) dict."""
    config: dict = {}
    for path in paths:
        merge_config(config, read_mapping(path))  # strict: one line naming the file
    return config


def load_config_files(paths, schema: dict | str | Path | None = None) -> dict:
    """Merge the files ``paths`` in order, then validate and fill defaults (:func:`load_config`)."""
    return load_config(read_config_files(paths), schema)


def experiment_slices(exp: dict) -> list[dict]:
    """An experiment's slices, each the experiment's keys overridden by the slice (the
    experiment itself when it has none); the experiment's cells are their union."""
    base = {k: exp[k] for k in SLICE_KEYS if k in exp}
    return [{**base, **s} for s in exp.get("slices") or [{}]]
