"""The algorithm registry: the built-in algorithms in display order, the plugins' (entry-point
group ``privdtol.algorithms``, checked against :mod:`privdtol.algorithms.contract` at load
time), and the lists derived from the algorithms' declarations (competitors, references).
tests/algorithms/test_registry.py holds every registered algorithm to the common contract."""

from __future__ import annotations

from privdtol.algorithms.ablations import FullPrefixSoftmax, UncappedSoftmax
from privdtol.algorithms.base import Algorithm
from privdtol.algorithms.contract import check_algorithm
from privdtol.algorithms.ftl import FollowTheLeader
from privdtol.algorithms.hedge import DecreasingHedge
from privdtol.algorithms.regret_controls import CONTROLS
from privdtol.algorithms.rnm_ftnl import ReportNoisyMin
from privdtol.algorithms.rps import RandomizedPrefixSoftmax
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
    "make_algorithm",
]
