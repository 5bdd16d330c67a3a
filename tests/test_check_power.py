"""Size and power of the regret checks (issue 12, Deliver 5) with the pipeline's own module
(:mod:`privdtol.analysis.power`): on the default configuration's cells, synthetic tables from
the two-term form fitted to the default grid (a = 1.2, b = 3.6, c = 1, a lack of fit of 5%,
:data:`~privdtol.analysis.power.DEFAULT_MODEL`).  Under the null the false-FAIL rate of every
check is at most 5%; each negative control is caught (FAIL) at least 95% of the time.  Fixed
seeds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from privdtol.analysis.power import (
    DEFAULT_MODEL,
    EXCLUDED,
    control_regret,
    null_regret,
    power_table,
)
from privdtol.analysis.registry import CLAIMS, ENV_CONTROLS
from privdtol.pipeline.config import load_config

ROOT = Path(__file__).resolve().parents[1]
REPLICATES = 20


@pytest.fixture(scope="module")
def default_power():
    config = load_config(ROOT / "config" / "config.yaml")
    return power_table(config, {**DEFAULT_MODEL, "source": "test"}, REPLICATES, seed=0)


@pytest.mark.slow
def test_every_control_of_the_default_config_has_a_row(default_power):
    expected = {
        (c.id, ctrl)
        for c in CLAIMS.values()
        if c.id not in EXCLUDED
        for ctrl in c.controls
        if ctrl not in ENV_CONTROLS  # a loss-model control has no synthetic form
    }
    assert {(r["claim"], r["control"]) for r in default_power["rows"]} == expected


@pytest.mark.slow
def test_size_under_the_null(default_power):
    for row in default_power["rows"]:
        assert row["false_fail_rate"] <= 0.05, row


@pytest.mark.slow
def test_power_against_the_controls(default_power):
    for row in default_power["rows"]:
        assert row["control_fail_rate"] >= 0.95, row


def test_models_reach_their_plateau_and_controls_differ():
    """The null plateaus at a log K/gap + b log K/eta + c; each control departs from it in the
    coordinate its check tests."""
    m = {**DEFAULT_MODEL, "sigma": 0.0}
    T = np.array([2**40 - 1])
    full = m["a"] * np.log(8) / 0.125 + m["b"] * np.log(8) / 0.5**0 * 8 + m["c"]  # eta = 1/8
    assert null_regret(m, 8, 0.125, 8.0, T)[0] == pytest.approx(full, rel=1e-9)
    # log K exponent: rps_eta_logk's privacy term carries an extra log2 K
    r = [control_regret("rps_eta_logk", m, K, 0.5, 0.0625, T)[0] for K in (4, 4096)]
    n = [null_regret(m, K, 0.5, 0.0625, T)[0] for K in (4, 4096)]
    assert r[1] / r[0] > 5 * n[1] / n[0]
    # 1/gap exponent: rps_short_prefix pays 1/gap^2
    s = [control_regret("rps_short_prefix", m, 8, g, 8.0, T)[0] for g in (1 / 16, 1 / 128)]
    assert s[1] / s[0] > 40
    # uniform: linear in T
    assert control_regret("uniform", m, 4, 0.5, 1.0, T)[0] == pytest.approx(T[0] * 0.375)


def test_c3_power_per_cell_is_lost_at_small_gaps():
    """C3's control (ftl_egreedy, regret + gap (K - 1) ln T) is caught in the default config's
    large-gap cells and in none of its small-gap ones (K = 2 and 16, gap 2^-5): its log-T slope
    there is below (r - 1) Reg(T0)/ln(T_max/T0), the scope C3 states.  Only C3 (10 synthetic
    tables, about 1 s)."""
    from privdtol.analysis import power

    config = load_config(ROOT / "config" / "config.yaml")
    only_c3 = [(c, k) for c, k in power.controls_for(config) if c == "C3"]
    original = power.controls_for
    try:
        power.controls_for = lambda cfg: only_c3
        table = power_table(config, {**DEFAULT_MODEL, "source": "test"}, 10, seed=0)
    finally:
        power.controls_for = original
    (row,) = table["rows"]
    assert row["control_fail_rate"] == 1.0
    assert row["control_fail_rate_by_cell"] == {
        "K=2, gap=0.03125": 0.0,
        "K=2, gap=0.25": 1.0,
        "K=16, gap=0.03125": 0.0,
        "K=16, gap=0.25": 1.0,
    }
