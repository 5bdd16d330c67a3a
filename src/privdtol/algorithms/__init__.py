"""Algorithm registry: the paper's algorithm, its competitors and ablations, then the negative
controls of the regret checks (``role = "control"``, :mod:`privdtol.algorithms.regret_controls`)."""

from __future__ import annotations

from privdtol.algorithms.ablations import FullPrefixSoftmax, UncappedSoftmax
from privdtol.algorithms.base import Algorithm, BlockAlgorithm, RoundAlgorithm, sample_from
from privdtol.algorithms.ftl import FollowTheLeader
from privdtol.algorithms.hedge import DecreasingHedge
from privdtol.algorithms.regret_controls import CONTROLS
from privdtol.algorithms.rnm_ftnl import ReportNoisyMin, laplace_noisy_min_law
from privdtol.algorithms.rps import RandomizedPrefixSoftmax, random_prefix, softmax_law
from privdtol.algorithms.wu_wang import WuWangGumbel, WuWangLaplace
from privdtol.errors import by_name, lookup

#: every algorithm, in display order (figures, tables and the report list them in this order);
#: the negative controls (``role == "control"``) come last
ALGORITHMS: dict[str, type[Algorithm]] = by_name(
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
#: the registered negative controls of the regret checks, in display order
CONTROL_NAMES: tuple[str, ...] = tuple(n for n, c in ALGORITHMS.items() if c.role == "control")


def make_algorithm(name: str, epsilon: float | None) -> Algorithm:
    """Instantiate a registered algorithm; private ones need ``epsilon > 0``."""
    return lookup(ALGORITHMS, name, "algorithm", "algorithm")(epsilon)


__all__ = [
    "ALGORITHMS",
    "CONTROL_NAMES",
    "Algorithm",
    "BlockAlgorithm",
    "RoundAlgorithm",
    "laplace_noisy_min_law",
    "make_algorithm",
    "random_prefix",
    "sample_from",
    "softmax_law",
]
