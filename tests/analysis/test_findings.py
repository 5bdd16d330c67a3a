"""Tests of :mod:`privdtol.analysis.findings`: the measured statements that are not claims of
the paper (the theta band, rps's constants against Theorem 1, the ablations' costs, rps against
its competitors, the rate's exponents on dependent losses)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.synthetic_regret import CONTROLS, rate_tables, table
from support.tables import EXACT_LAW_GRID, exact_law_tables, final_rows_table

from privdtol.analysis import (
    findings,
)
from privdtol.analysis.registry import (
    CLAIMS,
    FINDINGS,
)


@pytest.fixture(scope="module")
def synthetic():
    return {alg: rate_tables(alg) for alg in ("rps", *CONTROLS)}


def test_dependent_rate_finding_measures_exponents():
    from privdtol.analysis.findings import dependent_rate

    gaps = [2.0**-k for k in range(1, 8)]
    cells = [(8, g, 8.0) for g in gaps] + [(8, 0.5, e) for e in (0.25, 0.125, 0.0625, 0.03125)]
    dep = table("rps", cells, 0.0, 0, "dependent", env="correlated").assign(rho=0.5)
    out = dependent_rate({"dependent": dep})
    assert out["available"]
    p = [s for s in out["series"] if s["exponent"] == "p"]
    q = [s for s in out["series"] if s["exponent"] == "q"]
    assert len(p) == len(q) == 1 and 0.8 < q[0]["estimate"] < 1.2


def test_findings_are_not_claims(synthetic):
    from privdtol.analysis.findings import findings

    out = findings(synthetic["rps"])
    assert set(out) == set(FINDINGS) and not set(FINDINGS) & set(CLAIMS)
    assert out["constants"]["a"] == pytest.approx(1.2, rel=0.3)
    assert out["theta_band"]["min"] <= out["theta_band"]["max"]


LN4 = np.log(4.0)


def test_theta_band_over_the_rps_grid_cells_by_hand():
    """Reg / (log K/min(gap, eps)) at K = 4: gap 1/4, eps 1 (lower 4 log 4, regret 8 log 4:
    2); gap 1/2, eps 1/8 (lower 8 log 4, regret 24 log 4: 3); gap 1/4, eps 1/4 (lower 4 log 4,
    regret 20 log 4: 5).  The ftl cell is not rps's."""
    grid = final_rows_table(
        "grid",
        [
            ("rps", 4, 0.25, 1.0, 8 * LN4),
            ("rps", 4, 0.5, 0.125, 24 * LN4),
            ("rps", 4, 0.25, 0.25, 20 * LN4),
            ("ftl", 4, 0.25, 1.0, 1.0),
        ],
    )
    assert findings.theta_band({"grid": grid}) == {
        "available": True,
        "n": 3,
        "min": 2.0,
        "median": 3.0,
        "max": 5.0,
        "text": "Reg / (log K/min(gap, eps)) ranges over [2, 5] over 3 rps grid cells (bounded "
        "on any finite grid: a finding, not a verdict).",
    }


def test_theta_band_without_rps_cells():
    grid = final_rows_table("grid", [("ftl", 4, 0.25, 1.0, 1.0)])
    assert findings.theta_band({"grid": grid}) == {
        "available": False,
        "text": "No rps cells in the grid.",
    }


def _dependent(cell_list, **columns):
    """Exact cells (se 1e-10 of the mean) of the dependent experiment on correlated losses."""
    df = final_rows_table("dependent", cell_list, env="correlated").assign(**columns)
    return df.assign(se=1e-10 * df["mean"])


def test_dependent_rate_names_each_series_by_its_rho():
    """Seven gaps at eps 8 (the p series) and four eps at gap 1/2 (the q series, eta = eps/2),
    all at rho = 0.5: both series are named by their rho."""
    gaps = [2.0**-k for k in range(1, 8)]
    grid = [(8, g, 8.0) for g in gaps] + [(8, 0.5, e) for e in (0.25, 0.125, 0.0625, 0.03125)]
    cell_list = [
        ("rps", K, g, e, np.log(K) / g + np.log(K) / min(e / 2, 1 / 8)) for K, g, e in grid
    ]
    out = findings.dependent_rate({"dependent": _dependent(cell_list, rho=0.5)})
    assert [(s["exponent"], s["n"], s["env"], s["parameter"]) for s in out["series"]] == [
        ("p", 7, "correlated", "rho=0.5"),
        ("q", 4, "correlated", "rho=0.5"),
    ]
    assert "(correlated, rho=0.5, 7 cells)" in out["text"]
    assert "(correlated, rho=0.5, 4 cells)" in out["text"]


