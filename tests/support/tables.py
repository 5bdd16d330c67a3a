"""Fake aggregated tables: rows with the columns of ``results/agg/<experiment>.parquet``.

The contract is :data:`privdtol.pipeline.aggregate.COLUMNS` (one row per cell and checkpoint
horizon).  :func:`agg_table` builds such rows by hand for the analysis, report and pipeline
tests; the tables of a regret model are in :mod:`support.synthetic_regret` (built with
:func:`agg_table`), and a small table computed by the real engine is in :mod:`support.tiny_agg`.

Example: two cells at two horizons, ``se`` 1% of the mean, ``ci_low``/``ci_high`` from it::

    agg_table(
        [{"K": 2, "mean": 10.0}, {"K": 8, "gap": 0.25, "mean": [5.0, 6.0]}],
        horizons=(1023, 4095),
        rel_se=0.01,
        columns=(*CORE, *INTERVAL),
    )
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from privdtol.core import bounds
from privdtol.pipeline.aggregate import COLUMNS, Z95

#: the value of a column where neither the cell nor the call gives one
DEFAULTS = {
    "experiment": "x",
    "algorithm": "rps",
    "env": "bernoulli",
    "instance": "standard",
    "K": 2,
    "gap": 0.5,
    "epsilon": 1.0,
    "rho": np.nan,
    "kappa": np.nan,
    "runs": 100,
    "estimator": "fast",
    "mean": np.nan,
    "se": np.nan,
}
#: the columns most analysis code reads: a cell's parameters, its horizon, runs, mean and se
CORE = (
    "experiment",
    "cell_id",
    "algorithm",
    "env",
    "instance",
    "K",
    "gap",
    "epsilon",
    "mu_best",
    "rho",
    "kappa",
    "horizon",
    "runs",
    "mean",
    "se",
)
#: the normal 95% interval, mean -/+ 1.96 se
INTERVAL = ("ci_low", "ci_high")


def _at(value, j: int, cell: Mapping, horizon: int):
    """``value`` at the j-th horizon: a sequence gives one value per horizon, a callable is
    called as ``value(cell, horizon)``, anything else is the same at every horizon."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return value[j]
    if callable(value):
        return value(cell, horizon)
    return value


def _derived(row: Mapping, column: str, rel_se: float | None):
    """The columns computed from others when not given."""
    if column == "mu_best":
        return 0.5 - row["gap"] / 2
    if column == "eta":
        return float(bounds.eta(row["epsilon"]))
    if column == "se":
        return DEFAULTS["se"] if rel_se is None else rel_se * row["mean"]
    if column == "ci_low":
        return row["mean"] - Z95 * row["se"]
    if column == "ci_high":
        return row["mean"] + Z95 * row["se"]
    raise KeyError(column)


