"""The worst-instance search (privdtol.engine.worst_case, ``privdtol worst-case``): its
families contain the standard instance, its maximum agrees with a dense grid's, it is
deterministic, refuses bad input in one line, and its pipeline table and finding."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privdtol.analysis.worst import worst_case
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
from privdtol.pipeline.config import load_config
from privdtol.pipeline.worst_case import searches, searches_table

ROOT = Path(__file__).resolve().parents[1]
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


def test_config_block_gives_one_search_per_point_and_objective():
    cfg = load_config(ROOT / "config/config.yaml")
    got = searches(cfg)
    block = cfg["worst_case"]
    n = len(block["K"]) * len(block["gap"]) * len(block["epsilon"]) * len(block["objectives"])
    assert len(got) == n and len({s.search_id for s in got}) == n
    minimal = {"experiments": cfg["experiments"][:1]}
    assert searches(load_config(minimal)) == []


def test_searches_table_and_finding(tmp_path):
    from privdtol.pipeline.worst_case import Search, write_search

    for obj in ("theorem1", "rate_min"):
        s = Search("rps", 3, 0.25, 1.0, obj, T, 8, 0, "auto")
        write_search(s, tmp_path / f"{s.search_id}.json", tmp_path / f"{s.search_id}.trace.csv")
    table = searches_table(sorted(tmp_path.glob("*.json")))
    assert list(table["objective"]) == ["rate_min", "theorem1"]
    found = worst_case({"searches": table})
    t1 = table[table["objective"] == "theorem1"].iloc[0]
    assert found["theorem1"]["value"] == pytest.approx(t1["value"], rel=1e-6)
    assert found["rate"]["value"] >= found["rate_min"]["value"]
    assert "not a supremum" in found["text"] and "Theorem 1's bound" in found["text"]
    assert not worst_case({})["available"]


def test_the_search_ranks_at_its_tolerance_and_reports_an_accurate_regret():
    """Differential evolution ranks with regrets to SEARCH_TOL (each within its own rigorous
    bound of the accurate value); the instance reported is computed to the default again."""
    from privdtol.engine.exact import expected_regret
    from privdtol.engine.worst_case import SEARCH_TOL, search

    means = [0.4, 0.5, 0.55, 0.9]
    (fast,), (fast_err,) = expected_regret("rps", means, 0.5, [2**20 - 1], tol=SEARCH_TOL)
    (exact,), (exact_err,) = expected_regret("rps", means, 0.5, [2**20 - 1])
    assert exact_err < 1e-8 * exact and exact_err < fast_err < SEARCH_TOL * fast
    assert abs(fast - exact) <= fast_err + exact_err
    result, trace = search("rps", 4, 0.1, 0.5, budget=12, seed=3, horizon=2**20 - 1)
    (again,), (again_err,) = expected_regret("rps", result["means"], 0.5, [2**20 - 1])
    assert result["regret"] == again and result["error_bound"] == again_err
    assert result["value"] >= result["standard"]["value"] and len(trace) == result["evaluations"]