def test_dependent_rate_without_a_series_of_three_cells():
    cell_list = [("rps", 8, 0.5, 8.0, 10.0), ("rps", 8, 0.25, 8.0, 20.0)]
    out = findings.dependent_rate({"dependent": _dependent(cell_list, rho=0.5)})
    assert out == {"available": False, "text": "No series of three dependent cells."}


def test_prefix_cost_over_infinite_ratios_only_counts_no_cell():
    """rps_full_prefix's regret 0 makes rps / rps_full_prefix infinite: no finite ratio."""
    ablation = [("rps", 4, 0.25, 1.0, 10.0), ("rps_full_prefix", 4, 0.25, 1.0, 0.0)]
    assert findings.prefix_cost({"ablations": final_rows_table("ablations", ablation)}) == {
        "available": True,
        "n": 0,
        "min": None,
        "median": None,
        "max": None,
        "where": "",
        "left_out": 0,
        "text": "Cost of the random prefix: rps / rps_full_prefix over 0 cells: median nan "
        "(range [nan, nan]).",
    }


def test_dependent_rate_of_a_series_without_rho_or_kappa_names_no_parameter():
    """The seven gaps at eps 8 of the series named by its rho above, with no rho (and no
    kappa): the series has no parameter (not "kappa=nan")."""
    gaps = [2.0**-k for k in range(1, 8)]
    cell_list = [("rps", 8, g, 8.0, np.log(8) / g + np.log(8) / 0.125) for g in gaps]
    out = findings.dependent_rate({"dependent": _dependent(cell_list)})
    assert [(s["exponent"], s["n"], s["env"], s["parameter"]) for s in out["series"]] == [
        ("p", 7, "correlated", "")
    ]
    assert "(correlated, , 7 cells)" in out["text"]


#: rps and rps_full_prefix at K = 4, gap 1/4: ratios 10/40 = 0.25 and 20/16 = 1.25
PREFIX = [
    ("rps", 4, 0.25, 0.125, 10.0),
    ("rps", 4, 0.25, 1.0, 20.0),
    ("rps_full_prefix", 4, 0.25, 0.125, 40.0),
    ("rps_full_prefix", 4, 0.25, 1.0, 16.0),
]


def test_ablation_costs_read_the_ablations_experiment_only():
    """The same rps and ablated cells in the grid experiment are not the ablation's: without
    an ablations experiment neither cost is available, and the record says why."""
    tables = {"grid": final_rows_table("grid", PREFIX)}
    expected = {"available": False, "text": "No ablations experiment."}
    assert findings.prefix_cost(tables) == expected
    assert findings.prefix_cost({}) == expected


def test_prefix_cost_without_a_common_cell():
    """rps at eps 1/8 and rps_full_prefix at eps 1 only: no cell has both, so no ratio."""
    ablation = [PREFIX[0], PREFIX[3]]
    assert findings.prefix_cost({"ablations": final_rows_table("ablations", ablation)}) == {
        "available": False,
        "text": "No common rps and rps_full_prefix cells.",
    }


#: rps against rps_uncapped at K = 4, gap 1/4: eps 1/4 (eps/2 = 1/8 exactly, the cap does not
#: bind; ratio 1), eps 0.3 (binds; 12/8 = 1.5) and eps 1 (binds; 20/10 = 2)
CAP = [
    ("rps", 4, 0.25, 0.25, 10.0),
    ("rps", 4, 0.25, 0.3, 12.0),
    ("rps", 4, 0.25, 1.0, 20.0),
    ("rps_uncapped", 4, 0.25, 0.25, 10.0),
    ("rps_uncapped", 4, 0.25, 0.3, 8.0),
    ("rps_uncapped", 4, 0.25, 1.0, 10.0),
]


