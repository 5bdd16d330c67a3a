"""H1, Hu et al.'s bound as a claim of the cited work: RNM-FTNL's regret over
log K/gap + log K log T/eps bounded, on tables whose ratio is known by construction."""

import numpy as np
import pytest
from support.tables import CORE, INTERVAL, agg_table

from privdtol.analysis.claims.h1_hu_bound import RECORD, check
from privdtol.core import clock

HORIZONS = tuple(int(h) for h in clock.checkpoints(2**20 - 1)[0])
GRID = [(K, g, e) for K in (2, 8, 64, 512) for g in (0.5, 0.125, 0.03125) for e in (4.0, 1 / 16)]
TH = {"cited_ratio_max": 256, "cited_growth_max": 0.25, "confidence": 0.95}


def hu_shape(K, g, e, T):
    """log K/gap + log K log T/eps, natural logs, log T read as log max(T, 2)."""
    return np.log(K) / g + np.log(K) * np.log(max(T, 2)) / e


def tables(ratio, algorithm="rnm_ftnl", experiment="grid"):
    cells = [{"algorithm": algorithm, "K": K, "gap": g, "epsilon": e} for K, g, e in GRID]
    table = agg_table(
        cells,
        HORIZONS,
        columns=(*CORE, *INTERVAL),
        experiment=experiment,
        estimator="exact",
        rel_se=0.0,
        mean=lambda c, h: (
            hu_shape(c["K"], c["gap"], c["epsilon"], h) * ratio(c["K"], c["gap"], c["epsilon"], h)
        ),
    )
    return {experiment: table}


def test_the_record_is_a_claim_of_the_cited_work_about_rnm_ftnl():
    assert RECORD.cited == "hu2021" and RECORD.subject == "rnm_ftnl"
    assert not RECORD.independent
    assert RECORD.controls == ("rps_uniform_mix",)
    assert set(RECORD.experiments) == {"grid", "separation"}


def test_a_bounded_ratio_passes_with_its_largest_value():
    rec = check(tables(lambda K, g, e, T: 10 + 5 * np.sin(K + 1 / g + 1 / e)), TH, [])
    assert rec["verdict"] == "PASS"
    assert rec["algorithm"] == "rnm_ftnl"
    assert 10 < rec["statistic"] <= 15


def test_the_level_is_regret_over_the_shape_by_hand():
    # one cell's regret at T = 1023 is 40 x 18.5703 (log 8/(1/2) + log 8 log 1023 = 4.158883 +
    # 14.411541, by hand), every other cell's regret is its shape: the level is 40
    def ratio(K, g, e, T):
        return 1.0

    t = tables(ratio)
    grid = t["grid"]
    at = (grid["K"] == 8) & (grid["gap"] == 0.5) & (grid["epsilon"] == 4.0) & (grid.horizon == 1023)
    grid.loc[at, "mean"] = 40 * (4.158883 + 14.411541 / 4.0)
    rec = check(t, TH, [])
    assert rec["statistic"] == pytest.approx(40.0, rel=1e-6)


def test_linear_regret_fails_and_so_does_the_control():
    def linear(K, g, e, T):
        return T * g * (1 - 1 / K) / hu_shape(K, g, e, T)

    assert check(tables(linear), TH, [])["verdict"] == "FAIL"
    rec = check(tables(linear, "rps_uniform_mix"), TH, [], algorithm="rps_uniform_mix")
    assert rec["verdict"] == "FAIL"
    axes = {c["axis"]: c["verdict"] for c in rec["cells"]}
    assert axes["T"] == "FAIL"


def test_a_log_t_privacy_term_is_within_the_bound():
    # regret log K/gap + log K log T/eps itself (Hu et al.'s shape): ratio 1, PASS
    assert check(tables(lambda K, g, e, T: 1.0), TH, [])["verdict"] == "PASS"


def test_the_separation_experiment_is_read_too():
    rec = check(tables(lambda K, g, e, T: 3.0, experiment="separation"), TH, [])
    assert rec["verdict"] == "PASS" and rec["statistic"] == pytest.approx(3.0)


def test_without_rnm_ftnl_cells_it_is_inconclusive():
    rec = check(tables(lambda K, g, e, T: 3.0, algorithm="rps"), TH, [])
    assert rec["verdict"] == "INCONCLUSIVE" and rec["statistic"] is None
