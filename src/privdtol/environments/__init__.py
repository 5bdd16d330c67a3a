"""Loss models (paper Section 3) and the standard instance generators.

A loss model is one class that declares itself (:class:`LossModel`: name, display order,
labels, parameters, the exact engine's family, control, built from a file); the built-in ones
are found by their folder (every module of this package), the plugins' through the entry-point
group ``privdtol.environments``, checked against :func:`check_model` at load time.  Every list
of loss models is derived from the declarations: :data:`MODELS`, :data:`PIPELINE_MODELS`,
:data:`CONTROL_MODELS`, :data:`EXACT_MODELS`, the figures' and tables' names and colours."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from privdtol.core.plugins import load_plugins
from privdtol.environments.base import EXACT_FAMILIES, LossModel, validate_means
from privdtol.environments.bernoulli import BernoulliProduct
from privdtol.environments.beta import BetaLosses
from privdtol.environments.blocked import BlockedLosses
from privdtol.environments.correlated import CorrelatedBernoulli
from privdtol.environments.deterministic import DeterministicLosses
from privdtol.environments.instances import (
    INSTANCES,
    instance_means,
    staircase_means,
    standard_means,
)
from privdtol.environments.replay import ReplayLosses, read_loss_matrix
from privdtol.errors import InputError, by_name, lookup

#: the entry-point group of plugin loss models
ENTRY_POINT_GROUP = "privdtol.environments"


def built_in() -> list[type[LossModel]]:
    """Every loss model class defined in a module of this package (one that declares its own
    ``name``), in display order: by :attr:`LossModel.order`, then name.  A new module is found
    by its folder: nothing else lists it."""
    found = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found += [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type)
            and issubclass(obj, LossModel)
            and obj.__module__ == module.__name__
            and "name" in vars(obj)
        ]
    return sorted(found, key=lambda cls: (cls.order, cls.name))


_BUILT_IN = by_name(*built_in())


def check_declarations(cls) -> None:
    """The declarations of a loss model (:class:`LossModel`) are of the types it documents:
    labels text, parameters keyword arguments of the constructor with a symbol, the exact
    family one of :data:`EXACT_FAMILIES` (and a Bernoulli family's losses 0 or 1)."""
    for attr in ("label", "short_label", "label_tex", "law_tex"):
        value = getattr(cls, attr)
        if value is not None and not (isinstance(value, str) and value.strip()):
            raise ValueError(f"{attr} {value!r}: a non-empty string or None")
    if not isinstance(cls.order, int):
        raise ValueError(f"order {cls.order!r}: an integer")
    accepted = inspect.signature(cls.__init__).parameters
    for param, symbol in dict(cls.parameters).items():
        if param not in accepted or not (isinstance(symbol, str) and symbol):
            raise ValueError(
                f"parameter {param!r}: a keyword argument of the constructor, with a symbol"
            )
    if cls.exact_family not in (None, *EXACT_FAMILIES):
        raise ValueError(f"exact_family {cls.exact_family!r}: one of {EXACT_FAMILIES} or None")
    if cls.exact_family == "bernoulli" and cls.bernoulli_valued is not True:
        raise ValueError("exact_family 'bernoulli' needs losses in {0, 1} (bernoulli_valued)")


def check_model(cls) -> None:
    """The contract of a loss model (plugins are refused at load time when they break it): a
    :class:`LossModel` subclass built from its means alone, whose draws have the shape asked for
    and lie in [0, 1], and whose window sums have one row per run."""
    import numpy as np

    if not (isinstance(cls, type) and issubclass(cls, LossModel)):
        raise TypeError("not a subclass of privdtol's LossModel")
    if not (isinstance(cls.name, str) and cls.name.isidentifier()):
        raise ValueError(f"name {cls.name!r}: letters, digits and underscores")
    check_declarations(cls)
    model = cls(np.array([0.25, 0.5, 0.75]))
    rng = np.random.default_rng(0)
    x = np.asarray(model.sample_rounds(rng, 4, 0, 5))
    if x.shape != (4, 5, 3) or not (np.all(np.isfinite(x)) and 0 <= x.min() <= x.max() <= 1):
        raise ValueError(f"sample_rounds gave shape {x.shape}, not (4, 5, 3) losses in [0, 1]")
    s = np.asarray(model.window_sums(rng, 0, np.array([1, 3, 8, 2])))
    if s.shape != (4, 3) or s.min() < 0 or np.any(s > np.array([1, 3, 8, 2])[:, None]):
        raise ValueError(f"window_sums gave shape {s.shape} or sums outside [0, length]")


#: every loss model by name (``--env``, the config's ``env``), in display order: the built-in
#: ones, then those of installed plugins (entry-point group ``privdtol.environments``)
MODELS: dict[str, type[LossModel]] = {
    **_BUILT_IN,
    **load_plugins(ENTRY_POINT_GROUP, _BUILT_IN, check_model),
}
#: the loss models the pipeline generates instances for (not those built from a user's file)
PIPELINE_MODELS: tuple[str, ...] = tuple(n for n, c in MODELS.items() if not c.from_file)
#: the loss models that are negative controls (processes outside the paper's hypothesis)
CONTROL_MODELS: tuple[str, ...] = tuple(n for n, c in MODELS.items() if c.control)
#: the loss models the exact engine computes (those declaring an exact family)
EXACT_MODELS: tuple[str, ...] = tuple(n for n, c in MODELS.items() if c.exact_family)


def exact_family(env: str) -> str | None:
    """The exact engine's family of the loss model ``env`` (None: none, or not registered)."""
    cls = MODELS.get(env)
    return None if cls is None else cls.exact_family


__all__ = [
    "CONTROL_MODELS",
    "ENTRY_POINT_GROUP",
    "EXACT_FAMILIES",
    "EXACT_MODELS",
    "INSTANCES",
    "MODELS",
    "PIPELINE_MODELS",
    "BernoulliProduct",
    "BetaLosses",
    "BlockedLosses",
    "CorrelatedBernoulli",
    "DeterministicLosses",
    "LossModel",
    "ReplayLosses",
    "built_in",
    "check_declarations",
    "check_model",
    "exact_family",
    "instance_means",
    "make_env",
    "read_loss_matrix",
    "staircase_means",
    "standard_means",
    "validate_means",
]


def make_env(env: str, means=None, *, losses: str | None = None, **params) -> LossModel:
    """Build a loss model by name: from its means and the parameters it declares
    (:attr:`LossModel.parameters`; others in ``params`` are ignored, None keeps the model's
    default), or, for a model built from a file (``replay``), from the CSV ``losses``."""
    model = lookup(MODELS, env, "env", "loss model")
    if model.from_file:
        if losses is None:
            raise InputError("losses", f"{env} needs a loss matrix file", "a CSV path")
        return model.from_csv(losses)
    if means is None:
        raise InputError("means", "missing", "comma-separated numbers in [0, 1], or --K/--gap")
    kwargs = {p: params[p] for p in model.parameters if params.get(p) is not None}
    return model(means, **kwargs)
