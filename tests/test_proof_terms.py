"""The exact terms of Lemmas 4-5 (:mod:`privdtol.engine.exact.proof`, ``privdtol lemmas``)
against the independent references of tests/proof_reference.py (Cesari & Colomboni, Sections
5.3-5.4): brute-force enumeration of the Binomial outcomes, the K = 2 random walk of D_m and the
K = 3 two-dimensional walk of (D_2, D_3), Monte Carlo; then the paper's inequalities."""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from privdtol.engine.exact import expected_regret
from privdtol.engine.exact.potential import expected_log_z
from privdtol.engine.exact.proof import proof_terms, restricted_errors, selection_errors
from privdtol.environments import instance_means

sys.path.insert(0, str(Path(__file__).parent))
from support import proof_reference as ref

#: the brief's tolerances: exact values within the library's error bound + REL_EXACT relative;
#: the walks within REL_WALK relative; Monte Carlo within Z_MC standard errors (conftest Z_TOL)
REL_EXACT, REL_WALK, REL_IDENTITY, Z_MC = 1e-12, 1e-6, 1e-9, 4.0
H40 = (1 << 40) - 1


@functools.cache
def terms(algorithm, means, eps, horizon=H40, env="bernoulli"):
    return proof_terms(algorithm, np.array(means), eps, horizon=horizon, env=env)


def _close(got, want, err, rel, what):
    got, want, err = (np.asarray(v, dtype=float) for v in (got, want, err))
    diff = np.abs(got - want)
    tol = err + rel * np.abs(want)
    bad = ~(diff <= tol)
    assert not bad.any(), "; ".join(
        f"{what}[{i}]: got {got[i]!r} want {want[i]!r} |diff| {diff[i]:.3e} "
        f"rel {diff[i] / max(abs(want[i]), 1e-300):.3e} tol {tol[i]:.3e} (err {err[i]:.3e})"
        for i in np.flatnonzero(bad)
    )


# ---------------------------------------------------------------- (i) brute-force enumeration
# eta = min(eps/2, 1/8): eps 1 and 8 are capped (eta = 1/8), eps 0.1 and 0.2 are not
ENUM_CASES = [
    ((0.4, 0.6), 1.0, "bernoulli"),  # small gap only (0.2 <= 4 eta = 0.5): V = 0, log Z = 0
    ((0.4, 0.65), 0.1, "bernoulli"),  # eta 0.05: large gap only (0.25 > 4 eta = 0.2)
    ((0.2, 0.5, 0.8), 8.0, "bernoulli"),  # Delta 0.3 small, 0.6 large
    ((0.3, 0.34, 0.55, 0.9), 0.1, "bernoulli"),  # eta 0.05: 0.04 small; 0.25, 0.6 large
    ((0.7, 0.2, 0.45, 0.25), 0.2, "bernoulli"),  # unsorted; eta 0.1: 0.05, 0.25 small; 0.5
    ((0.2, 0.5, 0.8), 8.0, "deterministic"),
    ((0.3, 0.34, 0.55, 0.9), 0.1, "deterministic"),
]
MS_F, MS_V = [1, 2, 3, 5, 10], [0, 1, 2, 5, 10]


@pytest.mark.parametrize("means, eps, env", ENUM_CASES)
def test_selection_restricted_and_log_z_match_enumeration(means, eps, env):
    eta = ref.rps_eta(eps)
    want = {m: ref.enumerate_terms(means, eta, m, env) for m in set(MS_F) | set(MS_V)}
    F, Fe = selection_errors("rps", np.array(means), eps, MS_F, env=env)
    V, Ve = restricted_errors("rps", np.array(means), eps, MS_V, env=env)
    L, Le = expected_log_z("rps", np.array(means), eps, MS_V, env=env)
    for name, err in (("F", Fe), ("V", Ve), ("logZ", Le)):
        assert np.all(np.asarray(err) >= 0) and np.all(np.isfinite(err)), name
    _close(F, [want[m]["F"] for m in MS_F], Fe, REL_EXACT, f"F_m at m={MS_F}")
    _close(V, [want[m]["V"] for m in MS_V], Ve, REL_EXACT, f"E[V_m] at m={MS_V}")
    _close(L, [want[m]["logZ"] for m in MS_V], Le, REL_EXACT, f"E[log Z_m] at m={MS_V}")


