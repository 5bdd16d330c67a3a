"""The worst-instance searches of a config (its ``worst_case:`` block; the search itself is
:mod:`privdtol.engine.worst_case`): one job per (algorithm, K, gap, epsilon), each computing
the three objectives at every evaluation and writing ``results/worst_case/<id>.json`` (the
result), ``<id>.trace.csv`` (every evaluation), ``<id>.parquet`` (each objective's instance's
exact regret at every checkpoint, in the columns of a simulated cell, instance
``worst_<objective>``) and, for the paper's softmax rules, ``<id>.proof.json`` (the proof terms
of the theorem1 instance); the tables ``results/agg/worst_case.parquet`` (the regret rows, read
by claim C2) and ``results/agg/searches.parquet`` (one row per search and objective, read by
the finding ``worst_case`` and the notebook ``worst``)."""

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


#: the key of a search table's attributes (Parquet metadata) that carries its search's
#: parameters (:func:`privdtol.pipeline.aggregate.read_cell` checks the file against them)
SEARCH_ATTR = "privdtol_search"


#: ``privdtol worst-case --max-seconds``'s default: a search the cost model puts past an hour of
#: one core is refused before it starts (at a tiny gap, 1e-6, a search ran for hours without a
#: word); the searches of config/paper.yaml are estimated well below it
MAX_SECONDS = 3600.0
#: exact evaluations per objective beyond the budget: its instance computed again to the
#: engine's default tolerance (the best and the standard) and its regret table
EXTRA_EVALUATIONS = 3


@dataclass(frozen=True)
class Search:
    algorithm: str
    K: int
    gap: float
    epsilon: float
    horizon: int
    budget: int
    seed: int
    unseen: int
    tolerance: float
    #: the objectives computed (:data:`privdtol.engine.worst_case.evaluate.OBJECTIVES`)
    objectives: tuple[str, ...] = ("theorem1", "lower_max", "lower_min")

    def __post_init__(self):
        object.__setattr__(self, "objectives", tuple(self.objectives))  # a list read back

    @property
    def search_id(self) -> str:
        """A digest of the parameters (the default objectives left out of it, so that a
        search of the three default objectives keeps its id)."""
        params = asdict(self)
        if self.objectives == Search.objectives:
            del params["objectives"]
        else:
            params["objectives"] = list(self.objectives)
        return stable_digest(params)[:16]

    @property
    def has_proof(self) -> bool:
        """Whether the proof terms (Lemmas 4-5) apply: a softmax rule of the paper's kind."""
        from privdtol.engine.exact.proof import PROOF_ALGORITHMS

        return self.algorithm in PROOF_ALGORITHMS

    def estimated_seconds(self) -> float:
        """The search's single-core time estimated before it runs: its exact evaluations (the
        budget, the unseen instances, each objective's instance computed again and its regret
        table, :data:`EXTRA_EVALUATIONS` per objective) times the exact engine's cost model on
        its standard instance (every gap Delta_min, the best mean 1/2 - Delta_min/2:
        :func:`~privdtol.engine.exact.cost_units` x
        :data:`~privdtol.pipeline.plan.SECONDS_PER_EXACT_UNIT`, the model ``privdtol exact``
        refuses by).  Every instance of the search has an action at exactly Delta_min, whose
        identification time sets the engine's work.  The model overstates a search, whose
        evaluations rank instances at a looser tolerance: config/paper.yaml's six searches
        are estimated at 100-510 s and took 13-73 s (docs/performance.md)."""
        import numpy as np

        from privdtol.engine.exact import cost_units
        from privdtol.pipeline.plan import SECONDS_PER_CELL, SECONDS_PER_EXACT_UNIT

        means = np.r_[0.5 - self.gap / 2, np.full(self.K - 1, 0.5 + self.gap / 2)]
        work = cost_units(self.algorithm, means, self.epsilon, self.horizon)
        evaluations = self.budget + self.unseen + EXTRA_EVALUATIONS * len(self.objectives)
        return evaluations * (SECONDS_PER_CELL + SECONDS_PER_EXACT_UNIT * work)

    def check_cost(self, max_seconds: float = MAX_SECONDS) -> None:
        """Refuse the search, before anything is allocated, in one line naming the limit and how
        to raise it: when its estimated time (:meth:`estimated_seconds`) exceeds ``max_seconds``,
        or when the lower bound LB_T of its standard instance exceeds the lower bound's memory
        limits (:data:`privdtol.core.lower_bound.MAX_WINDOW`; every instance of the search
        shares that privacy term, which depends on K, Delta_min and eps only)."""
        import math

        import numpy as np

        if not (max_seconds > 0 and math.isfinite(max_seconds)):
            raise InputError("max-seconds", f"got {max_seconds}", "finite numbers > 0")
        seconds = self.estimated_seconds()
        if seconds > max_seconds:
            raise InputError(
                "max-seconds",
                f"the search of {self.algorithm} at K={self.K}, gap={self.gap:g}, "
                f"epsilon={self.epsilon:g} ({self.budget} + {self.unseen} evaluations) takes "
                f"about {seconds:.3g} s by the exact engine's cost model, past the limit of "
                f"{max_seconds:g} s",
                "raise --max-seconds, or a larger gap or epsilon, or a smaller budget",
            )
        from privdtol.core.lower_bound_means import lower_bound_means_columns

        means = np.r_[0.5 - self.gap / 2, np.full(self.K - 1, 0.5 + self.gap / 2)]
        lower_bound_means_columns(means, self.epsilon, [self.horizon], "bernoulli")

    def run(self, max_seconds: float = MAX_SECONDS):
        """The search (:func:`privdtol.engine.worst_case.search.search`), after its cost is
        checked (:meth:`check_cost`)."""
        from privdtol.engine.worst_case.search import search

        self.check_cost(max_seconds)
        return search(
            self.algorithm,
            self.K,
            self.gap,
            self.epsilon,
            budget=self.budget,
            seed=self.seed,
            horizon=self.horizon,
            unseen=self.unseen,
            tolerance=self.tolerance,
            objectives=self.objectives,
        )


