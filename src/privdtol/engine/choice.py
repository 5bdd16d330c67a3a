"""Which engine computes a cell, and why (nothing falls back silently), for the
values of a config's ``exact`` (globally, per experiment or per slice):

- ``auto``: the exact engine (:mod:`privdtol.engine.exact`) where the algorithm declares an
  exact selection law and the loss model has exact block sums, block-sum Monte Carlo elsewhere;
- ``required``: as ``auto``, but a cell the exact engine cannot compute is refused (by the
  config loader, one line naming the algorithm and the reason);
- ``off``: block-sum Monte Carlo for every cell; ``explicit``: the round-by-round simulator.
"""

from __future__ import annotations

from privdtol.algorithms import ALGORITHMS
from privdtol.engine.exact import EXACT_ENVS, why_not_exact

#: the values of ``exact`` that compute exactly where the exact engine can
EXACT_SETTINGS = ("auto", "required")


def engine_of(algorithm: str, env: str, how: str) -> tuple[str, str]:
    """(engine, reason): "exact", "monte carlo" or "explicit", and why, for the cells of
    ``algorithm`` on ``env`` under the setting ``how``."""
    if how == "explicit":
        return "explicit", "exact: explicit (round-by-round reference simulator)"
    if how == "off":
        return "monte carlo", "exact: off"
    why = why_not_exact(ALGORITHMS[algorithm])
    if why is None and env not in EXACT_ENVS:
        why = f"loss model {env} has no exact block sums (exact: {', '.join(EXACT_ENVS)})"
    if why is None:
        law = ALGORITHMS[algorithm].exact_law
        mix = f" mixed with uniform ({law.uniform_mix:g})" if law.uniform_mix else ""
        return "exact", f"declared law {law.family}{mix}"
    return "monte carlo", why


__all__ = ["EXACT_SETTINGS", "engine_of"]