def test_reference_walks_agree_with_enumeration():
    """The walks of proof_reference against its enumeration (a check of the reference)."""
    for means, walk in (((0.4, 0.65), ref.walk_k2), ((0.2, 0.5, 0.8), ref.walk_k3)):
        w = walk(means, 0.1)
        for m in range(11):
            e = ref.enumerate_terms(means, 0.1, m)
            assert abs(w["V"][m] - e["V"]) <= 1e-14
            if m:
                assert abs(w["F"][m - 1] - e["F"]) <= 1e-14


# ------------------------------------------------------- (ii) Lemma 4's block accounting
IDENTITY_CASES = [("standard", 8, 0.1, 1.0), ("staircase", 8, 0.05, 0.2)]


@pytest.mark.slow
@pytest.mark.parametrize("instance, K, gap, eps", IDENTITY_CASES)
def test_regret_equals_block_accounting_of_lemma4(instance, K, gap, eps):
    means = instance_means(K, gap, None, instance)
    Rs = [8, 12, 20]
    reg, reg_e = expected_regret("rps", means, eps, [(1 << R) - 1 for R in Rs], "bernoulli")
    t = terms("rps", tuple(means), eps, (1 << 20) - 1)
    blocks = t["blocks"]
    assert [b["r"] for b in blocks] == list(range(len(blocks)))
    a0 = float(np.mean(means - means.min()))  # E[Delta_(A_0)], A_0 uniform
    for R, g, ge in zip(Rs, reg, reg_e, strict=True):
        used = blocks[: R - 1]  # r = 0 (m = 1) .. R - 2 (m up to 2^(R-2))
        want = a0 + 2 * used[0]["sum"] + 4 * sum(b["sum"] for b in used[1:])
        err = ge + 2 * used[0]["error_bound"] + 4 * sum(b["error_bound"] for b in used[1:])
        if len(used) < R - 1:  # the library stopped summing: the rest is its tail bound
            err += 4 * t.get("tail_bound", 0.0)
        _close([g], [want], [err], REL_IDENTITY, f"Reg_(2^{R}-1) vs block sums ({instance})")


# ------------------------------------------------------- (iii) K = 2 and K = 3 walks
WALK_CASES = [
    ((0.4, 0.6), 8.0),  # statistical regime: eta = 1/8, the gap 0.2 is small
    ((0.4, 0.6), 1 / 16),  # privacy regime: eta = 1/32, the gap is large
    ((0.2, 0.5, 0.8), 8.0),  # three levels: 0.3 small, 0.6 large
    pytest.param((0.05, 0.55, 0.95), 1 / 16, marks=pytest.mark.slow),  # all large
]


@functools.cache
def walk(means, eps):
    eta = ref.rps_eta(eps)
    return (ref.walk_k2 if len(means) == 2 else ref.walk_k3)(means, eta)


@pytest.mark.parametrize("means, eps", WALK_CASES)
def test_proof_terms_match_the_random_walks(means, eps):
    t, w = terms("rps", means, eps), walk(means, eps)
    assert t["eta"] == ref.rps_eta(eps)
    reg, reg_err = ref.regret_whole_blocks(w, means, 40)
    for key, want, werr in [
        ("sum_F", w["sum_F"], w["err"]["sum_F"]),
        ("small_gap", w["small_gap"], w["err"]["small_gap"]),
        ("large_gap", w["large_gap"], w["err"]["large_gap"]),
        ("sum_V", w["sum_V"], w["err"]["sum_V"]),
        ("regret", reg, reg_err),
        ("regret_limit", w["regret_limit"], w["err"]["regret_limit"]),
    ]:
        _close([t[key]], [want], [werr], REL_WALK, f"{key} {means} eps={eps}")
    _close(
        [sum(g["sum"] for g in t["groups"])],
        [w["small_gap"]],
        [w["err"]["small_gap"]],
        REL_WALK,
        "sum of the group sums vs the small-gap part",
    )
    if w["max_ratio_eq4"] is None:
        assert t["max_ratio_eq4"] is None
    else:  # the library's max is over a subset of m containing m = 1; the walk's over all m
        d = np.sort(means) - min(means)
        small = [j for j in range(1, len(means)) if d[j] <= 4 * t["eta"]]
        at1 = max(w["EP"][0, j] / (2 * math.exp(-(d[j] ** 2) / 8)) for j in small)
        assert at1 * (1 - REL_WALK) <= t["max_ratio_eq4"] <= w["max_ratio_eq4"] * (1 + REL_WALK)


