"""privdtol: replication of Cesari & Colomboni, *Optimal Gap-Dependent Regret for Private
Stochastic Decision-Theoretic Online Learning* (arXiv 2605.29148).

The package simulates the paper's randomized-prefix softmax algorithm (Section 4) and its
competitors, with an exact-law block-sum simulator (see :mod:`privdtol.engine.fast`).
"""

__version__ = "0.1.0"
