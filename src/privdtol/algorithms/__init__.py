"""Algorithms and their registry (:mod:`privdtol.algorithms.registry`): the paper's algorithm,
its competitors and ablations, the non-private baselines, then the algorithms of installed
plugins (entry-point group ``privdtol.algorithms``, :mod:`privdtol.core.plugins`), then the
negative controls of the regret checks (``role = "control"``,
:mod:`privdtol.algorithms.regret_controls`).  A plugin module may import from this package the
names bound before the registry is built (``BlockAlgorithm``, ``RoundAlgorithm``, ``Privacy``,
``SelectionLaw``, ...); others from their modules (``privdtol.algorithms.rps.softmax_law``).

Every list the pipeline keeps of algorithms (the schema's enums, the exact engine's dispatch,
the audits' laws, the competitor finding, the report's references) is derived from the
declarations of these classes (:mod:`privdtol.algorithms.declarations`), never written by hand.
"""

from __future__ import annotations

from privdtol.algorithms.base import Algorithm, BlockAlgorithm, RoundAlgorithm, sample_from
from privdtol.algorithms.contract import check_algorithm
from privdtol.algorithms.declarations import ROLES, Privacy, SelectionLaw
from privdtol.algorithms.registry import (
    ALGORITHMS,
    COMPETITORS,
    CONTROL_NAMES,
    ENTRY_POINT_GROUP,
    PLUGINS,
    REFERENCES,
    make_algorithm,
)
from privdtol.algorithms.rnm_ftnl import laplace_noisy_min_law
from privdtol.algorithms.rps import random_prefix, softmax_law

__all__ = [
    "ALGORITHMS",
    "COMPETITORS",
    "CONTROL_NAMES",
    "ENTRY_POINT_GROUP",
    "PLUGINS",
    "REFERENCES",
    "ROLES",
    "Algorithm",
    "BlockAlgorithm",
    "Privacy",
    "RoundAlgorithm",
    "SelectionLaw",
    "check_algorithm",
    "laplace_noisy_min_law",
    "make_algorithm",
    "random_prefix",
    "sample_from",
    "softmax_law",
]
