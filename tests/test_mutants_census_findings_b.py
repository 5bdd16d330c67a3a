"""Guards found by the census of ``privdtol.analysis``'s mutants (issue 24), findings page,
second share: :func:`~privdtol.analysis.findings.competitors` (the rate experiments only, each
distinct standard-instance cell once, the disclosure that rnm_ftnl and wu_wang are one law),
:func:`~privdtol.analysis.findings.dependent_rate` (which cells make the p and q series of each
dependent loss model, the sentence and the series records) and
:func:`~privdtol.analysis.findings.findings` (the title of each record), on small fabricated
tables whose numbers are worked out by hand in the docstrings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_mutants_findings import _table

from privdtol.analysis import findings
from privdtol.analysis.registry import FINDINGS


def _cells(tag, experiment, cells, horizon=1023, **kwargs):
    """:func:`_table` with cell ids prefixed by ``tag`` (tables of one experiment built apart
    and concatenated keep distinct cells)."""
    df = _table(experiment, cells, horizon=horizon, **kwargs)
    return df.assign(cell_id=tag + df["cell_id"])


# ----------------------------------------------------------------------------- competitors

NO_COMMON = {"available": False, "text": "No rps and competitor cells in common."}


def test_competitors_read_the_rate_experiments_only():
    """No table, or only the ablations experiment (which holds rps and a competitor cell, not
    a rate experiment): no record."""
    ablations = _table("ablations", [("rps", 2, 0.25, 1.0, 10.0), ("rnm_ftnl", 2, 0.25, 1.0, 20.0)])
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
    gap = _table(
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
    grid = _table(
        "grid",
        [
            ("rps", 2, 0.25, 1.0, 10.0),
            ("rps", 2, 0.25, 0.25, 12.0),
            ("rnm_ftnl", 2, 0.25, 1.0, 20.0),
            ("wu_wang", 2, 0.25, 0.25, 12.0),
        ],
    )
    assert findings.competitors({"grid": grid})["identical"] == {"n": 0, "max_rel_diff": None}


# ----------------------------------------------------------------------------- dependent

LN8 = np.log(8.0)


def _dependent(tag, env, cells, **columns):
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
    df = pd.concat([_dependent(t, env, c, **cols) for t, env, c, cols in parts], ignore_index=True)
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
    grid = _table("grid", [("rps", 8, g, 8.0, LN8 / g + 1.0) for g in (0.5, 0.25, 0.125)])
    grid = grid.assign(env="correlated", rho=0.5, se=0.01)
    assert findings.dependent_rate({"grid": grid}) == {
        "available": False,
        "text": "No dependent experiment.",
    }


# ----------------------------------------------------------------------------- all findings


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
    grid = _table("grid", [("rps", 2, 0.25, 1.0, 10.0), ("wu_wang_gumbel", 2, 0.25, 1.0, 40.0)])
    found = findings.competitors({"grid": grid})
    assert found["identical"] == {}
    assert [(r["competitor"], r["regime"], r["median"]) for r in found["table"]] == [
        ("wu_wang_gumbel", "statistical", 0.25),
        ("best", "statistical", 0.25),
    ]