def _cell_searches(block: dict) -> list[Search]:
    """The searches of the block's ``cells`` (each its algorithms, K, gap and epsilon, and
    optionally its own budget, unseen count and objectives; the rest from the block)."""
    out = []
    for cell in block.get("cells") or []:
        objectives = tuple(cell.get("objectives") or Search.objectives)
        for a in cell["algorithms"]:
            if "eq6" in objectives and a not in _softmax():
                raise InputError(
                    "worst_case.cells.objectives",
                    f"eq6 asked of {a!r}",
                    f"eq6 for the softmax rules only ({', '.join(_softmax())})",
                )
            out.append(
                Search(
                    a,
                    int(cell["K"]),
                    float(cell["gap"]),
                    float(cell["epsilon"]),
                    int(block["horizon"]),
                    int(cell.get("budget", block["budget"])),
                    int(block["seed"]),
                    int(cell.get("unseen", block["unseen"])),
                    float(block["tolerance"]),
                    objectives,
                )
            )
    return out


def _softmax() -> tuple[str, ...]:
    from privdtol.engine.exact.proof import PROOF_ALGORITHMS

    return PROOF_ALGORITHMS


def searches(config: dict) -> list[Search]:
    """The searches of a validated config's ``worst_case:`` block (none without one): the grid
    of its algorithms, K, gap and epsilon, and its ``cells``."""
    block = config.get("worst_case")
    if not block:
        return []
    out = _cell_searches(block) + [
        Search(
            a,
            int(K),
            float(g),
            float(e),
            int(block["horizon"]),
            int(block["budget"]),
            int(block["seed"]),
            int(block["unseen"]),
            float(block["tolerance"]),
        )
        for a in block["algorithms"]
        for K in block["K"]
        for g in block["gap"]
        for e in block["epsilon"]
    ]
    unique = {s.search_id: s for s in out}
    return sorted(unique.values(), key=lambda s: (s.algorithm, s.K, s.gap, s.epsilon))


def worst_tables(result: dict, search: Search):
    """Each objective's instance's exact regret at every checkpoint (:func:`privdtol.engine.
    runner.exact_table`), as cell rows of experiment ``worst_case`` (cell id: the search's id
    and the objective), and the averager of the theorem1 instance (whose laws its proof terms
    reuse: :func:`worst_terms`)."""
    from privdtol.engine.runner import exact_table_and_averager, make_spec

    tables, base = [], None
    for objective, found in result["objectives"].items():
        spec = make_spec(
            search.algorithm,
            search.epsilon,
            search.horizon,
            0,
            means=tuple(found["means"]),
            mode="exact",
            instance=f"worst_{objective}",
        )
        table, avg = exact_table_and_averager(spec)
        table.insert(0, "cell_id", f"{search.search_id}-{objective}")
        tables.append(table)
        if objective == "theorem1":
            base = avg
    out = pd.concat(tables, ignore_index=True)
    out.attrs[SEARCH_ATTR] = asdict(search)  # the promise read_cell holds the file to
    return out, base


