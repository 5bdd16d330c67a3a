"""The engine of every algorithm of a config, and why (:func:`privdtol.engine.choice.engine_of`
per experiment slice): what ``privdtol check-config`` prints, so that no cell changes engine
silently."""

from __future__ import annotations

from privdtol.engine.choice import engine_of
from privdtol.pipeline.config import experiment_slices


def engine_report(config: dict) -> list[dict]:
    """One row per (experiment, slice, algorithm): the engine of its cells and why."""
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


__all__ = ["engine_report"]
