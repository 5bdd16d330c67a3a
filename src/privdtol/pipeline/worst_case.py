"""The worst-instance searches of a config (its ``worst_case:`` block; the search itself is
:mod:`privdtol.engine.worst_case`): one job per (K, gap, epsilon, objective), each writing
``results/worst_case/<id>.json`` (the result), ``<id>.trace.csv`` (every evaluation) and
``<id>.parquet`` (the worst instance's exact regret at every checkpoint, in the columns of a
simulated cell, instance ``worst_<objective>``); the tables ``results/agg/worst_case.parquet``
(those regret rows, read by claim C2) and ``results/agg/searches.parquet`` (one row per search,
read by the finding ``worst_case`` and the notebook ``worst_case``)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from privdtol.core.seeding import stable_digest
from privdtol.errors import InputError

#: the experiment name of the worst instances' regret table (results/agg/worst_case.parquet)
EXPERIMENT = "worst_case"
#: the table of the searches (results/agg/searches.parquet)
SEARCHES = "searches"


@dataclass(frozen=True)
class Search:
    algorithm: str
    K: int
    gap: float
    epsilon: float
    objective: str
    horizon: int
    budget: int
    seed: int
    family: str

    @property
    def search_id(self) -> str:
        return stable_digest(asdict(self))[:16]

    def run(self):
        from privdtol.engine.worst_case import search

        return search(
            self.algorithm,
            self.K,
            self.gap,
            self.epsilon,
            self.objective,
            self.family,
            self.budget,
            self.seed,
            self.horizon,
        )


def searches(config: dict) -> list[Search]:
    """The searches of a validated config's ``worst_case:`` block (none without one)."""
    block = config.get("worst_case")
    if not block:
        return []
    out = [
        Search(
            block["algorithm"],
            int(K),
            float(g),
            float(e),
            obj,
            int(block["horizon"]),
            int(block["budget"]),
            int(block["seed"]),
            block["family"],
        )
        for K in block["K"]
        for g in block["gap"]
        for e in block["epsilon"]
        for obj in block["objectives"]
    ]
    return sorted(out, key=lambda s: (s.objective, s.K, s.gap, s.epsilon))


def worst_table(result: dict, search: Search):
    """The worst instance's exact regret at every checkpoint (:func:`privdtol.engine.runner.
    exact_table`), as a cell file of experiment ``worst_case``, and the averager that computed
    it (whose laws the instance's proof terms reuse: :func:`worst_terms`)."""
    import numpy as np

    from privdtol.engine.runner import exact_table_and_averager, make_spec

    spec = make_spec(
        search.algorithm,
        search.epsilon,
        search.horizon,
        0,
        means=tuple(result["means"]),
        mode="exact",
    )
    table, avg = exact_table_and_averager(spec)
    table.insert(0, "cell_id", search.search_id)
    table["instance"] = f"worst_{search.objective}"
    table["rho"] = table["kappa"] = np.nan
    return table, avg


def _write_json(data: dict, path) -> None:
    from privdtol.pipeline.io import atomic_path

    text = json.dumps(data, indent=1, sort_keys=True, allow_nan=False) + "\n"
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def worst_terms(result: dict, search: Search, base=None) -> dict:
    """The proof terms (Lemmas 4-5, :func:`privdtol.engine.exact.proof.proof_terms`) of the
    worst instance found, in the form of a proof cell's JSON (experiment ``worst_case``);
    ``base``: the averager of its exact regret (:func:`worst_table`), whose laws are reused."""
    from privdtol.engine.exact.proof import proof_terms, sum_terms

    regret = (result["regret"], result["error_bound"])
    sums = sum_terms(search.algorithm, result["means"], search.epsilon, base=base)
    terms = proof_terms(
        search.algorithm, result["means"], search.epsilon, search.horizon, regret=regret, sums=sums
    )
    cell = {"instance": f"worst_{search.objective}", "mu_best": result["means"][0]}
    return {"cell_id": search.search_id, "cell": cell, **terms}


def write_search(search: Search, out, trace_out=None, table_out=None, proof_out=None) -> dict:
    """Run one search and write its result JSON ``out`` (and, if given, the trace CSV, the
    worst instance's exact regret table and its proof terms), each atomically."""
    from privdtol.pipeline.io import write_table

    result, trace = search.run()
    result = {"search_id": search.search_id, "search": asdict(search), **result}
    if trace_out is not None:
        write_table(pd.DataFrame(trace), trace_out)
    table, avg = worst_table(result, search) if table_out or proof_out else (None, None)
    if table_out is not None:
        write_table(table, table_out)
    if proof_out is not None:
        _write_json(worst_terms(result, search, avg), proof_out)
    _write_json(result, out)
    return result


def searches_table(paths) -> pd.DataFrame:
    """One row per search result JSON (with its trace as ``trace_ratio``, space-separated)."""
    rows = []
    for p in sorted(map(Path, paths)):
        try:
            r = json.loads(p.read_text(encoding="utf-8"))
            trace = pd.read_csv(p.with_suffix(".trace.csv"))
        except (OSError, ValueError) as err:
            raise InputError("searches", f"{p}: not a search result ({err})", "") from None
        rows.append(
            {
                "search_id": r["search_id"],
                "algorithm": r["algorithm"],
                "K": r["K"],
                "gap": r["gap"],
                "epsilon": r["epsilon"],
                "objective": r["objective"],
                "family": r["family"],
                "horizon": r["horizon"],
                "value": r["value"],
                "standard_value": r["standard"]["value"],
                "bound": r["bound"],
                "regret": r["regret"],
                "error_bound": r["error_bound"],
                "evaluations": r["evaluations"],
                "means": " ".join(f"{m:.17g}" for m in r["means"]),
                "standard_means": " ".join(f"{m:.17g}" for m in r["standard"]["means"]),
                "trace_ratio": " ".join(f"{v:.17g}" for v in trace["ratio"]),
            }
        )
    keys = ["objective", "K", "gap", "epsilon", "search_id"]
    return pd.DataFrame(rows).sort_values(keys, kind="stable").reset_index(drop=True)
