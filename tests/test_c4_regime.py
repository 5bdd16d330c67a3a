"""C4a's exponent of 1/gap is read in the statistical regime only (eps > gap): a cell of the
privacy regime, whose regret is log K/eps whatever the gap (Theorem 1's other term), would pull
the fit off the exponent 1.  Found by planting the mutant that drops the restriction (it survived
the whole fast tier)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_mutants_claims_rates import _gap_series  # the exact gap series of the C4 tests

from privdtol.analysis.claims import c4_rate

K, EPS = 64, 0.25
GAPS = (0.5, 0.25, 0.125, 0.0625, 0.03125)


def _cells() -> pd.DataFrame:
    """Exact cells: Reg = 2 log K/gap + 5 where eps > gap, 2 log K/eps + 5 where eps <= gap."""
    rows = _gap_series([K], gaps=GAPS, eps=EPS)
    privacy = rows["gap"] >= EPS
    return rows.assign(
        mean=np.where(privacy, 2 * math.log(K) / EPS + 5, rows["mean"]),
        se=np.where(privacy, 1e-6 * (2 * math.log(K) / EPS + 5), rows["se"]),
    )


def test_the_gap_exponent_leaves_the_privacy_regime_out():
    rec = c4_rate.check_exponent(_cells(), "C4a", "p", (0.9, 1.1), 0.95, plateau=None)
    (series,) = rec["cells"]
    assert series["n"] == 3  # gaps 1/8, 1/16, 1/32; not 1/2 and 1/4 (eps <= gap)
    assert rec["statistic"] == pytest.approx(1.0, abs=1e-6)
    assert rec["verdict"] == "PASS"


def test_with_the_privacy_regime_the_exponent_would_be_lower():
    """The control of the test above: the same fit over all five cells is off 1 (the flat
    privacy-regime cells distort the fitted form), outside the range the check asks for."""
    series = c4_rate.exponent_series(_cells(), "p", 0.95)
    assert series[0]["n"] == 5 and abs(series[0]["estimate"] - 1) > 0.1
