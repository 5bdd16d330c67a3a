"""Tests of :mod:`privdtol.engine.worst_case`."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from privdtol.engine.exact import expected_regret
from privdtol.engine.worst_case import (
    FAMILIES,
    Objective,
    means_of,
    n_params,
    search,
    standard_params,
)
from privdtol.environments import instance_means

# --- from tests/test_mutants_engine.py


@pytest.mark.parametrize(
    ("K", "gap", "budget"), [(1, 0.1, 10), (2, 0.0, 10), (2, 1.0, 10), (2, 0.1, 3)]
)
def test_worst_case_search_refuses_degenerate_instances(K, gap, budget):
    from privdtol.engine.worst_case import search

    with pytest.raises(ValueError, match="need K >= 2, 0 < gap < 1 and budget >= 4"):
        search("rps", K, gap, 1.0, budget=budget)


# --- from tests/test_mutants_engine_r3c.py


def test_family_for_switches_from_free_to_spread_above_free_max_k():
    from privdtol.engine.worst_case import FREE_MAX_K, family_for

    assert FREE_MAX_K == 8
    assert family_for(2) == "free" and family_for(8) == "free"
    assert family_for(9) == "spread" and family_for(64) == "spread"
    assert family_for(64, "levels") == "levels"
    with pytest.raises(ValueError, match=r"family 'nope' not in \('free', 'levels', 'spread'\)"):
        family_for(3, "nope")


def test_search_with_a_small_budget_evaluates_the_initial_population_only():
    """K = 3 (family free, d = 2 parameters), budget 8: a population of max(5, d + 1) = 5,
    differential evolution's share max(5, int(0.75 * 8) - 1) = 5, so maxiter = 5 // 5 - 1 = 0
    generations after the initial population; the budget left, 8 - 1 - 5 = 2, is below the
    2 (d + 1) = 6 that polishing needs.  Evaluations: the standard instance, the 5 members of
    the population (the first of which is the standard instance again), the best one:
    7 evaluations of 5 distinct instances.  The record names its inputs under their own keys
    (read by pipeline.worst_case.searches_table)."""
    from privdtol.engine.worst_case import search

    result, trace = search("rps", 3, 0.25, 1, budget=8, seed=0, horizon=3)
    assert list(result) == [
        *("algorithm", "K", "gap", "epsilon", "env", "objective", "family", "seed", "budget"),
        *("horizon", "means", "gaps", "value", "bound", "standard", "evaluations"),
        *("distinct_instances", "note", "regret", "error_bound"),
    ]
    inputs = ("rps", 3, 0.25, 1.0, "bernoulli", "theorem1", "free", 0, 8, 3)
    assert tuple(result.values())[:10] == inputs and type(result["epsilon"]) is float
    assert result["evaluations"] == 7 and len(trace) == 7
    assert result["distinct_instances"] == 5
    assert trace[0]["means"] == trace[1]["means"]


def _walk_mean(mu1: float, mu2: float, m: int, f) -> float:
    """E[f(D_m)], D_m = L_(m,2) - L_(m,1), by enumerating all 4^m pairs of Bernoulli losses
    (independent of the pmf propagation of privdtol.engine.exact_k2)."""
    pairs = [
        (x2 - x1, (mu1 if x1 else 1 - mu1) * (mu2 if x2 else 1 - mu2))
        for x1 in (0, 1)
        for x2 in (0, 1)
    ]
    return math.fsum(
        math.prod(p for _, p in seq) * f(sum(d for d, _ in seq))
        for seq in itertools.product(pairs, repeat=m)
    )


def _sigma(z: float) -> float:
    return 1 / (1 + math.exp(-z))


MU1, MU2, GAP = 0.25, 0.5, 0.25


@pytest.mark.parametrize("prefix", ["random", "full"])
def test_rps_k2_regret_is_the_block_sum_of_the_walk_expectations(prefix):
    """Reg_T at T = 1, 3, 7, 15 (Lemma 4's accounting with equality): Delta/2 for the uniform
    A_0, then block r+1 (2^(r+1) rounds) charged Delta E[sigma(-eta D_M)] averaged over its
    prefix M: M_0 = 1, M_1 = 2, M_2 uniform on {3, 4} ("random", Section 4) or 4 ("full")."""
    from support.exact_k2 import rps_regret_k2

    eta = 0.125
    e = [_walk_mean(MU1, MU2, m, lambda d: _sigma(-eta * d)) for m in range(5)]
    last = (e[3] + e[4]) / 2 if prefix == "random" else e[4]
    want = np.cumsum([GAP / 2, 2 * GAP * e[1], 4 * GAP * e[2], 8 * GAP * last])
    np.testing.assert_allclose(rps_regret_k2(MU1, MU2, eta, 4, prefix), want, rtol=1e-13)


@pytest.mark.parametrize("algorithm", ["ftl", "hedge"])
def test_round_k2_regret_sums_the_law_of_every_round(algorithm):
    """Reg_T = sum_(t <= T) Delta P(I_t = 2) at T = 1, 3, 7, with P(I_t = 2) = E[g(D_(t-1))]:
    FTL g(d) = 1 if d < 0, 1/2 if d = 0, else 0 (ties uniform); Decreasing Hedge
    g(d) = sigma(-eta_t d), eta_t = 2 sqrt(log 2 / t)."""
    from support.exact_k2 import round_regret_k2

    def g(t):
        if algorithm == "ftl":
            return lambda d: 1.0 if d < 0 else 0.5 if d == 0 else 0.0
        return lambda d: _sigma(-2 * math.sqrt(math.log(2) / t) * d)

    per_round = [GAP * _walk_mean(MU1, MU2, t - 1, g(t)) for t in range(1, 8)]
    want = np.cumsum(per_round)[[0, 2, 6]]
    np.testing.assert_allclose(round_regret_k2(MU1, MU2, 3, algorithm), want, rtol=1e-13)
    with pytest.raises(ValueError) as err:
        round_regret_k2(MU1, MU2, 3, "rps")
    assert str(err.value) == "algorithm must be 'ftl' or 'hedge', got 'rps'"


# --- from tests/test_mutants_engine_r4d.py


def test_search_polishes_exactly_when_two_evaluations_per_parameter_are_left():
    """K = 2 ('free': d = 1, population 5).  budget 9: DE budget max(5, int(6.75) - 1) = 5,
    maxiter 0, so 1 + 5 evaluations are spent and 3 < 2 (d + 1) are left: no polishing, one
    final evaluation, 7 in all.  budget 10: DE budget 6, still maxiter 0, 4 = 2 (d + 1) left:
    L-BFGS-B runs (its first value and a finite difference at least), 9 or more."""
    kw = dict(seed=0, horizon=63)
    low, trace = search("rps", 2, 0.25, 1.0, budget=9, **kw)
    assert low["evaluations"] == 7 == len(trace)
    high, _ = search("rps", 2, 0.25, 1.0, budget=10, **kw)
    assert high["evaluations"] >= 9


@pytest.mark.parametrize(
    "K, gap, budget", [(1, 0.25, 10), (2, 0.0, 10), (2, 1.0, 10), (2, 0.25, 3)]
)
def test_search_refuses_degenerate_input_in_one_sentence(K, gap, budget):
    """K >= 2, 0 < gap < 1 and budget >= 4, each boundary refused."""
    with pytest.raises(ValueError, match=r"^need K >= 2, 0 < gap < 1 and budget >= 4$"):
        search("rps", K, gap, 1.0, budget=budget, horizon=7)


def test_search_record_of_a_minimal_search():
    """budget 4 (the least): K = 2, 'auto' family 'free'; the record names its inputs, its gaps
    are means - mu_1, the standard instance is (3/8, 5/8) (mu_1 = 1/2 - gap/2), the value is
    the ratio regret / bound and at least the standard's, and the note says what it is."""
    r, trace = search("rps", 2, 0.25, 1.0, budget=4, seed=5, horizon=7)
    assert {k: r[k] for k in ("algorithm", "K", "gap", "epsilon", "env", "objective")} == {
        "algorithm": "rps", "K": 2, "gap": 0.25, "epsilon": 1.0, "env": "bernoulli",
        "objective": "theorem1",
    }  # fmt: skip
    assert (r["family"], r["seed"], r["budget"], r["horizon"]) == ("free", 5, 4, 7)
    assert r["standard"]["means"] == [0.375, 0.625]
    assert r["gaps"] == [r["means"][1] - r["means"][0]] and r["gaps"][0] >= 0.25 - 1e-15
    assert r["value"] == r["regret"] / r["bound"] and r["value"] >= r["standard"]["value"]
    assert r["note"] == "the largest value found by the search, not a supremum"
    assert r["evaluations"] == len(trace) and 1 <= r["distinct_instances"] <= len(trace)
    assert 0 <= r["error_bound"] < 1e-6 * r["regret"]


# --- from tests/test_mutants_engine_search.py

U = 2.0**-53


ETA = 0.125  # rps at eps = 1: eta = min(eps/2, 1/8)


def _sum_f(deltas, upto=40000) -> np.ndarray:
    """sum_(m >= 1) Delta_j P(A = j | m rounds) per action j (to m = 40000: the rest is below
    e^(-40000 eta Delta_min) = e^-500 for Delta_min = 0.1)."""
    ms = np.arange(1, upto + 1, dtype=float)[:, None]
    d = np.asarray(deltas, dtype=float)[None, :]
    w = np.exp(-ETA * ms * d)
    terms = d * w / w.sum(axis=1, keepdims=True)
    return np.array([math.fsum(terms[:, j]) for j in range(terms.shape[1])])


def _det_regret(T: int, gap: float) -> float:
    """Reg_T of rps, K = 2 (Section 4, Lemma 4's block accounting with equality): A_0 uniform
    (Delta/2), A_r averaged over M_(r-1) uniform on {2^(r-2)+1..2^(r-1)} (M_0 = 1), times
    #(B_r cap [1, T]), B_r = {2^r..2^(r+1)-1}."""
    total, r = [gap / 2], 1
    while (1 << r) <= T:
        lo, hi = (1, 1) if r == 1 else ((1 << (r - 2)) + 1, 1 << (r - 1))
        g = math.fsum(gap / (1 + math.exp(ETA * m * gap)) for m in range(lo, hi + 1))
        total.append(min((2 << r) - 1, T) - (1 << r) + 1)
        total[-1] *= g / (hi - lo + 1)
        r += 1
    return math.fsum(total)


def test_lemma5_search_reports_the_regret_at_its_horizon():
    """A lemma5 search (K = 2, gap 1/2, deterministic: every instance has the same laws) reports
    sum_m F_m and, besides, Reg_T at its horizon T = 1000, both against the closed forms;
    Lemma 5's bound by hand: 200 log 2 / (1/2) + 4 log 2 / (1/8) = 432 log 2."""
    from privdtol.engine.worst_case import search

    res, _ = search(
        "rps", 2, 0.5, 1.0, objective="lemma5", budget=4, horizon=1000, env="deterministic"
    )
    sum_f = float(_sum_f([0.0, 0.5])[1])
    assert abs(res["sum_F"] - sum_f) <= res["sum_F_error_bound"] <= 1e-7 * sum_f
    assert res["bound"] == pytest.approx(432 * math.log(2), rel=1e-15)
    assert res["value"] == res["sum_F"] / res["bound"]
    reg = _det_regret(1000, 0.5)
    assert abs(res["regret"] - reg) <= res["error_bound"] + 64 * U * reg


# --- from tests/test_worst_case.py

T = (1 << 10) - 1  # short horizon: every evaluation is a few milliseconds


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("K", [3, 8, 16])
def test_every_family_contains_the_standard_instance(family, K):
    if family == "free" and K > 8:
        pytest.skip("the free family is for K <= 8")
    means = means_of(standard_params(K, 0.125, family), K, 0.125, family)
    np.testing.assert_allclose(means, instance_means(K, 0.125, None, "standard"), atol=1e-15)


def test_spread_contains_the_staircase_and_keeps_one_action_at_the_gap():
    K, gap = 10, 0.0625
    x = np.array([(0.5 - gap / 2) / (1 - gap), 0.0, 1 / (K - 2), 1.0])
    np.testing.assert_allclose(
        means_of(x, K, gap, "spread"), instance_means(K, gap, None, "staircase"), atol=1e-12
    )
    rng = np.random.default_rng(3)
    for family in FAMILIES:
        for x in rng.random((20, n_params(K if family != "free" else 6, family))):
            k = K if family != "free" else 6
            m = means_of(x, k, gap, family)
            assert m.size == k and m.min() >= 0 and m.max() <= 1 and np.all(np.diff(m) >= 0)
            assert m[1] - m[0] == pytest.approx(gap, abs=1e-15)


def _dense_max(f, grid_1d, d):
    """Largest objective over a d-dimensional grid, then over a finer grid around its best
    point."""
    axes = [grid_1d] * d
    best_v, best_x = -np.inf, None
    for x in np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(axes), -1).T:
        v = f.evaluate(x)["ratio"]
        if v > best_v:
            best_v, best_x = v, x
    step = grid_1d[1] - grid_1d[0]
    fine = [np.clip(np.linspace(c - step, c + step, 9), 0, 1) for c in best_x]
    for x in np.array(np.meshgrid(*fine, indexing="ij")).reshape(len(fine), -1).T:
        best_v = max(best_v, f.evaluate(x)["ratio"])
    return best_v


