"""Algorithm registry: the paper's algorithm, its competitors and ablations, the non-private
baselines, then the algorithms of installed plugins (entry-point group
``privdtol.algorithms``, :mod:`privdtol.core.plugins`), then the negative controls of the
regret checks (``role = "control"``, :mod:`privdtol.algorithms.regret_controls`).

Every list the pipeline keeps of algorithms (the schema's enums, the exact engine's dispatch,
the audits' laws, the competitor finding, the report's references) is derived from the
declarations of these classes (:mod:`privdtol.algorithms.declarations`), never written by hand.
"""

from __future__ import annotations

from privdtol.algorithms.ablations import FullPrefixSoftmax, UncappedSoftmax
from privdtol.algorithms.base import Algorithm, BlockAlgorithm, RoundAlgorithm, sample_from
from privdtol.algorithms.contract import check_algorithm
from privdtol.algorithms.declarations import ROLES, Privacy, SelectionLaw
from privdtol.algorithms.ftl import FollowTheLeader
from privdtol.algorithms.hedge import DecreasingHedge
from privdtol.algorithms.regret_controls import CONTROLS
from privdtol.algorithms.rnm_ftnl import ReportNoisyMin, laplace_noisy_min_law
from privdtol.algorithms.rps import RandomizedPrefixSoftmax, random_prefix, softmax_law
from privdtol.algorithms.wu_wang import WuWangGumbel, WuWangLaplace
from privdtol.core.plugins import load_plugins
from privdtol.errors import by_name, lookup

#: the entry-point group of plugin algorithms
ENTRY_POINT_GROUP = "privdtol.algorithms"

_BUILT_IN = by_name(
    RandomizedPrefixSoftmax,
    ReportNoisyMin,
    WuWangLaplace,
    WuWangGumbel,
    FullPrefixSoftmax,
    UncappedSoftmax,
    FollowTheLeader,
    DecreasingHedge,
    *CONTROLS,
)
#: the algorithms of installed plugins (checked against the contract at load time)
PLUGINS: dict[str, type[Algorithm]] = load_plugins(ENTRY_POINT_GROUP, _BUILT_IN, check_algorithm)

#: every algorithm, in display order (figures, tables and the report list them in this order):
#: the built-in ones, the plugins' (controls among them after the built-in controls), the
#: negative controls (``role == "control"``) last
ALGORITHMS: dict[str, type[Algorithm]] = {
    **{n: c for n, c in _BUILT_IN.items() if c.role != "control"},
    **{n: c for n, c in PLUGINS.items() if c.role != "control"},
    **{n: c for n, c in _BUILT_IN.items() if c.role == "control"},
    **{n: c for n, c in PLUGINS.items() if c.role == "control"},
}
#: the registered negative controls of the regret checks, in display order
CONTROL_NAMES: tuple[str, ...] = tuple(n for n, c in ALGORITHMS.items() if c.role == "control")
#: the private competitors of the paper's algorithm (the competitor finding's)
COMPETITORS: tuple[str, ...] = tuple(n for n, c in ALGORITHMS.items() if c.role == "competitor")
#: algorithm -> key in paper/references.bib of the work it is taken from (the ablations and
#: negative controls are this pipeline's own and cite nothing)
REFERENCES: dict[str, str] = {n: c.reference for n, c in ALGORITHMS.items() if c.reference}


def make_algorithm(name: str, epsilon: float | None) -> Algorithm:
    """Instantiate a registered algorithm; private ones need ``epsilon > 0``."""
    return lookup(ALGORITHMS, name, "algorithm", "algorithm")(epsilon)


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