def test_cap_cost_binds_above_eps_one_quarter_and_not_at_it():
    """The cap eta <= 1/8 binds where eps/2 > 1/8: at eps 0.3 (just above 1/4) and 1, not at
    eps = 1/4 itself (eta = 1/8 for both algorithms).  Two cells, ratios 1.5 and 2 (median
    1.75), the eps = 1/4 cell counted apart."""
    assert findings.cap_cost({"ablations": final_rows_table("ablations", CAP)}) == {
        "available": True,
        "n": 2,
        "min": 1.5,
        "median": 1.75,
        "max": 2.0,
        "where": "where the cap binds (eps > 1/4)",
        "left_out": 1,
        "text": "Cost of the eta cap: rps / rps_uncapped over 2 cells where the cap binds "
        "(eps > 1/4): median 1.75 (range [1.5, 2]); the 1 other cells, where it does not "
        "matter, are left out.",
    }


def test_cap_cost_where_the_cap_binds_in_no_common_cell():
    """Only the eps = 1/4 cell (eps/2 = 1/8: the cap does not bind) is common."""
    ablation = [CAP[0], CAP[3], CAP[2]]  # rps at eps 1 has no rps_uncapped cell
    assert findings.cap_cost({"ablations": final_rows_table("ablations", ablation)}) == {
        "available": False,
        "text": "No common cell where the cap binds (eps > 1/4).",
    }


def test_ablation_mask_of_zeros_and_ones_is_a_mask_not_positions():
    """``where`` is a mask of the common cells: given as 0/1 values (1 at eps 0.3 and 1), it
    selects the same two cells as the booleans would, the eps = 1/4 cell counted apart (not
    the 0/1 read as positions, nor ~1 = -2 counted as left out)."""
    found = findings._ablation(
        {"ablations": final_rows_table("ablations", CAP)},
        "rps_uncapped",
        "Cost",
        where=lambda idx: (idx.get_level_values("epsilon") > 0.25).astype(int),
        where_text="somewhere",
    )
    assert (found["n"], found["min"], found["max"], found["left_out"]) == (2, 1.5, 2.0, 1)


def test_constants_need_four_rps_cells_of_the_grid_experiment():
    """Three of the four cells of the exact law in the grid, the fourth in the ablations
    experiment: the grid has fewer than four rps cells, so no fit (with all four there is
    one)."""
    tables = {
        "grid": final_rows_table("grid", EXACT_LAW_GRID[:3]),
        "ablations": final_rows_table("ablations", EXACT_LAW_GRID[3:]),
    }
    assert findings.constants(tables) == {
        "available": False,
        "text": "Fewer than four rps cells in the grid.",
    }
    both = pd.concat([tables["grid"], tables["ablations"]], ignore_index=True)
    assert findings.constants({"grid": both})["n"] == 4


@pytest.mark.parametrize(
    "other",
    [
        {"gap": final_rows_table("gap", [("rps", 4, 0.5, 1.0, 200 * LN4)])},
        {
            "grid": final_rows_table(
                "grid", [("rps", 4, 0.25, 1.0, 400 * LN4)], instance="spread"
            ).assign(cell_id="o")
        },
    ],
    ids=["another-experiment", "another-instance"],
)
def test_theta_band_reads_the_standard_cells_of_the_grid_only(other):
    """Reg / (log 4/min(1/4, 1)) of the standard rps grid cell: 8 log 4/(4 log 4) = 2; an rps
    cell of another experiment (the gap one, ratio 100) or the same cell on another instance
    (ratio 100) is not the grid's standard cell."""
    standard = final_rows_table("grid", [("rps", 4, 0.25, 1.0, 8 * LN4)])
    tables = {"grid": standard}
    for experiment, table_ in other.items():
        tables[experiment] = pd.concat([tables.get(experiment), table_])
    found = findings.theta_band(tables)
    assert (found["n"], found["min"], found["max"]) == (1, 2.0, 2.0)


def test_theta_band_over_a_mean_column_of_objects():
    """A grid table concatenated with one whose means are all missing has a mean column of
    Python objects: the missing cell is left out and the others are read as numbers (ratios
    2 and 8 log 4/(8 log 4) = 1 at gap 1/2, eps 1/8)."""
    known = final_rows_table(
        "grid", [("rps", 4, 0.25, 1.0, 8 * LN4), ("rps", 4, 0.5, 0.125, 8 * LN4)]
    )
    missing = final_rows_table("grid", [("rps", 4, 0.5, 1.0, 1.0)]).assign(cell_id="m", mean=None)
    grid = pd.concat([known, missing], ignore_index=True)
    assert grid["mean"].dtype == object
    found = findings.theta_band({"grid": grid})
    assert (found["n"], found["min"], found["median"], found["max"]) == (2, 1.0, 1.5, 2.0)


