"""The proof terms of the pipeline's cells (Lemmas 4 and 5 of Cesari & Colomboni, Sections
5.3-5.4): which cells get them, how, and their table ``results/agg/proof.parquet``.

Every exact cell of a softmax-family algorithm of :data:`PROOF_EXPERIMENTS` whose algorithm is
asked for (``rps`` and the lemma claims' negative controls: the Snakefile passes them from the
claims registry) gets the terms of :func:`privdtol.engine.exact.proof.proof_terms`, written to
``results/proof/<cell_id>.json`` by the simulation job that computes its exact table (``privdtol
simulate-batch --proof-dir``): the proof's m-sums reuse the selection laws of the cell's exact
regret (:func:`privdtol.engine.exact.regret_and_averager`), so they cost little beyond it, and
Reg_T at the cell's horizon is the number claim C2 reads.  A cell shared by several
experiments gets its terms once, from the first experiment that has it (its "home").  The table
has one row per (experiment, cell), the numbers flat, with the error bound of each in
``<name>_err``.
"""

from __future__ import annotations

import json

import pandas as pd

from privdtol.engine.exact.proof import PROOF_ALGORITHMS
from privdtol.errors import InputError
from privdtol.pipeline import plan as grid

#: the experiments whose exact softmax cells get proof terms: the regret experiments of the
#: checks of Theorem 1 and its rate
PROOF_EXPERIMENTS = ("horizon", "gap", "epsilon", "actions", "grid")


def _instance_key(cell) -> tuple:
    """Cells of one instance sort together (deterministic order; algorithms with one
    temperature, whose Lemma 5 terms are the same, share them in a process: :func:`cell_terms`)."""
    return (
        cell.env,
        cell.instance,
        cell.K,
        cell.gap,
        cell.mu_best or -1.0,
        cell.epsilon,
        cell.horizon,
        cell.algorithm,
    )


def proof_cells(plan: dict, algorithms) -> dict[str, list[grid.Cell]]:
    """``{home experiment: cells}``: the unique exact cells of ``algorithms`` (softmax family)
    in :data:`PROOF_EXPERIMENTS`, each under the first experiment of the plan that has it,
    sorted by instance."""
    seen, out = set(), {}
    for name, (cells, _) in plan.items():
        if name not in PROOF_EXPERIMENTS:
            continue
        for c in cells:
            wanted = c.algorithm in algorithms and c.algorithm in PROOF_ALGORITHMS
            if c.exact and wanted and c.cell_id not in seen:
                seen.add(c.cell_id)
                out.setdefault(name, []).append(c)
    return {name: sorted(cells, key=_instance_key) for name, cells in out.items()}


def proof_homes(plan: dict, algorithms) -> dict[str, frozenset[str]]:
    """``{home experiment: cell ids}`` of :func:`proof_cells`: the cells whose simulation job
    also writes their proof terms."""
    return {
        name: frozenset(c.cell_id for c in cells)
        for name, cells in proof_cells(plan, algorithms).items()
    }


def proof_rows(plan: dict, algorithms) -> list[tuple[str, str]]:
    """``[experiment, cell id]`` of every row :func:`proof_table` writes for the plan's cells,
    sorted: the part of the config the proof table depends on (the workflow's stamp of it,
    :mod:`privdtol.pipeline.config_stamps`)."""
    ids = {cid for cells in proof_homes(plan, algorithms).values() for cid in cells}
    return sorted(
        {
            (name, c.cell_id)
            for name, (cells, _) in plan.items()
            if name in PROOF_EXPERIMENTS
            for c in cells
            if c.cell_id in ids
        }
    )


def proof_path(proof_dir, cell) -> str:
    cid = cell if isinstance(cell, str) else cell.cell_id
    return f"{proof_dir}/{cid}.json"


