"""The worst instances a search finds.  Theorem 1 and Lemma 5 of Cesari & Colomboni hold "for
every i.i.d. loss process with a unique best action" (Section 4), and Corollary 1's Theta is a
statement about every instance of a class; for one algorithm and one (K, Delta_min, eps), the
search looks for the instances that bring the exact regret (:mod:`.evaluate`) closest to the
bounds, with three objectives computed at every evaluation:

- ``theorem1``: the largest Reg_T / (1 + 800 log K/Delta_min + 16 log K/eta) (eq. (1));
- ``lower_max`` and ``lower_min``: the largest and the smallest Reg_T / LB_T, LB_T the explicit
  lower bound every eps-DP algorithm must pay on the instance itself
  (:mod:`privdtol.core.lower_bound_means`): the band of Theta's constants over instances.

The search itself is :func:`.search.search`; the instance families :mod:`.families`; an
evaluation :mod:`.evaluate`.
"""

from privdtol.engine.worst_case.evaluate import DEFAULT_HORIZON, OBJECTIVES, SEARCH_TOL
from privdtol.engine.worst_case.families import FAMILIES
from privdtol.engine.worst_case.search import FREE_MAX_K

__all__ = ["DEFAULT_HORIZON", "FAMILIES", "FREE_MAX_K", "OBJECTIVES", "SEARCH_TOL"]