def _cells(tag, experiment, cells, horizon=1023, **kwargs):
    """:func:`~support.tables.final_rows_table` with cell ids prefixed by ``tag`` (tables of
    one experiment built apart and concatenated keep distinct cells)."""
    df = final_rows_table(experiment, cells, horizon=horizon, **kwargs)
    return df.assign(cell_id=tag + df["cell_id"])


NO_COMMON = {"available": False, "text": "No rps and competitor cells in common."}


def test_competitors_read_the_rate_experiments_only():
    """No table, or only the ablations experiment (which holds rps and a competitor cell, not
    a rate experiment): no record."""
    ablations = final_rows_table(
        "ablations", [("rps", 2, 0.25, 1.0, 10.0), ("rnm_ftnl", 2, 0.25, 1.0, 20.0)]
    )
    expected = {"available": False, "text": "No rate experiments."}
    assert findings.competitors({}) == expected
    assert findings.competitors({"ablations": ablations}) == expected


def test_competitors_without_a_common_standard_cell():
    """rps at one standard cell and rnm_ftnl at the same (K, gap, eps) on the staircase
    instance only (no competitor cell of the standard instance), or rnm_ftnl at another
    standard cell (no cell in common): no record."""
    rps = _cells("s", "grid", [("rps", 2, 0.25, 1.0, 10.0)])
    staircase = _cells("t", "grid", [("rnm_ftnl", 2, 0.25, 1.0, 20.0)], instance="staircase")
    elsewhere = _cells("u", "grid", [("rnm_ftnl", 2, 0.25, 0.25, 20.0)])
    for other in (staircase, elsewhere):
        grid = pd.concat([rps, other], ignore_index=True)
        assert findings.competitors({"grid": grid}) == NO_COMMON


#: K = 2; cells (gap, eps): (1/4, 1) statistical, (1/4, 1/4) balanced, (1/2, 1/4) privacy;
#: the competitors listed before rps
RACE = [
    (alg, 2, gap, eps, mean)
    for alg, means in (
        ("rnm_ftnl", (20.0, 12.0, 10.0)),
        ("wu_wang", (25.0, 12.0, 8.0)),
        ("rps", (10.0, 12.0, 16.0)),
    )
    for (gap, eps), mean in zip(((0.25, 1.0), (0.25, 0.25), (0.5, 0.25)), means, strict=True)
]


def _race_tables():
    """:data:`RACE` in the grid; the statistical cell again in the gap experiment at a longer
    horizon (rps 40, rnm_ftnl 5: a repeated cell, the grid's is kept); rps 1 and both Laplace
    competitors 4 at (1/2, 2) on the staircase instance (not a standard cell)."""
    grid = pd.concat(
        [
            _cells("s", "grid", RACE),
            _cells(
                "t",
                "grid",
                [
                    (alg, 2, 0.5, 2.0, m)
                    for alg, m in (("rnm_ftnl", 4.0), ("wu_wang", 4.0), ("rps", 1.0))
                ],
                instance="staircase",
            ),
        ],
        ignore_index=True,
    )
    gap = final_rows_table(
        "gap", [("rnm_ftnl", 2, 0.25, 1.0, 5.0), ("rps", 2, 0.25, 1.0, 40.0)], horizon=4095
    )
    return {"grid": grid, "gap": gap}


