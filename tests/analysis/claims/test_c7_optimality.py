"""C7: the trend of Reg/LB_T over the grid, on tables with a known trend."""

import numpy as np
import pytest
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.claims.c7_optimality import check, exponent_fit
from privdtol.core.lower_bound import lower_bound

T = 2**20 - 1
GRID = [(K, g, e) for K in (2, 8, 64, 512) for g in (0.5, 0.125, 0.03125) for e in (1.0, 1 / 16)]
TH = {"confidence": 0.95, "optimality_exponent_max": 0.0}


def _grid(shape, algorithm="rps", noise=0.05, seed=0):
    """Exact cells whose regret is LB_T times shape(K, gap, eps) times a fixed log-normal
    lack of fit."""
    rng = np.random.default_rng(seed)
    cells = []
    for K, g, e in GRID:
        lb = lower_bound(K, 0.5 + g / 2, g, e, [T])["best"].item()
        mean = lb * shape(K, g, e) * float(np.exp(noise * rng.standard_normal()))
        cells.append({"algorithm": algorithm, "K": K, "gap": g, "epsilon": e, "mean": mean})
    table = agg_table(
        cells, horizons=(T,), columns=(*CORE, *INTERVAL), estimator="exact", rel_se=0.0
    )
    return {"grid": table}


def test_a_ratio_falling_with_every_variable_passes():
    rec = check(_grid(lambda K, g, e: 30 * np.log(K) ** -0.4 * g**0.2 * e**0.1), TH, [])
    assert rec["verdict"] == "PASS"
    assert rec["statistic"] == pytest.approx(-0.1, abs=0.05)  # the largest exponent: 1/eps's


def test_a_ratio_growing_like_log_k_fails():
    # an extra factor log K (the control rps_eta_logk's log^2 K / eps privacy term)
    rec = check(_grid(lambda K, g, e: 30 * np.log(K), "rps_eta_logk"), TH, [], "rps_eta_logk")
    assert rec["verdict"] == "FAIL"
    assert rec["statistic"] == pytest.approx(1.0, abs=0.1)
    assert rec["algorithm"] == "rps_eta_logk"


def test_a_flat_ratio_with_lack_of_fit_is_not_a_pass_at_zero():
    # exponent 0 exactly: the upper limit is above 0, so "no upward trend" is not shown
    rec = check(_grid(lambda K, g, e: 30.0, noise=0.2), TH, [])
    assert rec["verdict"] == "INCONCLUSIVE"


def test_the_fit_recovers_known_exponents():
    import pandas as pd

    rows = [
        {"K": K, "gap": g, "epsilon": e, "ratio": 5 * np.log(K) ** 0.7 / g**0.3 * e**0.2}
        for K, g, e in GRID
    ]
    fit = exponent_fit(pd.DataFrame(rows), 0.95)
    got = {t["term"]: t["exponent"] for t in fit["terms"]}
    assert got == pytest.approx({"log K": 0.7, "1/gap": 0.3, "1/eps": -0.2}, abs=1e-9)
    assert fit["dof"] == len(GRID) - 4


def test_too_few_cells_is_no_data():
    small = {"grid": _grid(lambda K, g, e: 30.0)["grid"].head(3)}
    assert check(small, TH, [])["verdict"] == "INCONCLUSIVE"