@pytest.mark.slow
@pytest.mark.parametrize(("K", "family", "points"), [(2, "free", 41), (8, "levels", 13)])
def test_search_maximum_agrees_with_a_dense_grid(K, family, points):
    gap, eps = 0.25, 1.0
    result, trace = search("rps", K, gap, eps, "theorem1", family, budget=40, seed=1, horizon=T)
    grid = Objective("rps", K, gap, eps, "theorem1", family, T, "bernoulli")
    dense = _dense_max(grid, np.linspace(0, 1, points), n_params(K, family))
    assert result["value"] >= dense * (1 - 1e-6), (result["value"], dense)
    assert result["value"] >= result["standard"]["value"]
    assert len(trace) == result["evaluations"] and result["evaluations"] <= 40 + 2
    # the value is the exact regret of the instance reported, over Theorem 1's bound
    reg, _ = expected_regret("rps", np.array(result["means"]), eps, [T])
    assert result["regret"] == pytest.approx(float(reg[0]), rel=1e-12)
    assert result["value"] == pytest.approx(result["regret"] / result["bound"], rel=1e-12)


def test_rate_min_minimises_and_never_exceeds_the_standard():
    r, _ = search("rps", 4, 0.25, 0.0625, "rate_min", "free", budget=20, seed=0, horizon=T)
    assert r["value"] <= r["standard"]["value"]