def test_competitors_count_each_distinct_standard_cell_once():
    """best = (20, 12, 8) and rps / best = (0.5, 1, 2) (statistical, balanced, privacy);
    rps / rnm_ftnl = (0.5, 1, 1.6), rps / wu_wang = (0.4, 1, 2).  The gap experiment's repeat
    of the statistical cell and the staircase cells change nothing.  Without wu_wang_gumbel
    the best of the two others still gets its rows.  rnm_ftnl and wu_wang differ by
    |20 - 25|/20 = 0.25, 0 and |10 - 8|/10 = 0.2: the largest relative difference is 0.25
    over the 3 common cells."""

    def row(regime, competitor, ratio, better):
        spread = {"n": 1, "min": ratio, "median": ratio, "max": ratio}
        return {"regime": regime, "competitor": competitor, **spread, "rps_better": better}

    one = {"n": 1, "min": 1.0, "median": 1.0, "max": 1.0}
    assert findings.competitors(_race_tables()) == {
        "available": True,
        "regimes": {
            "balanced": {**one, "rps_best": 1},
            "privacy": {"n": 1, "min": 2.0, "median": 2.0, "max": 2.0, "rps_best": 0},
            "statistical": {"n": 1, "min": 0.5, "median": 0.5, "max": 0.5, "rps_best": 1},
        },
        "regime_definitions": findings.REGIMES,
        "table": [
            row("balanced", "rnm_ftnl", 1.0, 0),
            row("privacy", "rnm_ftnl", 1.6, 0),
            row("statistical", "rnm_ftnl", 0.5, 1),
            row("balanced", "wu_wang", 1.0, 0),
            row("privacy", "wu_wang", 2.0, 0),
            row("statistical", "wu_wang", 0.4, 1),
            row("balanced", "best", 1.0, 0),
            row("privacy", "best", 2.0, 0),
            row("statistical", "best", 0.5, 1),
        ],
        "identical": {"n": 3, "max_rel_diff": 0.25},
        "text": "balanced: rps / best competitor median 1 over 1 cells (rps best in 1); "
        "privacy: rps / best competitor median 2 over 1 cells (rps best in 0); "
        "statistical: rps / best competitor median 0.5 over 1 cells (rps best in 1).",
    }


def test_competitors_without_a_common_laplace_cell_measure_no_difference():
    """rnm_ftnl at (1/4, 1) and wu_wang at (1/4, 1/4) only: no cell where both ran, so no
    largest difference (None, not NaN)."""
    grid = final_rows_table(
        "grid",
        [
            ("rps", 2, 0.25, 1.0, 10.0),
            ("rps", 2, 0.25, 0.25, 12.0),
            ("rnm_ftnl", 2, 0.25, 1.0, 20.0),
            ("wu_wang", 2, 0.25, 0.25, 12.0),
        ],
    )
    assert findings.competitors({"grid": grid})["identical"] == {"n": 0, "max_rel_diff": None}


LN8 = np.log(8.0)


def _dependent_cells(tag, env, cells, **columns):
    """Dependent-experiment cells at K = 8 from ``(algorithm, gap, eps, rest, offset,
    rel_se)``: mean = rest + offset, se = rel_se * rest."""
    df = _cells(tag, "dependent", [(a, 8, g, e, r + o) for a, g, e, r, o, _ in cells], env=env)
    df["se"] = np.repeat([s * r for _, _, _, r, _, s in cells], 2)  # both checkpoints
    return df.assign(**columns)


def _p(gaps, eps, offset, rel_se, algorithm="rps", scale=1.0):
    """A p series: mean = scale log 8/gap + offset at one eps."""
    return [(algorithm, g, eps, scale * LN8 / g, offset, rel_se) for g in gaps]


def _q(gap, epsilons, offset, rel_se):
    """A q series: mean = log 8/eps + offset at one gap."""
    return [("rps", gap, e, LN8 / e, offset, rel_se) for e in epsilons]


