"""Synthetic aggregated tables from the two-term regret model Reg = 1.2 log K/gap + 3.6 log K/eta
+ 1 (saturating in T), and from the negative controls' expected regret (see test_checks and
test_check_power).  ``noise`` is the lack of fit (log-normal, per cell)."""

import numpy as np
import pandas as pd

from privdtol.core import bounds

H = [2**k - 1 for k in range(1, 31)]


def model(alg, K, gap, eps, T):
    lk = np.log(K)
    eta = float(bounds.eta(eps)) if np.isfinite(eps) else np.inf
    if alg == "rps_eta_logk":
        eta = eta / lk
    if alg == "rps_eta_sq":
        eta = min(eps**2 / 2, 1 / 8)
    if alg == "uniform":
        return T * gap * (K - 1) / K
    stat = 1.2 * lk / gap
    priv = 0.0 if not np.isfinite(eta) else 3.6 * lk / eta
    full = stat + priv + 1
    # saturation curve: regret ~ full*(1-exp(-T/T*)) with T* ~ 2*max(lk/gap^2, lk/(eta gap))
    tstar = 2 * max(lk / gap**2, 0 if not np.isfinite(eta) else lk / (eta * gap))
    r = min(T * gap, full * (1 - np.exp(-T / tstar)))
    if alg == "ftl_egreedy":
        r = min(T * gap, stat * (1 - np.exp(-T / tstar)) + 1) + gap * (K - 1) * np.log(
            max(T, 1) / K + 1
        )
    return r


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