def _cli(args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "privdtol", "worst-case", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


BASE = ["--K", "3", "--gap", "0.25", "--epsilon", "1", "--budget", "8", "--horizon", "1023"]


def test_cli_is_deterministic_and_writes_its_files(tmp_path):
    for name in ("a", "b"):
        out = [f"--out={name}.json", f"--trace={name}.csv", f"--table={name}.parquet"]
        proc = _cli([*BASE, "--seed", "5", *out], tmp_path)
        assert proc.returncode == 0, proc.stderr
    for ext in ("json", "csv", "parquet"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes()
    result = json.loads((tmp_path / "a.json").read_text())
    for key in ("means", "horizon", "regret", "bound", "objective", "evaluations"):
        assert key in result
    assert len(pd.read_csv(tmp_path / "a.csv")) == result["evaluations"]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        (["--K", "1"], "--K"),
        (["--gap", "1.0"], "--gap"),
        (["--epsilon", "-1"], "--epsilon"),
        (["--objective", "nope"], "--objective"),
        (["--family", "nope"], "--family"),
        (["--budget", "2"], "--budget"),
        (["--horizon", "0"], "--horizon"),
        (["--out", "x.txt"], "--out"),
        (["--algorithm", "rnm_ftnl", "--objective", "lemma5"], "--algorithm"),
    ],
)
def test_cli_refuses_bad_input_in_one_line(tmp_path, extra, field):
    proc = _cli(BASE + extra, tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"privdtol worst-case: error: {field}:"), lines
    assert not list(tmp_path.iterdir())
