"""Size and power of the regret checks on synthetic tables with known truth: tables from the
fitted two-term model (Reg = 1.2 log K/gap + 3.6 log K/eta + 1, the fit of the default grid)
with a per-cell log-normal lack of fit of the measured size (about 5%, the scatter of the rps
grid cells around the fit), and the negative controls' expected regret with the same noise.
Under the null the false-FAIL rate of each check is at most 5%; each negative control is
caught (FAIL) at least 95% of the time.  Fixed seeds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from synthetic_regret import ACT, EPS, GAP, GRID, table

from privdtol.analysis.registry import CLAIMS

SEEDS = range(40)
NOISE = 0.05
TH = {
    "confidence": 0.95,
    "horizon_free_ratio_max": 1.05,
    "horizon_free_c": 16,
    "rate_form_factor": 1.5,
    "exponent_range": [0.8, 1.2],
}
CELLS = {
    "C4": ("grid", GRID),
    "C4a": ("gap", GAP),
    "C4b": ("epsilon", EPS),
    "C4c": ("actions", ACT),
}
CONTROL = {"C4": "rps_eta_logk", "C4b": "rps_eta_sq", "C4c": "rps_eta_logk"}


def _verdicts(claim, alg):
    exp, cells = CELLS[claim]
    fn = CLAIMS[claim].check_function()
    return [
        fn({exp: table(alg, cells, NOISE, seed, exp)}, TH, [], algorithm=alg)["verdict"]
        for seed in SEEDS
    ]


@pytest.mark.slow
@pytest.mark.parametrize("claim", sorted(CELLS))
def test_size_under_the_null(claim):
    v = _verdicts(claim, "rps")
    assert v.count("FAIL") / len(v) <= 0.05, v


@pytest.mark.slow
@pytest.mark.parametrize("claim", sorted(CONTROL))
def test_power_against_the_control(claim):
    v = _verdicts(claim, CONTROL[claim])
    assert v.count("FAIL") / len(v) >= 0.95, v