def horizon_regret(table: pd.DataFrame, cell) -> tuple[float, float]:
    """(Reg_T, error bound) at the cell's horizon from its exact table."""
    row = table[table["horizon"] == cell.horizon]
    if row.empty or (row["estimator"] != "exact").any():
        raise InputError("sim", f"cell {cell.cell_id} has no exact row at T = {cell.horizon}", "")
    return float(row["regret"].iloc[0]), float(row["error_bound"].iloc[0])


#: Lemma 5's terms of the instances computed in this process, by (means, eps, eta, env, the
#: law key of the averager they reused)
_SUMS: dict[tuple, dict] = {}


def cell_terms(cell, regret=None, base=None) -> dict:
    """The proof terms of one cell (``regret``: its (Reg_T, error bound), else computed;
    ``base``: the averager of its exact regret, whose laws the m-sums reuse); the sums of
    Lemma 5 are computed once per instance, temperature and base law in a process.  The base's
    law is part of the key: sums computed on another prefix rule's averager (``rps`` for
    ``rps_short_prefix``) agree only to their error bounds, and a cell's terms must not depend
    on which cells its batch computed before it."""
    from privdtol.engine.exact.proof import proof_terms, sum_terms
    from privdtol.engine.exact.spec import _Spec

    env = cell.spec().build_env()
    spec = _Spec(cell.algorithm, env.means, cell.epsilon, env.name)
    # the selection's law (its temperature and its mixture with uniform play) is in the key
    key = (tuple(env.means), cell.epsilon, spec.law_key(), env.name, base and base.spec.law_key())
    if key not in _SUMS:
        if len(_SUMS) > 64:
            _SUMS.clear()
        _SUMS[key] = sum_terms(cell.algorithm, env.means, cell.epsilon, env.name, base)
    terms = proof_terms(
        cell.algorithm, env.means, cell.epsilon, cell.horizon, env.name, regret, _SUMS[key]
    )
    return {"cell_id": cell.cell_id, "cell": cell.params(), **terms}


def flat_row(terms: dict) -> dict:
    """One row of the proof table from a cell's terms (JSON of :func:`cell_terms`)."""
    err, b, c = terms["error_bound"], terms["bounds"], terms["cell"]
    groups = terms["groups"]
    drift = terms["drift"] or {}
    row = {
        "cell_id": terms["cell_id"],
        "algorithm": terms["algorithm"],
        "env": terms["env"],
        "instance": c["instance"],
        "K": terms["K"],
        "gap": terms["gap"],
        "mu_best": c["mu_best"],
        "epsilon": terms["epsilon"],
        "horizon": terms["horizon"],
        "eta": terms["eta"],
        "eta_selection": terms["eta_selection"],
        "n_small": terms["n_small"],
        "n_large": terms["n_large"],
    }
    for key in ("sum_F", "small_gap", "large_gap", "sum_V", "regret", "regret_limit"):
        row[key], row[f"{key}_err"] = terms[key], err[key]
    row["max_ratio_eq4"], row["max_ratio_eq4_err"] = terms["max_ratio_eq4"], err["max_ratio_eq4"]
    row["median_ratio_eq4"] = terms["median_ratio_eq4"]
    row["groups"] = len(groups)
    row["groups_sum"] = sum(g["sum"] for g in groups) if groups else None
    row["groups_bound"] = sum(g["bound"] for g in groups) if groups else None
    row["groups_max_ratio"] = max(g["sum"] / g["bound"] for g in groups) if groups else None
    row["groups_max_ratio_err"] = (
        max(g["error_bound"] / g["bound"] for g in groups) if groups else None
    )
    row["drift_max"], row["drift_max_err"] = drift.get("max_gap"), drift.get("error_bound")
    row["drift_at_m"], row["drift_m_max"] = drift.get("at_m"), drift.get("m_max")
    for key, value in b.items():
        row[f"bound_{key}"] = value
    row["tail_bound"] = terms["tail_bound"]
    return row