def _dependent_tables():
    """correlated (rho 0.5): p at eps 8 (its largest), gaps 1/2, 1/4, 1/8; q at gap 1/2 (its
    largest), eps 1/4 (eta = eps/2 = 1/8, the edge), 1/16, 1/64; cells at gap 1/2 and eps 3/8
    and 1/2 belong to neither (eta is capped there).  correlated (rho 0.9): three cells at eps 8
    but two gaps (1/4 twice, at mu_best 3/8 and 1/4): no slope.
    beta (kappa 2): p at eps 1 (its largest), gaps 1/4, 1/8, 1/16; q at gap 1/4 (its largest),
    eps 1/4, 1/8, 1/16.  Bernoulli and blocked (C5's control) rps series and an rnm_ftnl
    series on correlated losses are not rps's dependent cells."""
    parts = [
        (
            "c",
            "correlated",
            _p([0.5, 0.25, 0.125], 8.0, 100.0, 0.01)
            + _q(0.5, [0.25, 1 / 16, 1 / 64], 50.0, 0.01)
            + [("rps", 0.5, e, 1.0, 1.0, 0.01) for e in (0.375, 0.5)],
            {"rho": 0.5, "kappa": None},
        ),
        ("d", "correlated", _p([0.5, 0.25, 0.25], 8.0, 100.0, 0.01), {"rho": 0.9, "kappa": None}),
        (
            "b",
            "beta",
            _p([0.25, 0.125, 1 / 16], 1.0, 30.0, 0.02)
            + _q(0.25, [0.25, 0.125, 1 / 16], 20.0, 0.04),
            {"rho": None, "kappa": 2.0},
        ),
        ("n", "bernoulli", _p([0.5, 0.25, 0.125], 8.0, 1.0, 0.01), {"rho": None, "kappa": None}),
        ("k", "blocked", _p([0.5, 0.25, 0.125], 8.0, 1.0, 0.01), {"rho": None, "kappa": None}),
        (
            "r",
            "correlated",
            _p([0.5, 0.25, 0.125], 8.0, 1.0, 0.01, algorithm="rnm_ftnl", scale=3.0),
            {"rho": 0.5, "kappa": None},
        ),
    ]
    df = pd.concat(
        [_dependent_cells(t, env, c, **cols) for t, env, c, cols in parts],
        ignore_index=True,
    )
    df.loc[df["cell_id"] == "ddependent-2", "mu_best"] = 0.25  # rho 0.9's second gap-1/4 cell
    return {"dependent": df}


def test_dependent_rate_series_and_sentence_by_hand():
    """Each series is rest + offset with three cells (too few for the offset fit: the linear
    form's other terms, exactly the offset, are subtracted), so the exponent is 1.  Its
    relative se s is constant, so the slope's se is s / sqrt(Sxx) with Sxx the spread of
    log x: 2 (log 2)^2 for x halving twice (p, and beta's q), 2 (2 log 2)^2 for x quartering
    (correlated's q); the interval is 1 +- t s / sqrt(Sxx) with t = tan(0.475 pi) = 12.7062
    (95%, 1 degree of freedom: the Cauchy law): s = 0.01 gives +- 0.129620 and +- 0.0648105,
    s = 0.02 +- 0.259242, s = 0.04 +- 0.518484.  Series are sorted by (K, eps) for p and
    (K, gap) for q: beta first.  The tolerance covers the rounding of subtracting the fitted
    offset (~1e-13)."""
    out = findings.dependent_rate(_dependent_tables())
    t = np.tan(0.475 * np.pi)
    expected = [  # exponent, s, log2-steps of x, env, parameter
        ("p", 0.02, 1, "beta", "kappa=2"),
        ("p", 0.01, 1, "correlated", "rho=0.5"),
        ("q", 0.04, 1, "beta", "kappa=2"),
        ("q", 0.01, 2, "correlated", "rho=0.5"),
    ]
    assert out["available"] is True
    keys = ["ci_high", "ci_low", "env", "estimate", "exponent", "n", "parameter"]
    assert [sorted(s) for s in out["series"]] == [keys] * 4
    got = [
        (s["exponent"], s["n"], s["env"], s["parameter"], s["estimate"], s["ci_low"], s["ci_high"])
        for s in out["series"]
    ]
    half = [t * s / (np.sqrt(2) * k * np.log(2)) for _, s, k, _, _ in expected]
    assert got == [
        (w, 3, env, par, *(pytest.approx(v, abs=1e-9) for v in (1.0, 1 - h, 1 + h)))
        for (w, _, _, env, par), h in zip(expected, half, strict=True)
    ]
    assert out["text"] == (
        "Exponents of rps on dependent losses (95% intervals): "
        "p = 1 [0.741, 1.26] (beta, kappa=2, 3 cells); "
        "p = 1 [0.87, 1.13] (correlated, rho=0.5, 3 cells); "
        "q = 1 [0.482, 1.52] (beta, kappa=2, 3 cells); "
        "q = 1 [0.935, 1.06] (correlated, rho=0.5, 3 cells)."
    )


def test_dependent_rate_reads_the_dependent_experiment_only():
    """The grid's rps cells (a full p series at eps 8, on correlated losses) are not the
    dependent experiment's."""
    grid = final_rows_table("grid", [("rps", 8, g, 8.0, LN8 / g + 1.0) for g in (0.5, 0.25, 0.125)])
    grid = grid.assign(env="correlated", rho=0.5, se=0.01)
    assert findings.dependent_rate({"grid": grid}) == {
        "available": False,
        "text": "No dependent experiment.",
    }


