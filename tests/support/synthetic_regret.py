"""Synthetic aggregated tables from the two-term regret model Reg = 1.2 log K/gap + 3.6 log K/eta
+ 1 (saturating in T), and from the negative controls' expected regret, both from
:mod:`privdtol.analysis.power`, built with :func:`support.tables.agg_table`; and the designs
:data:`GRID`, :data:`GAP`, :data:`EPS` and :data:`ACT` (the experiments' cells)."""

import numpy as np

from privdtol.analysis.power import DEFAULT_MODEL, control_regret
from support.tables import CORE, INTERVAL, agg_table

H = [2**k - 1 for k in range(1, 31)]


def model(alg, K, gap, eps, T):
    """Reg_T of ``alg`` under the default two-term model (the pipeline's power module)."""
    eps = np.nan if eps is None else float(eps)
    return float(control_regret(alg, {**DEFAULT_MODEL, "sigma": 0.0}, K, gap, eps, [T])[0])


def table(
    alg, cells, noise=0.05, seed=0, experiment="grid", horizons=H, exact=True, env="bernoulli"
):
    """The aggregated table of ``alg`` at ``cells`` ``(K, gap, eps)`` and ``horizons``: mean
    :func:`model` times a log-normal lack of fit ``exp(noise z)`` per cell; exact (``runs`` 0,
    se 1e-10 of the mean) or as if from 100 runs (se 1% of the mean)."""
    rng = np.random.default_rng(seed)
    fit = [np.exp(noise * rng.standard_normal()) for _ in cells]
    return agg_table(
        [
            {
                "cell_id": f"{alg}{i}",
                "K": K,
                "gap": gap,
                "epsilon": eps,
                "mean": lambda c, h, f=f: model(alg, c["K"], c["gap"], c["epsilon"], h) * f,
            }
            for i, ((K, gap, eps), f) in enumerate(zip(cells, fit, strict=True))
        ],
        horizons,
        columns=(*CORE, *INTERVAL),
        rel_se=1e-10 if exact else 0.01,
        experiment=experiment,
        algorithm=alg,
        env=env,
        runs=0 if exact else 100,
    )


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

#: the negative controls of the rate claims (each must fail the claim it controls)
CONTROLS = ("uniform", "ftl_egreedy", "rps_eta_logk", "rps_eta_sq", "rps_short_prefix")


def rate_tables(alg, noise=0.05, seed=0):
    """The tables of the rate experiments (grid, gap, epsilon, actions) of ``alg``."""
    return {
        "grid": table(alg, GRID, noise, seed, "grid"),
        "gap": table(alg, GAP, noise, seed, "gap"),
        "epsilon": table(alg, EPS, noise, seed, "epsilon"),
        "actions": table(alg, ACT, noise, seed, "actions"),
    }