def _write_json(data: dict, path) -> None:
    from privdtol.pipeline.io import atomic_path

    text = json.dumps(data, indent=1, sort_keys=True, allow_nan=False) + "\n"
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def worst_terms(result: dict, search: Search, base=None) -> dict:
    """The proof terms (Lemmas 4-5, :func:`privdtol.engine.exact.proof.proof_terms`) of the
    theorem1 instance found, in the form of a proof cell's JSON (experiment ``worst_case``);
    ``base``: the averager of its exact regret (:func:`worst_tables`), whose laws are reused."""
    from privdtol.engine.exact.proof import proof_terms, sum_terms

    found = result["objectives"]["theorem1"]
    regret = (found["regret"], found["error_bound"])
    sums = sum_terms(search.algorithm, found["means"], search.epsilon, base=base)
    terms = proof_terms(
        search.algorithm, found["means"], search.epsilon, search.horizon, regret=regret, sums=sums
    )
    cell = {"instance": "worst_theorem1", "mu_best": found["means"][0]}
    return {"cell_id": f"{search.search_id}-theorem1", "cell": cell, **terms}


def write_search(
    search: Search,
    out,
    trace_out=None,
    table_out=None,
    proof_out=None,
    max_seconds: float = MAX_SECONDS,
) -> dict:
    """Run one search (refused first past ``max_seconds``: :meth:`Search.check_cost`) and write
    its result JSON ``out`` (and, if given, the trace CSV, the instances' exact regret table
    and the theorem1 instance's proof terms), each atomically."""
    from privdtol.pipeline.io import write_table

    result, trace = search.run(max_seconds)
    params = asdict(search) | {"objectives": list(search.objectives)}  # as JSON reads it
    result = {"search_id": search.search_id, "search": params, **result}
    if trace_out is not None:
        write_table(pd.DataFrame(trace), trace_out)
    table, avg = worst_tables(result, search) if table_out or proof_out else (None, None)
    if table_out is not None:
        write_table(table, table_out)
    if proof_out is not None:
        _write_json(worst_terms(result, search, avg), proof_out)
    _write_json(result, out)
    return result


def _joined(values) -> str:
    return " ".join(f"{float(v):.17g}" for v in values)


def search_rows(r: dict, trace: pd.DataFrame) -> list[dict]:
    """The rows of one search result ``r`` (one per objective) with its ``trace``."""
    from privdtol.engine.worst_case import OBJECTIVES

    counted = trace[trace["phase"] != "unseen"]
    rows = []
    for objective, f in r["objectives"].items():
        ratio = OBJECTIVES[objective][0]
        u = r["unseen"]["objectives"].get(objective, {})
        rows.append(
            {
                "search_id": r["search_id"],
                "algorithm": r["algorithm"],
                "K": r["K"],
                "gap": r["gap"],
                "epsilon": r["epsilon"],
                "objective": objective,
                "value": f["value"],
                "standard_value": f["standard_value"],
                "beats_standard": bool(f["beats_standard"]),
                "family": f["family"],
                "description": f["description"],
                "regret": f["regret"],
                "error_bound": f["error_bound"],
                "lower_bound": f["lower_bound"],
                "theorem1_bound": r["theorem1_bound"],
                "evaluations": r["evaluations"],
                "families": " ".join(f"{k}:{v}" for k, v in sorted(r["families"].items())),
                "unseen": r["unseen"]["count"],
                "unseen_value": u.get("value", float("nan")),
                "unseen_margin": u.get("margin", float("nan")),
                "unseen_beaten": bool(u.get("beaten", False)),
                "tolerance": r["tolerance"],
                "means": _joined(f["means"]),
                "standard_means": _joined(r["standard"]["means"]),
                "trace_ratio": _joined(counted[ratio]),
            }
        )
    return rows


def searches_table(paths) -> pd.DataFrame:
    """One row per search result JSON and objective (with the objective's ratio at every
    evaluation of the search, in order, as ``trace_ratio``)."""
    rows = []
    for p in sorted(map(Path, paths)):
        try:
            r = json.loads(p.read_text(encoding="utf-8"))
            trace = pd.read_csv(p.with_suffix(".trace.csv"))
            rows += search_rows(r, trace)
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise InputError("searches", f"{p}: not a search result ({err})", "") from None
    keys = ["objective", "algorithm", "K", "gap", "epsilon", "search_id"]
    return pd.DataFrame(rows).sort_values(keys, kind="stable").reset_index(drop=True)
