"""Tests of :mod:`privdtol.analysis.findings.dependent`: the rate's exponents on dependent losses,
one series per correlation parameter."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.synthetic_regret import table
from support.tables import final_rows_table

from privdtol.analysis import (
    findings,
)


def test_dependent_rate_finding_measures_exponents():
    from privdtol.analysis.findings.dependent import dependent_rate

    gaps = [2.0**-k for k in range(1, 8)]
    cells = [(8, g, 8.0) for g in gaps] + [(8, 0.5, e) for e in (0.25, 0.125, 0.0625, 0.03125)]
    dep = table("rps", cells, 0.0, 0, "dependent", env="correlated").assign(rho=0.5)
    out = dependent_rate({"dependent": dep})
    assert out["available"]
    p = [s for s in out["series"] if s["exponent"] == "p"]
    q = [s for s in out["series"] if s["exponent"] == "q"]
    assert len(p) == len(q) == 1 and 0.8 < q[0]["estimate"] < 1.2


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
    out = findings.dependent.dependent_rate({"dependent": _dependent(cell_list, rho=0.5)})
    assert [(s["exponent"], s["n"], s["env"], s["parameter"]) for s in out["series"]] == [
        ("p", 7, "correlated", "rho=0.5"),
        ("q", 4, "correlated", "rho=0.5"),
    ]
    assert "(correlated, rho=0.5, 7 cells)" in out["text"]
    assert "(correlated, rho=0.5, 4 cells)" in out["text"]


def test_dependent_rate_without_a_series_of_three_cells():
    cell_list = [("rps", 8, 0.5, 8.0, 10.0), ("rps", 8, 0.25, 8.0, 20.0)]
    out = findings.dependent.dependent_rate({"dependent": _dependent(cell_list, rho=0.5)})
    assert out == {"available": False, "text": "No series of three dependent cells."}


def test_dependent_rate_of_a_series_without_rho_or_kappa_names_no_parameter():
    """The seven gaps at eps 8 of the series named by its rho above, with no rho (and no
    kappa): the series has no parameter (not "kappa=nan")."""
    gaps = [2.0**-k for k in range(1, 8)]
    cell_list = [("rps", 8, g, 8.0, np.log(8) / g + np.log(8) / 0.125) for g in gaps]
    out = findings.dependent.dependent_rate({"dependent": _dependent(cell_list)})
    assert [(s["exponent"], s["n"], s["env"], s["parameter"]) for s in out["series"]] == [
        ("p", 7, "correlated", "")
    ]
    assert "(correlated, , 7 cells)" in out["text"]


def _cells(tag, experiment, cells, horizon=1023, **kwargs):
    """:func:`~support.tables.final_rows_table` with cell ids prefixed by ``tag`` (tables of
    one experiment built apart and concatenated keep distinct cells)."""
    df = final_rows_table(experiment, cells, horizon=horizon, **kwargs)
    return df.assign(cell_id=tag + df["cell_id"])


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
    out = findings.dependent.dependent_rate(_dependent_tables())
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
    assert findings.dependent.dependent_rate({"grid": grid}) == {
        "available": False,
        "text": "No dependent experiment.",
    }