def write_terms(terms: dict, path) -> None:
    from privdtol.pipeline.io import atomic_path

    text = json.dumps(terms, indent=1, sort_keys=True, allow_nan=False) + "\n"
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


#: the proof-terms JSON a cell's file must hold (what :func:`flat_row` reads), in the kinds of
#: :func:`privdtol.pipeline.io.check_shape`
TERMS_SHAPE = {
    "cell_id": "str",
    "cell": "dict",
    "algorithm": "str",
    "env": "str",
    "K": "int",
    "gap": "num",
    "epsilon": "num",
    "horizon": "int",
    "eta": "num",
    "eta_selection": "num",
    "n_small": "int",
    "n_large": "int",
    **dict.fromkeys(("sum_F", "small_gap", "large_gap", "sum_V", "regret"), "num"),
    "regret_limit": "num?",
    "max_ratio_eq4": "num?",
    "median_ratio_eq4": "num?",
    "error_bound": {
        **dict.fromkeys(("sum_F", "small_gap", "large_gap", "sum_V", "regret"), "num"),
        "regret_limit": "num?",
        "max_ratio_eq4": "num?",
    },
    "groups": [{"sum": "num", "bound": "num", "error_bound": "num"}],
    "drift": "dict?",
    "bounds": "dict",
    "tail_bound": "num",
}
DRIFT_SHAPE = {"max_gap": "num", "error_bound": "num", "at_m": "int", "m_max": "int"}


def read_terms(path, cell=None) -> dict:
    """A cell's proof terms, validated (the one reader of ``results/proof/*.json``): JSON
    without NaN or infinities, every key :func:`flat_row` reads with its type
    (:data:`TERMS_SHAPE`), finite numbers, every bound a finite number or null; with ``cell``
    (a :class:`~privdtol.pipeline.plan.Cell`), its id and parameters.  A defect is one
    InputError line naming the file and the key."""
    from privdtol.pipeline.io import check_shape, read_json_strict

    terms = read_json_strict(path, "proof")
    check_shape(terms, TERMS_SHAPE, path, "proof")
    if terms["drift"] is not None:
        check_shape(terms["drift"], DRIFT_SHAPE, path, "proof", "drift")
    check_shape(terms["bounds"], dict.fromkeys(terms["bounds"], "num?"), path, "proof", "bounds")
    if cell is not None and (terms["cell_id"], terms["cell"]) != (cell.cell_id, cell.params()):
        raise InputError(
            "proof",
            f"{path}: holds the terms of cell {terms['cell_id']!r}, not of {cell.cell_id!r}",
            "the proof terms of the cell the file is named after",
        )
    return terms


def proof_table(plan: dict, algorithms, proof_dir, extra=()) -> pd.DataFrame:
    """One row per (experiment, cell) of every proof cell of the plan (a cell in several
    experiments appears once per experiment), and one per file of ``extra`` (the proof terms
    of the worst instances found, experiment ``worst_case``), sorted: deterministic bytes."""
    homes = proof_cells(plan, algorithms)
    ids = {c.cell_id for cells in homes.values() for c in cells}
    rows = {}
    for name, (cells, _) in plan.items():
        if name not in PROOF_EXPERIMENTS:
            continue
        for c in cells:
            if c.cell_id in ids:
                if c.cell_id not in rows:
                    rows[c.cell_id] = flat_row(read_terms(proof_path(proof_dir, c), c))
                rows.setdefault((name, c.cell_id), {"experiment": name, **rows[c.cell_id]})
    table = pd.DataFrame(
        [r for k, r in rows.items() if isinstance(k, tuple)]
        + [{"experiment": "worst_case", **flat_row(read_terms(p))} for p in sorted(extra)]
    )
    if table.empty:
        return table
    keys = ["experiment", "algorithm", "K", "gap", "epsilon", "cell_id"]
    return table.sort_values(keys, kind="stable").reset_index(drop=True)
