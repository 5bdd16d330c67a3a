"""Which engine computes each algorithm's cells, and why (issue 40: nothing falls back
silently).  The config's ``exact`` (globally, per experiment or per slice):

- ``auto``: the exact engine (:mod:`privdtol.engine.exact`) where the algorithm declares an
  exact selection law and the loss model has exact block sums, block-sum Monte Carlo elsewhere;
- ``required``: as ``auto``, but a cell the exact engine cannot compute is refused (one line
  naming the algorithm and the reason);
- ``off``: block-sum Monte Carlo for every cell; ``explicit``: the round-by-round simulator.

``privdtol check-config`` prints :func:`engine_report`.
"""

from __future__ import annotations

from privdtol.algorithms import ALGORITHMS
from privdtol.engine.exact import EXACT_ENVS, why_not_exact
from privdtol.errors import InputError

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
        return "exact", f"declared law {law.family}" + (
            f" mixed with uniform ({law.uniform_mix:g})" if law.uniform_mix else ""
        )
    return "monte carlo", why


def engine_report(config: dict) -> list[dict]:
    """One row per (experiment, slice, algorithm): the engine of its cells and why."""
    from privdtol.pipeline.config import experiment_slices

    rows = []
    for exp in config["experiments"]:
        for j, part in enumerate(experiment_slices(exp)):
            how = part.get("exact", config.get("exact", "auto"))
            for alg in part["algorithms"]:
                engine, why = engine_of(alg, part["env"], how)
                rows.append(
                    {
                        "experiment": exp["name"],
                        "slice": part.get("name", str(j)) if "slices" in exp else "",
                        "algorithm": alg,
                        "env": part["env"],
                        "engine": engine,
                        "reason": why,
                    }
                )
    return rows


def check_required(config: dict) -> None:
    """Refuse (one InputError) a slice whose ``exact: required`` names a cell the exact engine
    cannot compute."""
    from privdtol.pipeline.config import experiment_slices

    for i, exp in enumerate(config["experiments"]):
        for j, part in enumerate(experiment_slices(exp)):
            if part.get("exact", config.get("exact")) != "required":
                continue
            for alg in part["algorithms"]:
                engine, why = engine_of(alg, part["env"], "required")
                if engine != "exact":
                    where = f"experiments[{i}]" + (f".slices[{j}]" if "slices" in exp else "")
                    raise InputError(
                        f"{where}.exact",
                        f"required, but {alg} on {part['env']} cannot be computed exactly: {why}",
                        "auto (Monte Carlo where the exact engine cannot), off, explicit",
                    )


__all__ = ["EXACT_SETTINGS", "check_required", "engine_of", "engine_report"]