def test_every_finding_record_carries_its_title():
    """Without tables every finding says it has no data, under the registry's title."""
    out = findings.findings({})
    assert {k: v["title"] for k, v in out.items()} == {k: f.title for k, f in FINDINGS.items()}
    assert out["competitors"] == {
        "title": "rps against the best private competitor, per regime",
        "available": False,
        "text": "No rate experiments.",
    }
    assert out["dependent_rate"] == {
        "title": "The rate's exponents on dependent losses (not a claim of the paper)",
        "available": False,
        "text": "No dependent experiment.",
    }


def test_competitors_with_wu_wang_gumbel_alone_disclose_no_identity():
    """Only wu_wang_gumbel ran beside rps: nothing to say about rnm_ftnl and wu_wang (an empty
    record), and the rows are wu_wang_gumbel's and the best's (the same: rps / 40 = 0.25)."""
    grid = final_rows_table(
        "grid", [("rps", 2, 0.25, 1.0, 10.0), ("wu_wang_gumbel", 2, 0.25, 1.0, 40.0)]
    )
    found = findings.competitors({"grid": grid})
    assert found["identical"] == {}
    assert [(r["competitor"], r["regime"], r["median"]) for r in found["table"]] == [
        ("wu_wang_gumbel", "statistical", 0.25),
        ("best", "statistical", 0.25),
    ]


#: rps against its two ablations at K = 4, gap = 1/4 and four epsilons; the cap binds where
#: eps/2 > 1/8, i.e. at eps = 0.5, 1 and 2 (not at 0.125)
ABLATION = [
    ("rps", 4, 0.25, 0.125, 10.0),
    ("rps", 4, 0.25, 0.5, 12.0),
    ("rps", 4, 0.25, 1.0, 20.0),
    ("rps", 4, 0.25, 2.0, 30.0),
    ("rps_uncapped", 4, 0.25, 0.125, 10.0),  # ratio 1
    ("rps_uncapped", 4, 0.25, 0.5, 8.0),  # 1.5
    ("rps_uncapped", 4, 0.25, 1.0, 10.0),  # 2
    ("rps_uncapped", 4, 0.25, 2.0, 12.0),  # 2.5
    ("rps_full_prefix", 4, 0.25, 0.125, 40.0),  # 0.25
    ("rps_full_prefix", 4, 0.25, 0.5, 16.0),  # 0.75
    ("rps_full_prefix", 4, 0.25, 1.0, 16.0),  # 1.25
    ("rps_full_prefix", 4, 0.25, 2.0, 15.0),  # 2
]


def test_cap_cost_counts_the_cells_where_the_cap_does_not_bind_apart():
    tables = {"ablations": final_rows_table("ablations", ABLATION)}
    assert findings.cap_cost(tables) == {
        "available": True,
        "n": 3,
        "min": 1.5,
        "median": 2.0,
        "max": 2.5,
        "where": "where the cap binds (eps > 1/4)",
        "left_out": 1,
        "text": "Cost of the eta cap: rps / rps_uncapped over 3 cells where the cap binds "
        "(eps > 1/4): median 2 (range [1.5, 2.5]); the 1 other cells, where it does not "
        "matter, are left out.",
    }


@pytest.mark.parametrize("env", ["bernoulli", "beta"])
def test_prefix_cost_is_the_ratio_over_every_common_cell(env):
    """Ratios 0.25, 0.75, 1.25, 2: median (0.75 + 1.25)/2 = 1; the ablations experiment of a
    config may use another loss model (``env: beta``): its cells are still the ablation's."""
    tables = {"ablations": final_rows_table("ablations", ABLATION, env=env)}
    assert findings.prefix_cost(tables) == {
        "available": True,
        "n": 4,
        "min": 0.25,
        "median": 1.0,
        "max": 2.0,
        "where": "",
        "left_out": 0,
        "text": "Cost of the random prefix: rps / rps_full_prefix over 4 cells: median 1 "
        "(range [0.25, 2]).",
    }