def agg_table(
    cells: Iterable[Mapping] = ({},),
    horizons: Sequence[int] = (1023,),
    *,
    columns: Sequence[str] = CORE,
    drop: Sequence[str] = (),
    rel_se: float | None = None,
    **common,
) -> pd.DataFrame:
    """An aggregated table by hand: one row per cell of ``cells`` and horizon of ``horizons``
    (cell by cell, horizons in the order given).

    A row's value of a column comes from, first to last: the cell's dict, the keyword arguments
    ``common`` (shared by every cell), then a default: ``cell_id`` ``f"c{i}"`` (i the cell's
    position), ``mu_best`` = 0.5 - gap/2, ``eta`` = :func:`privdtol.core.bounds.eta` (epsilon),
    ``se`` = ``rel_se`` x mean (NaN without ``rel_se``), ``ci_low``/``ci_high`` = mean -/+
    1.96 se, and the others from :data:`DEFAULTS` (rps on standard Bernoulli losses, K = 2,
    gap 1/2, eps 1, 100 runs, rho and kappa NaN).  A given value may be a list, tuple or array
    (one value per horizon) or a callable ``f(cell, horizon)`` (``cell`` the cell's dict over
    ``common`` and :data:`DEFAULTS`), e.g. ``mean=lambda c, h: c["K"] * h``.

    The table has the columns ``columns`` but ``drop`` (default :data:`CORE`), then every other
    column a cell or ``common`` gives (e.g. ``tail_mean``), ordered as in the contract
    :data:`privdtol.pipeline.aggregate.COLUMNS`, extra columns last.  ``drop`` leaves a column
    out, e.g. to check code that must cope without ``se``.
    """
    cells = list(cells)
    given = list(dict.fromkeys([*common, *(k for c in cells for k in c)]))
    wanted = [c for c in dict.fromkeys([*columns, *given]) if c not in drop]
    order = {c: i for i, c in enumerate(COLUMNS)}
    wanted.sort(key=lambda c: order.get(c, len(order)))
    # computed where not given, in this order (se from mean, ci from mean and se)
    derive = [c for c in ("mu_best", "eta", "se", "ci_low", "ci_high") if c in wanted]
    if {"ci_low", "ci_high"} & set(derive) and "se" not in derive:
        derive.insert(derive.index("ci_low" if "ci_low" in derive else "ci_high"), "se")
    rows = []
    for i, cell in enumerate(cells):
        values = {**DEFAULTS, "cell_id": f"c{i}", **common, **cell}
        for j, h in enumerate(horizons):
            row = {c: _at(v, j, values, h) for c, v in values.items()}
            row.setdefault("horizon", h)
            for column in derive:
                if column not in common and column not in cell:
                    row[column] = _derived(row, column, rel_se)
            rows.append({c: row[c] for c in wanted})
    return pd.DataFrame(rows, columns=wanted)


def cells_of(
    keys: Sequence[str], tuples: Iterable[Sequence], **extra: Callable | object
) -> list[dict]:
    """Cell dicts from tuples: ``cells_of(("K", "gap"), [(2, 0.5), (8, 0.25)])``; ``extra``
    values are added to every cell."""
    return [{**dict(zip(keys, t, strict=True)), **extra} for t in tuples]


