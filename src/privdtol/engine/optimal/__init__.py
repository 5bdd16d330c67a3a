"""The true floor: OPT_T, the smallest placement-averaged pseudo-regret of any event-level ε-DP
online algorithm on the two-level instance, computed exactly by a linear program in the
sequence form (the quantity the explicit lower bound of :mod:`privdtol.core.lower_bound` bounds
from below; Corollary 1 of Cesari & Colomboni).

- :mod:`.size`: the inputs and the budget (refusals in one line, before any work);
- :mod:`.reductions`: the two exact reductions (the tie symbol, relabelling the actions);
- :mod:`.program`: the sequence-form program on the reduced variables;
- :mod:`.solve`: HiGHS, the value, the duality gap and the optimal rule's first decision.
"""

from privdtol.engine.optimal.size import MAX_EPSILON, largest_horizon
from privdtol.engine.optimal.solve import optimal

__all__ = ["MAX_EPSILON", "largest_horizon", "optimal"]
