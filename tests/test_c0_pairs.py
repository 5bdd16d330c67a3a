"""C0's pair table (privdtol.analysis.claims.c0_agreement.pair_table): a pair compared in
standard errors agrees when its distance beyond the exact error bound is at most z_max s.e.
(the column the agreement notebook's table and any reader of the table rely on)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis.claims.c0_agreement import pair_table


def _pair(mc_mean: float, se: float, exact: float = 10.0, bound: float = 0.0) -> pd.DataFrame:
    base = {
        "algorithm": "rps",
        "env": "bernoulli",
        "instance": "standard",
        "K": 8,
        "gap": 0.125,
        "epsilon": 1.0,
        "mu_best": np.nan,
        "rho": np.nan,
        "kappa": np.nan,
        "horizon": 1023,
    }
    return pd.DataFrame(
        [
            {**base, "runs": 0, "estimator": "exact", "mean": exact, "se": 0.0,
             "ci_low": exact - bound, "ci_high": exact + bound},
            {**base, "runs": 1000, "estimator": "fast", "mean": mc_mean, "se": se,
             "ci_low": mc_mean - 1.96 * se, "ci_high": mc_mean + 1.96 * se},
        ]
    )  # fmt: skip


@pytest.mark.parametrize(("distance", "agree"), [(3.0, True), (4.0, True), (5.0, False)])
def test_a_z_pair_agrees_up_to_z_max(distance, agree):
    pairs = pair_table(_pair(10.0 + distance * 0.1, 0.1), z_max=4.0)
    (row,) = pairs.itertuples()
    assert row.comparison == "z"
    assert row.z == pytest.approx(distance)
    assert bool(row.agree) is agree


def test_the_distance_starts_beyond_the_exact_error_bound():
    """An exact value with error bound 0.2: a Monte Carlo mean 0.6 away is 0.4 beyond it,
    4 s.e. of 0.1 (agrees at z_max 4); 0.7 away is 5 s.e. beyond (disagrees)."""
    near = pair_table(_pair(10.6, 0.1, bound=0.2), z_max=4.0)
    far = pair_table(_pair(10.7, 0.1, bound=0.2), z_max=4.0)
    assert near["z"].iloc[0] == pytest.approx(4.0) and bool(near["agree"].iloc[0])
    assert far["z"].iloc[0] == pytest.approx(5.0) and not bool(far["agree"].iloc[0])
