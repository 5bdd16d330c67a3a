"""A tiny but real ``results/agg`` directory for notebook tests and hand runs.

Each cell is simulated with :func:`privdtol.runner.run_cell` and reduced with a minimal local
aggregation that follows the agg contract (one row per cell and checkpoint horizon).  If the
pipeline's :mod:`privdtol.aggregate` is not importable this local version is the only one used;
it is deliberately simple (normal 95% intervals).

    python tests/tiny_agg.py OUT_DIR [--runs N] [--scale small|demo]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

from privdtol import bounds
from privdtol.io import write_table
from privdtol.runner import CellSpec, instance_means, run_cell
from privdtol.seeding import stable_digest

T30 = (1 << 30) - 1
PRIVATE = ("rps", "rnm_ftnl", "wu_wang", "wu_wang_gumbel", "rps_full_prefix", "rps_uncapped")


def _designs(scale: str) -> dict[str, list[dict]]:
    small = scale == "small"
    gaps = [2.0 ** -k for k in range(1, 6 if small else 11)]
    epss = [2.0 ** -k for k in range(-1, 4 if small else 8)]
    Ks = [2, 4, 8, 16] if small else [2, 4, 8, 16, 32, 64, 128]
    algs_all = ("rps", "rnm_ftnl", "wu_wang", "wu_wang_gumbel", "ftl", "hedge")
    d = {
        "horizon": [dict(algorithm=a, K=8, gap=0.1, epsilon=e) for a in algs_all
                    for e in ((0.25,) if small else (0.25, 2.0))],
        "gap": [dict(algorithm=a, K=8, gap=g, epsilon=2.0) for a in ("rps", "wu_wang")
                for g in gaps],
        "epsilon": [dict(algorithm=a, K=8, gap=0.5, epsilon=e) for a in ("rps", "wu_wang")
                    for e in epss],
        "actions": [dict(algorithm=a, K=k, gap=g, epsilon=e) for a in ("rps", "wu_wang")
                    for (g, e) in ((0.5, 1 / 16), (1 / 32, 2.0)) for k in Ks],
        "grid": [dict(algorithm="rps", K=k, gap=g, epsilon=e)
                 for k in ((4, 16) if small else (4, 16, 64))
                 for g in ((0.5, 0.125, 1 / 32) if small else (0.5, 0.125, 1 / 32, 1 / 128))
                 for e in ((2.0, 0.25, 1 / 32) if small else (2.0, 0.25, 1 / 32, 1 / 128))],
        "dependent": [dict(algorithm="rps", K=8, gap=g, epsilon=e, env=env)
                      for env in ("bernoulli", "correlated", "beta")
                      for (g, e) in ([(0.5, 2.0), (0.25, 2.0), (0.125, 2.0), (0.5, 0.5),
                                      (0.5, 0.25)])],
        "ablations": [dict(algorithm=a, K=8, gap=0.1, epsilon=e)
                      for a in ("rps", "rps_full_prefix", "rps_uncapped")
                      for e in (2.0, 0.5, 0.125)],
    }
    return d


def aggregate_runs(runs: pd.DataFrame, meta: dict) -> pd.DataFrame:
    """Per checkpoint horizon: mean, se, normal 95% CI and quantiles of the run regrets."""
    rows = []
    for h, g in runs.groupby("horizon", sort=True):
        x, xr = g["regret"].to_numpy(), g["regret_realized"].to_numpy()
        n = x.size
        se = x.std(ddof=1) / math.sqrt(n)
        q = np.quantile(x, [0.05, 0.25, 0.5, 0.75, 0.95])
        first = g.iloc[0]
        K, gap, eps = int(first["K"]), float(first["gap"]), float(first["epsilon"])
        rows.append({**meta, "algorithm": first["algorithm"], "env": first["env"], "K": K,
                     "gap": gap, "epsilon": eps, "eta": float(first["eta"]),
                     "mu_best": float(first["mu_best"]), "horizon": int(h), "runs": n,
                     "estimator": first["estimator"], "mean": x.mean(), "se": se,
                     "ci_low": x.mean() - 1.96 * se, "ci_high": x.mean() + 1.96 * se,
                     "q05": q[0], "q25": q[1], "q50": q[2], "q75": q[3], "q95": q[4],
                     "mean_realized": xr.mean(),
                     "se_realized": xr.std(ddof=1) / math.sqrt(n),
                     "bound_thm1": float(bounds.theorem1(K, gap, eps)) if eps == eps else np.nan,
                     "bound_corollary": float(bounds.corollary(K, gap, eps)) if eps == eps
                     else np.nan,
                     "rate": float(bounds.rate(K, gap, eps)) if eps == eps else np.nan,
                     "lower_shape": float(bounds.lower_shape(K, gap, eps)) if eps == eps
                     else np.nan,
                     "wu_wang_shape": float(bounds.wu_wang_shape(K, gap, eps)) if eps == eps
                     else np.nan})
    return pd.DataFrame(rows)


def build_tiny_agg(out_dir: str | Path, runs: int = 100, scale: str = "small",
                   experiments=None) -> Path:
    """Simulate the tiny design and write ``<out_dir>/<experiment>.parquet``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for exp, cells in _designs(scale).items():
        if experiments is not None and exp not in experiments:
            continue
        parts = []
        for c in cells:
            env = c.get("env", "bernoulli")
            alg = c["algorithm"]
            eps = c["epsilon"] if alg in PRIVATE else None
            horizon = 1023 if (env == "beta" and scale == "small") else (
                16383 if env == "beta" else T30)
            means = tuple(float(m) for m in instance_means(c["K"], c["gap"]))
            spec = CellSpec(alg, eps, horizon, runs, env=env, means=means)
            table, _, _ = run_cell(spec)
            meta = {"experiment": exp, "instance": "standard",
                    "rho": 0.5 if env == "correlated" else np.nan,
                    "kappa": 2.0 if env == "beta" else np.nan}
            meta["cell_id"] = stable_digest({**c, "env": env, "experiment": exp})[:12]
            parts.append(aggregate_runs(table, meta))
        write_table(pd.concat(parts, ignore_index=True), out_dir / f"{exp}.parquet")
    return out_dir


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out_dir")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--scale", choices=("small", "demo"), default="small")
    a = ap.parse_args()
    build_tiny_agg(a.out_dir, a.runs, a.scale)
