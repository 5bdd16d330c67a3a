"""Algorithm registry: the paper's algorithm, its competitors and ablations."""

from __future__ import annotations

from ..errors import InputError
from .ablations import FullPrefixSoftmax, UncappedSoftmax
from .base import Algorithm, BlockAlgorithm, RoundAlgorithm, sample_from
from .ftl import FollowTheLeader
from .hedge import DecreasingHedge
from .rnm_ftnl import ReportNoisyMin, laplace_noisy_min_law
from .rps import RandomizedPrefixSoftmax, random_prefix, softmax_law
from .wu_wang import WuWangGumbel, WuWangLaplace

ALGORITHMS: dict[str, type[Algorithm]] = {
    cls.name: cls
    for cls in (RandomizedPrefixSoftmax, ReportNoisyMin, WuWangLaplace, WuWangGumbel,
                FullPrefixSoftmax, UncappedSoftmax, FollowTheLeader, DecreasingHedge)
}


def make_algorithm(name: str, epsilon: float | None) -> Algorithm:
    """Instantiate a registered algorithm; private ones need ``epsilon > 0``."""
    if name not in ALGORITHMS:
        raise InputError("algorithm", f"unknown algorithm {name!r}", ", ".join(ALGORITHMS))
    return ALGORITHMS[name](epsilon)


__all__ = ["ALGORITHMS", "Algorithm", "BlockAlgorithm", "RoundAlgorithm", "make_algorithm",
           "sample_from", "softmax_law", "random_prefix", "laplace_noisy_min_law"]
