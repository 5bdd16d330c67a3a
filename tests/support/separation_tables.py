"""Aggregated ``separation`` tables known by construction: each algorithm's regret is 3 times
one shape of :func:`privdtol.analysis.separation.shapes` (the paper's rate, Hu et al.'s or Wu &
Wang's bound), at K = 2, 16, 4096, one privacy-regime and one statistical-regime (gap, eps) and
five checkpoints up to 2^40 - 1."""

from __future__ import annotations

import pandas as pd

from privdtol.analysis import separation as sep

HORIZONS = [(1 << k) - 1 for k in (1, 10, 20, 30, 40)]


def synthetic(shape_of: dict[str, str]) -> dict[str, pd.DataFrame]:
    """An aggregated ``separation`` table: each algorithm's regret is 3 times its shape."""
    rows = []
    for alg, shape in shape_of.items():
        for K in (2, 16, 4096):
            for gap, eps in ((0.5, 2.0**-8), (2.0**-7, 1.0)):
                for T in HORIZONS:
                    value = sep.shapes(K, gap, eps, T)[shape]
                    rows.append(
                        {"algorithm": alg, "env": "bernoulli", "instance": "standard",
                         "K": K, "gap": gap, "epsilon": eps, "horizon": T, "mean": 3 * value}
                    )  # fmt: skip
    return {"separation": pd.DataFrame(rows)}
