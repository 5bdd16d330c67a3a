"""Synthetic aggregated tables from the two-term regret model Reg = 1.2 log K/gap + 3.6 log K/eta
+ 1 (saturating in T), and from the negative controls' expected regret, both from
:mod:`privdtol.analysis.power` (see test_checks).  ``noise`` is the lack of fit (log-normal, per
cell)."""

import numpy as np
import pandas as pd

from privdtol.analysis.power import DEFAULT_MODEL, control_regret

H = [2**k - 1 for k in range(1, 31)]


def model(alg, K, gap, eps, T):
    """Reg_T of ``alg`` under the default two-term model (the pipeline's power module)."""
    eps = np.nan if eps is None else float(eps)
    return float(control_regret(alg, {**DEFAULT_MODEL, "sigma": 0.0}, K, gap, eps, [T])[0])


def table(
    alg, cells, noise=0.05, seed=0, experiment="grid", horizons=H, exact=True, env="bernoulli"
):
    rng = np.random.default_rng(seed)
    rows = []
    for i, (K, gap, eps) in enumerate(cells):
        f = np.exp(noise * rng.standard_normal())
        for h in horizons:
            m = model(alg, K, gap, eps, h) * f
            se = m * 1e-10 if exact else m * 0.01
            rows.append(
                dict(
                    experiment=experiment,
                    cell_id=f"{alg}{i}",
                    algorithm=alg,
                    env=env,
                    instance="standard",
                    K=K,
                    gap=gap,
                    epsilon=eps,
                    mu_best=0.5 - gap / 2,
                    rho=np.nan,
                    kappa=np.nan,
                    horizon=h,
                    runs=0 if exact else 100,
                    mean=m,
                    se=se,
                    ci_low=m - 1.96 * se,
                    ci_high=m + 1.96 * se,
                )
            )
    return pd.DataFrame(rows)


GRID = [
    (K, g, e)
    for K in (2, 8, 64, 512)
    for g in (0.5, 0.125, 0.03125, 0.0078125)
    for e in (4, 1, 0.25, 0.0625, 0.015625)
]
GAP = [(8, g, 8.0) for g in (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125)]
EPS = [(8, 0.5, e) for e in (1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625)]
ACT = [(K, 0.125, 8.0) for K in 2 ** np.arange(1, 13)] + [
    (K, 0.5, 0.0625) for K in 2 ** np.arange(1, 13)
]
