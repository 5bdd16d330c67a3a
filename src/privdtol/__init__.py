"""privdtol: replication of Cesari & Colomboni, *Optimal Gap-Dependent Regret for Private
Stochastic Decision-Theoretic Online Learning* (arXiv 2605.29148).

The package simulates the paper's randomized-prefix softmax algorithm (Section 4) and its
competitors, with an exact-law block-sum simulator (see :mod:`privdtol.engine.fast`).
"""

from importlib import metadata as _metadata

try:  # the one version number is pyproject.toml's, read from the installed metadata
    __version__ = _metadata.version("privdtol")
except _metadata.PackageNotFoundError:  # a source tree on PYTHONPATH that was never installed
    __version__ = "unknown"