@pytest.mark.parametrize("means, eps", [((0.4, 0.6), 8.0), ((0.2, 0.5, 0.8), 1 / 16)])
def test_proof_terms_match_deterministic_sums(means, eps):
    t = terms("rps", means, eps, env="deterministic")
    d = ref.deterministic_sums(means, ref.rps_eta(eps))
    for key in ("sum_F", "small_gap", "large_gap", "sum_V", "regret_limit"):
        _close([t[key]], [d[key]], [d["err"][key]], REL_WALK, f"{key} deterministic {means}")


# ------------------------------------------------------------------- (iv) Monte Carlo
@pytest.mark.parametrize("means, eps", [((0.3, 0.34, 0.55, 0.9), 0.1), ((0.2, 0.5, 0.8), 8.0)])
def test_selection_errors_match_monte_carlo(means, eps):
    ms = [1, 5, 50]
    F, Fe = selection_errors("rps", np.array(means), eps, ms)
    for i, m in enumerate(ms):
        est, se = ref.monte_carlo_F(means, ref.rps_eta(eps), m, 200_000, seed=20260 + m)
        assert abs(est - F[i]) <= Z_MC * se + Fe[i], (
            f"F_{m} {means} eps={eps}: MC {est:.8g} (se {se:.3g}) vs exact {F[i]:.8g}: "
            f"{abs(est - F[i]) / se:.2f} SE"
        )


# --------------------------------------------------------------- (v) the paper's inequalities
INEQ_CASES = [
    ("standard", 8, 0.1, 1.0),
    ("staircase", 8, 0.05, 8.0),
    ("standard", 4, 2.0**-4, 1 / 16),
    ("staircase", 16, 2.0**-5, 0.5),
    ("standard", 8, 2.0**-7, 8.0),  # the control's instance: Lemma 4 holds with slack ~1
]


def _check_inequalities(t, means):
    b, eta = t["bounds"], t["eta"]
    want = ref.lemma5_bounds(means, eta)
    _close(
        [b["eq5"], b["eq6"], b["lemma5"], b["lemma4"]],
        [want["eq5"], want["eq6"], want["lemma5"], 1 + 4 * t["sum_F"]],
        [0, 0, 0, 0],
        REL_EXACT,
        "bounds (eq5, eq6, lemma5, lemma4)",
    )
    assert t["regret"] <= b["lemma4"], ("Lemma 4", t["regret"], b["lemma4"])
    if t.get("regret_limit") is not None:
        assert t["regret_limit"] <= b["lemma4"], ("Lemma 4 (limit)", t["regret_limit"])
    assert t["sum_F"] <= b["lemma5"], ("Lemma 5", t["sum_F"], b["lemma5"])
    assert t["small_gap"] <= b["eq5"], ("eq. (5)", t["small_gap"], b["eq5"])
    assert t["large_gap"] <= t["sum_V"] <= b["eq6"], ("eq. (6)", t["large_gap"], t["sum_V"])
    got = [(g["level"], g["size"]) for g in t["groups"]]
    assert got == [(g["level"], g["size"]) for g in want["groups"]], got
    for g, wg in zip(t["groups"], want["groups"], strict=True):
        _close([g["bound"]], [wg["bound"]], [0], REL_EXACT, f"group {g['level']} bound")
        assert g["sum"] <= g["bound"], ("group", g)
    if want["groups"]:
        assert t["max_ratio_eq4"] is not None and t["max_ratio_eq4"] <= 1.0
    else:
        assert t["max_ratio_eq4"] is None


