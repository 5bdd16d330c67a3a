"""The exact engine computes a law once per batch: cells with one law key get the numbers of
the last cell of that law (privdtol.engine.exact.regret_and_averager), and the planner puts such
cells next to each other.  What is checked: the key separates every difference that changes a
law and joins the pairs that are the same computation; a reused result is byte-identical to a
fresh one, proof terms included, in either order."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privdtol.engine import exact
from privdtol.engine.exact.spec import _Spec
from privdtol.engine.runner import exact_table_and_averager
from privdtol.environments import instance_means
from privdtol.pipeline import plan
from privdtol.pipeline.proof import cell_terms, horizon_regret

MEANS = instance_means(8, 1 / 8, None, "standard")
HORIZONS = [(1 << k) - 1 for k in range(1, 21)]


def key(algorithm, eps, env="bernoulli", means=MEANS):
    return _Spec(algorithm, means, eps, env).law_key()


def test_the_key_joins_the_same_law():
    # resampled Bernoulli losses have the law of the observed ones (Wu & Wang)
    assert key("wu_wang", 0.5) == key("rnm_ftnl", 0.5)
    # eta = min(eps/2, 1/8) (Section 4): 1/8 from eps = 1/4 on
    assert key("rps", 0.25) == key("rps", 8.0)
    # rps_uncapped: eta = eps/2, which is rps's below eps = 1/4
    assert key("rps_uncapped", 0.125) == key("rps", 0.125)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("wu_wang", 0.5, "deterministic"), ("rnm_ftnl", 0.5, "deterministic")),  # atoms
        (("rnm_ftnl", 0.5), ("rnm_ftnl", 0.25)),  # Laplace scale 2/eps
        (("rps", 0.125), ("rps", 0.0625)),  # eta = eps/2
        (("rps_uncapped", 8.0), ("rps", 8.0)),  # eta 4 against 1/8
        (("rps", 1.0), ("rps_full_prefix", 1.0)),  # prefix rule
        (("rps", 1.0), ("rps_short_prefix", 1.0)),  # prefix rule
        (("rps", 1.0), ("rps_eta_logk", 1.0)),  # eta / log K
        (("rps", 1.0), ("wu_wang_gumbel", 0.25)),  # eta 1/8 both, another prefix rule
    ],
)
def test_the_key_separates_different_laws(a, b):
    assert key(*a) != key(*b)


def test_the_key_separates_instances():
    other = instance_means(8, 1 / 16, None, "standard")
    assert key("rps", 1.0) != key("rps", 1.0, means=other)
    assert key("rps", 1.0) != key("rps", 1.0, means=instance_means(9, 1 / 8, None, "standard"))


def _fresh(algorithm, eps):
    exact._RECENT.clear()
    reg, err, _ = exact.regret_and_averager(algorithm, MEANS, eps, HORIZONS)
    return reg.tobytes(), err.tobytes()


@pytest.mark.parametrize(
    ("first", "second"),
    [(("rnm_ftnl", 0.5), ("wu_wang", 0.5)), (("rps", 8.0), ("rps", 0.5))],
)
def test_a_reused_result_is_the_fresh_one(first, second):
    want = _fresh(*second)
    exact._RECENT.clear()
    exact.regret_and_averager(first[0], MEANS, first[1], HORIZONS)
    assert len(exact._RECENT) == 1
    reg, err, _ = exact.regret_and_averager(second[0], MEANS, second[1], HORIZONS)
    assert len(exact._RECENT) == 1  # reused, not computed
    assert (reg.tobytes(), err.tobytes()) == want


def test_another_law_is_computed_not_reused():
    near = _fresh("rps", 0.0625)  # eta 1/32
    exact._RECENT.clear()
    exact.regret_and_averager("rps", MEANS, 1.0, HORIZONS)
    reg, err, _ = exact.regret_and_averager("rps", MEANS, 0.0625, HORIZONS)
    assert len(exact._RECENT) == 2
    assert (reg.tobytes(), err.tobytes()) == near
    assert reg[-1] != _fresh("rps", 1.0)[0]  # and the two laws' regrets differ


def _cell(algorithm, eps, gap=0.125):
    return plan.Cell.from_params(
        dict(
            algorithm=algorithm,
            env="bernoulli",
            K=8,
            gap=gap,
            epsilon=eps,
            horizon=(1 << 20) - 1,
            runs=0,
            seed=0,
            instance="standard",
            mu_best=None,
            rho=None,
            kappa=None,
        )
    )


def _terms(cell):
    table, avg = exact_table_and_averager(cell.spec())
    terms = cell_terms(cell, horizon_regret(table, cell), avg)
    return table.to_json(), json.dumps(terms, sort_keys=True)


@pytest.mark.parametrize(
    "order",
    [
        (("rps", 2.0), ("rps", 4.0)),  # one law
        (("rps", 4.0), ("rps", 2.0)),
        (("rps", 8.0), ("rps_short_prefix", 8.0)),  # one temperature, two prefix rules
        (("rps_short_prefix", 8.0), ("rps", 8.0)),
    ],
)
def test_proof_terms_do_not_depend_on_the_cell_before(order, monkeypatch):
    from privdtol.pipeline import proof

    alone = {}
    for cell in order:
        exact._RECENT.clear()
        monkeypatch.setattr(proof, "_SUMS", {})
        alone[cell] = _terms(_cell(*cell))
    exact._RECENT.clear()
    monkeypatch.setattr(proof, "_SUMS", {})
    together = {cell: _terms(_cell(*cell)) for cell in order}
    assert together == alone
    assert alone[order[0]][1] != alone[order[1]][1]  # eps or the prefix rule matters


def test_the_planner_makes_same_law_cells_neighbours():
    cells = [
        _cell(a, e, g)
        for a in ("rnm_ftnl", "rps", "wu_wang", "wu_wang_gumbel")
        for e in (0.5, 1.0)
        for g in (0.125, 0.25)
    ]
    order = sorted(cells, key=plan.Cell.sort_key)
    names = [(c.algorithm, c.gap, c.epsilon) for c in order]
    for gap in (0.125, 0.25):
        for eps in (0.5, 1.0):
            i = names.index(("rnm_ftnl", gap, eps))
            assert names[i + 1] == ("wu_wang", gap, eps)
    rps = [i for i, c in enumerate(order) if c.algorithm == "rps" and c.gap == 0.125]
    assert np.ptp(rps) <= 2  # eps 0.5 and 1 (eta 1/8 both), at most a Gumbel cell between
