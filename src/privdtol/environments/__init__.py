"""Loss models (paper Section 3) and the standard instance generators."""

from __future__ import annotations

from privdtol.core.plugins import load_plugins
from privdtol.environments.base import LossModel, validate_means
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

_BUILT_IN = by_name(
    BernoulliProduct,
    CorrelatedBernoulli,
    BetaLosses,
    DeterministicLosses,
    BlockedLosses,
    ReplayLosses,
)


def check_model(cls) -> None:
    """The contract of a loss model (plugins are refused at load time when they break it): a
    :class:`LossModel` subclass built from its means alone, whose draws have the shape asked for
    and lie in [0, 1], and whose window sums have one row per run."""
    import numpy as np

    if not (isinstance(cls, type) and issubclass(cls, LossModel)):
        raise TypeError("not a subclass of privdtol's LossModel")
    if not (isinstance(cls.name, str) and cls.name.isidentifier()):
        raise ValueError(f"name {cls.name!r}: letters, digits and underscores")
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
#: the loss models the pipeline generates instances for (``replay`` needs a user's file)
PIPELINE_MODELS: tuple[str, ...] = tuple(n for n in MODELS if n != "replay")

__all__ = [
    "ENTRY_POINT_GROUP",
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
    "check_model",
    "instance_means",
    "make_env",
    "read_loss_matrix",
    "staircase_means",
    "standard_means",
    "validate_means",
]


def make_env(
    env: str,
    means=None,
    *,
    rho: float | None = None,
    kappa: float | None = None,
    losses: str | None = None,
) -> LossModel:
    """Build a loss model by name; ``losses`` is the CSV path for ``replay``; ``rho``
    (correlated) and ``kappa`` (beta) None: the model's default
    (:data:`~privdtol.environments.correlated.DEFAULT_RHO`,
    :data:`~privdtol.environments.beta.DEFAULT_KAPPA`)."""
    model = lookup(MODELS, env, "env", "loss model")
    if env == "replay":
        if losses is None:
            raise InputError("losses", "replay needs a loss matrix file", "a CSV path")
        return ReplayLosses.from_csv(losses)
    if means is None:
        raise InputError("means", "missing", "comma-separated numbers in [0, 1], or --K/--gap")
    if env == "correlated" and rho is not None:
        return CorrelatedBernoulli(means, rho=rho)
    if env == "beta" and kappa is not None:
        return BetaLosses(means, kappa=kappa)
    return model(means)
