"""Tests of :mod:`privdtol.analysis.findings.competitors`: rps against its private competitors on
the rate experiments' standard cells, per regime and per competitor."""

from __future__ import annotations

import pandas as pd
from support.tables import final_rows_table

from privdtol.analysis import (
    findings,
)


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
    assert findings.competitors.competitors({}) == expected
    assert findings.competitors.competitors({"ablations": ablations}) == expected


def test_competitors_without_a_common_standard_cell():
    """rps at one standard cell and rnm_ftnl at the same (K, gap, eps) on the staircase
    instance only (no competitor cell of the standard instance), or rnm_ftnl at another
    standard cell (no cell in common): no record."""
    rps = _cells("s", "grid", [("rps", 2, 0.25, 1.0, 10.0)])
    staircase = _cells("t", "grid", [("rnm_ftnl", 2, 0.25, 1.0, 20.0)], instance="staircase")
    elsewhere = _cells("u", "grid", [("rnm_ftnl", 2, 0.25, 0.25, 20.0)])
    for other in (staircase, elsewhere):
        grid = pd.concat([rps, other], ignore_index=True)
        assert findings.competitors.competitors({"grid": grid}) == NO_COMMON


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
    assert findings.competitors.competitors(_race_tables()) == {
        "available": True,
        "excluded": {},
        "regimes": {
            "balanced": {**one, "rps_best": 1},
            "privacy": {"n": 1, "min": 2.0, "median": 2.0, "max": 2.0, "rps_best": 0},
            "statistical": {"n": 1, "min": 0.5, "median": 0.5, "max": 0.5, "rps_best": 1},
        },
        "regime_definitions": findings.competitors.REGIMES,
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
    assert findings.competitors.competitors({"grid": grid})["identical"] == {
        "n": 0,
        "max_rel_diff": None,
    }


def test_competitors_with_wu_wang_gumbel_alone_disclose_no_identity():
    """Only wu_wang_gumbel ran beside rps: nothing to say about rnm_ftnl and wu_wang (an empty
    record), and the rows are wu_wang_gumbel's and the best's (the same: rps / 40 = 0.25)."""
    grid = final_rows_table(
        "grid", [("rps", 2, 0.25, 1.0, 10.0), ("wu_wang_gumbel", 2, 0.25, 1.0, 40.0)]
    )
    found = findings.competitors.competitors({"grid": grid})
    assert found["identical"] == {}
    assert [(r["competitor"], r["regime"], r["median"]) for r in found["table"]] == [
        ("wu_wang_gumbel", "statistical", 0.25),
        ("best", "statistical", 0.25),
    ]


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
    found = findings.competitors.competitors({"grid": pd.concat([beta, grid], ignore_index=True)})

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
    assert found["regime_definitions"] == findings.competitors.REGIMES
    assert found["available"] is True
    assert found["text"] == (
        "balanced: rps / best competitor median 1 over 1 cells (rps best in 1); "
        "privacy: rps / best competitor median 2 over 1 cells (rps best in 0); "
        "statistical: rps / best competitor median 1.25 over 2 cells (rps best in 1)."
    )


def test_a_competitor_that_fails_its_privacy_audit_is_not_ranked():
    """A plugin violating its declared privacy was ranked as rps's "best private competitor
    (19.8x LB_T)": a competitor with a FAIL cell in the privacy audit is left out and named."""
    import numpy as np

    grid = final_rows_table("grid", COMPETITION)
    audit = pd.DataFrame(
        [
            {"role": "private", "algorithm": alg, "epsilon": 1.0, "audit": "exact_selection",
             "loss": loss, "bound_selection": 0.25, "loss_lower": np.nan, "loss_upper": np.nan,
             "violation": loss > 1.0, "K": 2, "block": 3, "witness": "w"}
            for alg, loss in (("rps", 0.24), ("wu_wang_gumbel", 6.0))
        ]
    )  # fmt: skip
    found = findings.competitors.competitors({"grid": grid, "privacy": audit})
    assert found["excluded"] == {"wu_wang_gumbel": "fails its own privacy audit (1 cells, C1)"}
    assert {r["competitor"] for r in found["table"]} == {"rnm_ftnl", "wu_wang", "best"}
    assert found["text"].endswith(
        "; not ranked: wu_wang_gumbel (fails its own privacy audit (1 cells, C1))."
    )
    # without the audit's table nothing is excluded (a config without the privacy experiment)
    assert findings.competitors.competitors({"grid": grid})["excluded"] == {}


def test_the_competitors_that_are_one_law_on_binary_losses_follow_from_their_declarations():
    """rnm_ftnl and wu_wang: Laplace report-noisy-min of scale 2/eps on the full block, one
    reading resampled losses; wu_wang_gumbel's Gumbel law is another family."""
    from privdtol.analysis.findings.competitors import same_on_binary_losses

    assert same_on_binary_losses() == [("rnm_ftnl", "wu_wang")]