def final_rows_table(experiment, cells, env="bernoulli", instance="standard", horizon=1023):
    """An aggregated table of ``experiment``: one row per ``(algorithm, K, gap, epsilon, mean)``
    of ``cells`` at ``horizon`` (cell ids ``f"{experiment}-{i}"``), plus, for each, an earlier
    checkpoint (``horizon // 2``) with a mean 1000 times larger that
    :func:`privdtol.analysis.cells.final_rows` must drop.  No ``runs`` nor ``se``; rho and kappa
    None (as a table concatenated from several loss models has them)."""
    return agg_table(
        [
            {
                "cell_id": f"{experiment}-{i}",
                "algorithm": alg,
                "K": K,
                "gap": gap,
                "epsilon": eps,
                "mean": [1000.0 * mean, mean],
            }
            for i, (alg, K, gap, eps, mean) in enumerate(cells)
        ],
        (horizon // 2, horizon),
        drop=("runs", "se"),
        experiment=experiment,
        env=env,
        instance=instance,
        rho=None,
        kappa=None,
    )


#: four rps cells at K = 2 on the exact law mean = 2 log K/gap + 4 log K/eta + 1 (eta =
#: min(eps/2, 1/8): 1/32, 1/32, 1/8, 1/16), the columns (log K/gap, log K/eta, 1) of full rank;
#: as ``(algorithm, K, gap, epsilon, mean)`` for :func:`final_rows_table`
EXACT_LAW_GRID = [
    ("rps", 2, gap, eps, 2 * np.log(2.0) / gap + 4 * np.log(2.0) / min(eps / 2, 1 / 8) + 1)
    for gap, eps in ((0.25, 0.0625), (0.5, 0.0625), (0.25, 0.25), (0.5, 0.125))
]


def exact_law_tables():
    """The grid experiment of :data:`EXACT_LAW_GRID` with rows a fit of rps's constants must
    leave out: another algorithm (rps_eta_logk) and rps on another loss model (beta)."""
    others = [("rps_eta_logk", 2, 0.25, 0.0625, 1.0)]
    other_env = final_rows_table("grid", [("rps", 2, 0.5, 0.25, 1.0)], env="beta")
    grid = final_rows_table("grid", EXACT_LAW_GRID + others)
    return {"grid": pd.concat([grid, other_env.assign(cell_id="b")], ignore_index=True)}


def proof_row(i=0, algorithm="rps", **values):
    """One row of a fake ``proof.parquet`` (:mod:`privdtol.pipeline.proof`): the exact proof
    terms of an rps cell at K = 8, gap 1/4, eps 1 (eta 1/8; cell id ``f"c{i:03d}"``) whose every
    step holds (regret 99 against Lemma 4's 121, sum_F 30 against Lemma 5's 2000, the small-gap
    sum 30 against eq. (5)'s 1600, no large gaps against eq. (6)'s 400); ``values`` override."""
    base = {
        "experiment": "grid",
        "cell_id": f"c{i:03d}",
        "algorithm": algorithm,
        "K": 8,
        "gap": 0.25,
        "epsilon": 1.0,
        "eta": 0.125,
        "eta_selection": 0.125,
        "n_small": 7,
        "n_large": 0,
        "regret": 99.0,
        "regret_err": 1e-6,
        "regret_limit": np.nan,
        "regret_limit_err": np.nan,
        "sum_F": 30.0,
        "sum_F_err": 1e-6,
        "small_gap": 30.0,
        "small_gap_err": 1e-6,
        "large_gap": 0.0,
        "large_gap_err": 0.0,
        "bound_lemma4": 121.0,
        "bound_lemma5": 2000.0,
        "bound_eq5": 1600.0,
        "bound_eq6": 400.0,
    }
    return {**base, **values}


def rps_cell_rows(env, means, se, horizons=(1023, 4095), algorithm="rps"):
    """The rows (as dicts) of one cell of the dependent experiment: ``algorithm`` at K = 8,
    gap 1/2, eps 2 (eta 1/8) on loss model ``env`` (rho 1/2 if correlated), cell id
    ``f"{env}-{algorithm}"``, with ``means`` at ``horizons`` and standard error ``se``."""
    return agg_table(
        [{"cell_id": f"{env}-{algorithm}", "mean": list(means)}],
        horizons,
        columns=(*CORE, "eta"),
        experiment="dependent",
        algorithm=algorithm,
        env=env,
        K=8,
        gap=0.5,
        epsilon=2.0,
        rho=0.5 if env == "correlated" else np.nan,
        se=se,
    ).to_dict("records")


def table_frame(name: str) -> pd.DataFrame:
    """A small results table with the kinds of columns the notebooks write."""
    return pd.DataFrame(
        {
            "algorithm": ["rps", "wu_wang", "rps_data_prefix"],
            "K": [2, 8, 1024],
            "gap": [0.25, 0.0625, np.nan],
            "epsilon": [1.0, 0.125, 4.0],
            "horizon": [1023, (1 << 30) - 1, 16383],
            "role": ["private", "private", "negative_control"],
            "env": ["bernoulli", "correlated", "beta"],
            "slope": [12.345, 0.000123, -0.5],
            "ci_low": [1.0, np.nan, -1.0],
            "ci_high": [1.5, 2.0, np.inf],
            f"{name}_note": ["a_b & 50%", "ρ = 0.5", ""],
        }
    )


def contract_table(cells: Iterable[Mapping] = ({},), horizons: Sequence[int] = (1023,), **kw):
    """:func:`agg_table` with every column of the contract (what the pipeline's reader,
    :func:`privdtol.analysis.records.load_agg`, requires): the columns not given are NaN,
    ``eta`` derived, ``estimator`` "fast" and ``tail_mean`` 0."""
    df = agg_table(cells, horizons, columns=(*CORE, *INTERVAL, "eta", "estimator"), **kw)
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = 0.0 if col == "tail_mean" else np.nan
    return df[[*COLUMNS, *(c for c in df.columns if c not in COLUMNS)]]