@pytest.mark.slow
@pytest.mark.parametrize("instance, K, gap, eps", INEQ_CASES)
def test_lemma_inequalities_hold_for_rps(instance, K, gap, eps):
    means = instance_means(K, gap, None, instance)
    _check_inequalities(terms("rps", tuple(means), eps), means)


def test_lemma_inequalities_hold_on_three_levels():
    _check_inequalities(terms("rps", (0.2, 0.5, 0.8), 8.0), np.array([0.2, 0.5, 0.8]))


@pytest.mark.slow
def test_short_prefix_control_breaks_lemma4():
    """rps_short_prefix reads the fixed prefix ceil(2^(2r/3)) of block r, not M_r over the
    block's second half, so Lemma 4's accounting fails: Reg_T > 1 + 4 sum_m F_m."""
    means = instance_means(8, 2.0**-7, None, "standard")
    t = terms("rps_short_prefix", tuple(means), 8.0, (1 << 30) - 1)
    assert t["regret"] - t["error_bound"]["regret"] > t["bounds"]["lemma4"], (
        t["regret"],
        t["bounds"]["lemma4"],
    )


# ------------------------------------------------------------------------------- (vi) the CLI
REQUIRED = (
    "eta",
    "sum_F",
    "small_gap",
    "large_gap",
    "sum_V",
    "max_ratio_eq4",
    "groups",
    "regret",
    "regret_limit",
    "bounds",
    "error_bound",
    "blocks",
)


def _cli(args, cwd, module="privdtol.cli"):
    """``python -m privdtol.cli lemmas ...`` (the ``privdtol`` console script's entry point)."""
    return subprocess.run(
        [sys.executable, "-m", module, "lemmas", *args], cwd=cwd, capture_output=True, text=True
    )


def test_python_dash_m_privdtol_runs_the_cli(tmp_path):
    proc = _cli(["--help"], tmp_path, module="privdtol")
    assert proc.returncode == 0 and "--means" in proc.stdout, proc.stderr


@pytest.mark.slow
def test_cli_writes_the_terms_as_json(tmp_path):
    out = tmp_path / "terms.json"
    args = [
        "--algorithm",
        "rps",
        "--means",
        "0.2,0.5,0.8",
        "--epsilon",
        "8",
        "--horizon",
        "1023",
        "--out",
        str(out),
    ]
    proc = _cli(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(out.read_text())
    assert set(REQUIRED) <= set(got), set(REQUIRED) - set(got)
    assert {"lemma4", "lemma5", "eq5", "eq6"} <= set(got["bounds"])
    t = terms("rps", (0.2, 0.5, 0.8), 8.0, 1023)
    for key in ("sum_F", "small_gap", "large_gap", "sum_V", "regret"):
        assert got[key] == pytest.approx(t[key], rel=1e-12, abs=0), key
    assert all({"r", "sum", "error_bound"} <= set(b) for b in got["blocks"])


@pytest.mark.parametrize(
    "change, field",
    [
        ({"--epsilon": "-1"}, "epsilon"),
        ({"--means": "0.5,0.5"}, "means"),
        ({"--means": "0.2,x"}, "means"),
        ({"--out": "foo.txt"}, "out"),
        ({"--algorithm": "rnm_ftnl"}, "algorithm"),
    ],
)
def test_cli_bad_input_is_one_line_and_no_file(tmp_path, change, field):
    opts = {
        "--algorithm": "rps",
        "--means": "0.4,0.6",
        "--epsilon": "1",
        "--horizon": "1023",
        "--out": "bad.json",
    } | change
    proc = _cli([x for kv in opts.items() for x in kv], tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(lines) == 1 and lines[0].startswith(f"privdtol lemmas: error: --{field}:"), lines
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())