#: K = 2; cells (gap, eps): (1/4, 1) and (1/2, 2) statistical, (1/4, 1/4) balanced, (1/2, 1/4)
#: privacy.  rnm_ftnl and wu_wang are equal (the same law on {0,1} losses).
COMPETITION = [
    (alg, 2, gap, eps, mean)
    for alg, means in (
        ("rps", (10.0, 6.0, 12.0, 20.0)),
        ("rnm_ftnl", (20.0, 4.0, 12.0, 10.0)),
        ("wu_wang", (20.0, 4.0, 12.0, 10.0)),
        ("wu_wang_gumbel", (40.0, 3.0, 24.0, 40.0)),
    )
    for (gap, eps), mean in zip(
        ((0.25, 1.0), (0.5, 2.0), (0.25, 0.25), (0.5, 0.25)), means, strict=True
    )
]


def test_competitors_per_regime_and_per_competitor_by_hand():
    """best = (20, 3, 12, 10), rps / best = (0.5, 2, 1, 2); per competitor rps / rnm_ftnl =
    rps / wu_wang = (0.5, 1.5, 1, 2), rps / wu_wang_gumbel = (0.25, 2, 0.5, 0.5).  "rps best"
    counts ratios <= 1, "rps better" ratios < 1.  A Beta-loss rps cell, ftl and the earlier
    checkpoints are left out."""
    grid = final_rows_table("grid", [*COMPETITION, ("ftl", 2, 0.25, None, 1.0)])
    beta = final_rows_table("grid", [("rps", 2, 0.25, 1.0, 0.001)], env="beta").assign(cell_id="b")
    found = findings.competitors({"grid": pd.concat([beta, grid], ignore_index=True)})

    def spread(n, lo, med, hi):
        return {"n": n, "min": lo, "median": med, "max": hi}

    assert found["regimes"] == {
        "balanced": {**spread(1, 1.0, 1.0, 1.0), "rps_best": 1},
        "privacy": {**spread(1, 2.0, 2.0, 2.0), "rps_best": 0},
        "statistical": {**spread(2, 0.5, 1.25, 2.0), "rps_best": 1},
    }
    laplace = [  # rnm_ftnl and wu_wang
        ("balanced", spread(1, 1.0, 1.0, 1.0), 0),
        ("privacy", spread(1, 2.0, 2.0, 2.0), 0),
        ("statistical", spread(2, 0.5, 1.0, 1.5), 1),
    ]
    expected = [
        *[(r, alg, s, k) for alg in ("rnm_ftnl", "wu_wang") for r, s, k in laplace],
        ("balanced", "wu_wang_gumbel", spread(1, 0.5, 0.5, 0.5), 1),
        ("privacy", "wu_wang_gumbel", spread(1, 0.5, 0.5, 0.5), 1),
        ("statistical", "wu_wang_gumbel", spread(2, 0.25, 1.125, 2.0), 1),
        ("balanced", "best", spread(1, 1.0, 1.0, 1.0), 0),
        ("privacy", "best", spread(1, 2.0, 2.0, 2.0), 0),
        ("statistical", "best", spread(2, 0.5, 1.25, 2.0), 1),
    ]
    assert found["table"] == [
        {"regime": r, "competitor": alg, **s, "rps_better": k} for r, alg, s, k in expected
    ]
    assert found["identical"] == {"n": 4, "max_rel_diff": 0.0}
    assert found["regime_definitions"] == findings.REGIMES
    assert found["available"] is True
    assert found["text"] == (
        "balanced: rps / best competitor median 1 over 1 cells (rps best in 1); "
        "privacy: rps / best competitor median 2 over 1 cells (rps best in 0); "
        "statistical: rps / best competitor median 1.25 over 2 cells (rps best in 1)."
    )


def test_constants_recover_an_exact_law_and_compare_it_with_theorem_1():
    found = findings.constants(exact_law_tables())
    fit = {k: found.pop(k) for k in ("a", "b", "c")}
    assert fit == pytest.approx({"a": 2.0, "b": 4.0, "c": 1.0}, rel=1e-9)
    assert found == {
        "available": True,
        "paper_a": 800.0,
        "paper_b": 16.0,
        "n": 4,
        "text": "Over 4 rps grid cells regret ~ 2 log K/gap + 4 log K/eta + 1: the constants "
        "are 400 and 4 times below Theorem 1's 800 and 16 (which the paper does not "
        "optimize).",
    }
