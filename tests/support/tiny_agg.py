"""A tiny but real ``results/agg`` directory for notebook tests and hand runs.

Each cell is simulated with :func:`privdtol.engine.runner.run_cell` and reduced with the
pipeline's own :func:`privdtol.pipeline.aggregate.aggregate_tables` (one row per cell and
checkpoint horizon).

    python tests/support/tiny_agg.py OUT_DIR [--runs N] [--scale small|demo]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from privdtol.algorithms import ALGORITHMS
from privdtol.core.seeding import stable_digest
from privdtol.engine.runner import exact_table, make_spec, run_cell
from privdtol.pipeline.aggregate import aggregate_tables
from privdtol.pipeline.io import write_table

T30 = (1 << 30) - 1


def _designs(scale: str) -> dict[str, list[dict]]:
    small = scale == "small"
    gaps = [2.0**-k for k in range(1, 6 if small else 11)]
    epss = [2.0**-k for k in range(-1, 4 if small else 8)]
    Ks = [2, 4, 8, 16] if small else [2, 4, 8, 16, 32, 64, 128]
    algs_all = ("rps", "rnm_ftnl", "wu_wang", "wu_wang_gumbel", "ftl", "hedge")
    d = {
        "horizon": [
            dict(algorithm=a, K=8, gap=0.1, epsilon=e)
            for a in algs_all
            for e in ((0.25,) if small else (0.25, 2.0))
        ],
        "gap": [
            dict(algorithm=a, K=8, gap=g, epsilon=2.0) for a in ("rps", "wu_wang") for g in gaps
        ],
        "epsilon": [
            dict(algorithm=a, K=8, gap=0.5, epsilon=e) for a in ("rps", "wu_wang") for e in epss
        ],
        "actions": [
            dict(algorithm=a, K=k, gap=g, epsilon=e)
            for a in ("rps", "wu_wang")
            for (g, e) in ((0.5, 1 / 16), (1 / 32, 2.0))
            for k in Ks
        ],
        "grid": [
            dict(algorithm="rps", K=k, gap=g, epsilon=e)
            for k in ((4, 16) if small else (4, 16, 64))
            for g in ((0.5, 0.125, 1 / 32) if small else (0.5, 0.125, 1 / 32, 1 / 128))
            for e in ((2.0, 0.25, 1 / 32) if small else (2.0, 0.25, 1 / 32, 1 / 128))
        ],
        "dependent": [
            dict(algorithm="rps", K=8, gap=g, epsilon=e, env=env)
            for env in ("bernoulli", "correlated", "beta")
            for (g, e) in ([(0.5, 2.0), (0.25, 2.0), (0.125, 2.0), (0.5, 0.5), (0.5, 0.25)])
        ],
        "ablations": [
            dict(algorithm=a, K=8, gap=0.1, epsilon=e)
            for a in ("rps", "rps_full_prefix", "rps_uncapped")
            for e in (2.0, 0.5, 0.125)
        ],
        # the separation from the prior bounds, exact (K up to 64, a privacy-regime eps)
        "separation": [
            dict(algorithm=a, K=k, gap=0.5, epsilon=e, mode="exact")
            for a in ("rps", "rnm_ftnl")
            for k in (2, 8, 64)
            for e in (1.0, 0.125)
        ],
        # claim C0: the same cells exactly and by Monte Carlo (built only when asked for)
        "agreement": [
            dict(algorithm=a, K=8, gap=0.125, epsilon=1.0, mode=m)
            for a in ("rps", "rnm_ftnl")
            for m in ("exact", "auto")
        ],
    }
    return d


#: designs built only when named in ``experiments``
OPTIONAL = ("agreement",)


def build_tiny_agg(
    out_dir: str | Path, runs: int = 100, scale: str = "small", experiments=None
) -> Path:
    """Simulate the tiny design and write ``<out_dir>/<experiment>.parquet``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for exp, cells in _designs(scale).items():
        if (exp not in experiments) if experiments is not None else exp in OPTIONAL:
            continue
        tables = []
        for c in cells:
            env = c.get("env", "bernoulli")
            alg = c["algorithm"]
            eps = c["epsilon"] if ALGORITHMS[alg].private else None
            horizon = (
                1023 if (env == "beta" and scale == "small") else (16383 if env == "beta" else T30)
            )
            exact = c.get("mode") == "exact"
            spec = make_spec(
                alg, eps, horizon, 0 if exact else runs, env=env, K=c["K"], gap=c["gap"]
            )
            table = exact_table(spec) if exact else run_cell(spec)[0]
            # the engine's table has every parameter column (rho, kappa: the models' defaults)
            cell_id = stable_digest({**c, "env": env, "experiment": exp})[:12]
            tables.append(table.assign(cell_id=cell_id))
        write_table(aggregate_tables(tables, exp), out_dir / f"{exp}.parquet")
    if experiments is None or "proof" in experiments:
        write_table(proof_table(), out_dir / "proof.parquet")
    if experiments is None or "searches" in experiments:
        write_table(searches_table(out_dir / "worst_case"), out_dir / "searches.parquet")
    return out_dir


def searches_table(work_dir):
    """A tiny ``searches.parquet`` (:mod:`privdtol.pipeline.worst_case`): two short searches
    (rps and rnm_ftnl, K = 3, T = 2^10 - 1, 12 evaluations, 2 unseen instances), their files in
    ``work_dir``."""
    from privdtol.pipeline import worst_case as wc

    paths = []
    for algorithm in ("rps", "rnm_ftnl"):
        s = wc.Search(algorithm, 3, 0.25, 1.0, 1023, 12, 0, 2, 1e-3)
        base = Path(work_dir) / s.search_id
        base.parent.mkdir(parents=True, exist_ok=True)
        wc.write_search(s, f"{base}.json", f"{base}.trace.csv")
        paths.append(f"{base}.json")
    return wc.searches_table(paths)


#: the tiny proof table's cells: rps in both regimes, and the proof claims' controls
PROOF_CELLS = [
    ("rps", 4, 0.5, 1 / 16),
    ("rps", 16, 0.5, 1 / 16),
    ("rps", 4, 0.125, 2.0),
    ("rps", 16, 1 / 32, 0.25),
    ("rps_short_prefix", 8, 1 / 32, 2.0),
    ("rps_eta_logk", 16, 0.5, 1 / 64),
]


def proof_table():
    """A tiny ``proof.parquet`` (:mod:`privdtol.pipeline.proof`): the exact proof terms of
    :data:`PROOF_CELLS` at T = 2^20 - 1, experiment "grid"."""
    import pandas as pd

    from privdtol.pipeline.plan import Cell
    from privdtol.pipeline.proof import cell_terms, flat_row

    rows = []
    for alg, K, gap, eps in PROOF_CELLS:
        cell = Cell(
            alg, "bernoulli", "standard", K, gap, None, eps, (1 << 20) - 1, 0, None, None, 0
        )
        rows.append({"experiment": "grid", **flat_row(cell_terms(cell))})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out_dir")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--scale", choices=("small", "demo"), default="small")
    a = ap.parse_args()
    build_tiny_agg(a.out_dir, a.runs, a.scale)
