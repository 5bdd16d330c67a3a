"""Loss models (paper Section 3) and the standard instance generators."""

from __future__ import annotations

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

#: every loss model by name (``--env``, the config's ``env``), in display order
MODELS: dict[str, type[LossModel]] = by_name(
    BernoulliProduct,
    CorrelatedBernoulli,
    BetaLosses,
    DeterministicLosses,
    BlockedLosses,
    ReplayLosses,
)

__all__ = [
    "INSTANCES",
    "MODELS",
    "BernoulliProduct",
    "BetaLosses",
    "BlockedLosses",
    "CorrelatedBernoulli",
    "DeterministicLosses",
    "LossModel",
    "ReplayLosses",
    "instance_means",
    "make_env",
    "read_loss_matrix",
    "staircase_means",
    "standard_means",
    "validate_means",
]


def make_env(
    env: str, means=None, *, rho: float = 0.5, kappa: float = 2.0, losses: str | None = None
) -> LossModel:
    """Build a loss model by name; ``losses`` is the CSV path for ``replay``."""
    model = lookup(MODELS, env, "env", "loss model")
    if env == "replay":
        if losses is None:
            raise InputError("losses", "replay needs a loss matrix file", "a CSV path")
        return ReplayLosses.from_csv(losses)
    if means is None:
        raise InputError("means", "missing", "comma-separated numbers in [0, 1], or --K/--gap")
    if env == "correlated":
        return CorrelatedBernoulli(means, rho=rho)
    if env == "beta":
        return BetaLosses(means, kappa=kappa)
    return model(means)
