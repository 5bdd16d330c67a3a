"""Privacy audits (paper Section 5.2): exact per-selection losses on hand-computable cases, the
whole-sequence enumeration against the per-block bound, the statistical audit's coverage on a
mechanism of known loss, the negative controls, and the ``privdtol audit`` contract."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privdtol.algorithms import ALGORITHMS, laplace_noisy_min_law
from privdtol.algorithms.negative_controls import AUDIT_ONLY, prefix_support
from privdtol.algorithms.rps import random_prefix
from privdtol.cli import main
from privdtol.core.seeding import generator
from privdtol.privacy import (
    audit_selection,
    audit_sequence,
    audit_statistical,
    log_selection_law,
    loss_bounds,
    make_audited,
    sequence_log_law,
)
from privdtol.privacy.mechanisms import laplace_noisy_min_logprob

NEGATIVE_CONTROLS = list(AUDIT_ONLY)


def closed_form_block1(K, eta):
    """Block of one round: d = (0, 1, ..., 1), d' = (1, 0, ..., 0); action 0's ratio."""
    return np.log((1 + (K - 1) * np.exp(eta)) / (1 + (K - 1) * np.exp(-eta)))


# ------------------------------------------------------------------ exact, one selection
@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_k2_block1_hand_computed(eps):
    """K = 2, block 0 (M_0 = 1): d = (0,1), d' = (1,0) gives P(0|d)/P(0|d') = e^eta, a loss of
    exactly eta; for K = 2 and one round no pair does better (only L_1 - L_0 in [-1, 1]
    matters), so the supremum is eta -- half of Lemma 3's 2 eta, which K = 2 cannot reach."""
    alg = make_audited("rps", eps)
    lp = log_selection_law(alg, np.array([[0.0, 1.0]]), 0)
    lq = log_selection_law(alg, np.array([[1.0, 0.0]]), 0)
    assert np.max(np.abs(lp - lq)) == pytest.approx(alg.eta, abs=1e-14)
    res = audit_selection("rps", eps, K=2, block=1)
    assert res.loss == pytest.approx(alg.eta, abs=1e-12)
    assert res.within_selection_bound and not res.violation


@pytest.mark.parametrize("K", [3, 5])
def test_block1_general_k_closed_form(K):
    eta = 0.125
    res = audit_selection("rps", 0.5, K=K, block=1, n_random=500)
    assert res.loss == pytest.approx(closed_form_block1(K, eta), abs=1e-12)


def test_mixture_law_is_the_average_over_the_prefix():
    """The audited law of rps at r = 3 is the mean over m in {5..8} of softmax(-eta L(m))."""
    rng = generator({"test": "mixture"})
    d = rng.random((8, 3))
    alg = make_audited("rps", 1.0)
    cum = np.vstack([np.zeros(3), np.cumsum(d, axis=0)])
    manual = np.mean([alg.law(cum[m][None], 3)[0] for m in range(5, 9)], axis=0)
    assert np.allclose(np.exp(log_selection_law(alg, d, 3)), manual, rtol=1e-13)
    # the support used by the audit is the simulator's: M_3 takes exactly the values 5..8
    draws = random_prefix(generator({"test": "support"}), 3, 4000)
    assert set(draws.tolist()) == set(prefix_support(3).tolist())


def test_laplace_law_matches_quadrature_and_closed_form():
    s = np.array([0.0, 3.0, 5.0, 2.0])
    assert np.allclose(
        np.exp(laplace_noisy_min_logprob(s, 4.0)), laplace_noisy_min_law(s, 4.0), atol=1e-10
    )
    for x in (1.0, 10.0, 40.0):  # K = 2: P(Z1 - Z0 > x) = e^-x (2 + x) / 4, scale 1
        got = laplace_noisy_min_logprob(np.array([0.0, x]), 1.0)[1]
        assert got == pytest.approx(np.log(np.exp(-x) * (2 + x) / 4), rel=1e-10)


@pytest.mark.parametrize("name", ["rps", "rps_full_prefix", "rps_uncapped", "wu_wang_gumbel"])
def test_private_softmax_selections_within_two_eta(name):
    res = audit_selection(name, 0.5, K=4, block=16, n_random=500, max_steps=20)
    assert res.within_selection_bound and not res.violation
    assert res.loss > 0.8 * res.bound_selection  # the search gets close to the supremum


@pytest.mark.parametrize("name", NEGATIVE_CONTROLS)
def test_negative_controls_are_caught_with_witness(name):
    res = audit_selection(name, 0.5, K=4, block=16, n_random=500, max_steps=20)
    assert res.violation and res.loss > 0.5
    d, dp = np.asarray(res.witness.d), np.asarray(res.witness.d_prime)
    differs = np.flatnonzero(np.any(d != dp, axis=1))
    assert differs.tolist() == [res.witness.row]  # a neighbouring pair
    alg = make_audited(name, 0.5)
    recomputed = np.max(np.abs(log_selection_law(alg, d, 4) - log_selection_law(alg, dp, 4)))
    assert recomputed == pytest.approx(res.loss, rel=1e-12)


def test_negative_controls_are_not_registered():
    assert not set(AUDIT_ONLY) & set(ALGORITHMS)
    with pytest.raises(RuntimeError):
        AUDIT_ONLY["rps_data_prefix"](0.5).prefix_lengths(generator({}), 3, 4)


# ------------------------------------------------------------------ exact, whole sequence
def test_sequence_law_is_a_probability_and_factorizes():
    alg = make_audited("rps", 1.0)
    x = (generator({"test": "seq"}).random((15, 3)) < 0.4).astype(float)
    logp = sequence_log_law(alg, x)
    assert logp.shape == (3,) * 4
    assert np.exp(logp).sum() == pytest.approx(1.0, abs=1e-12)
    # marginal of A_3 is the block-2 selection law (Proposition 1's factorisation)
    marg = np.exp(logp).sum(axis=(0, 1, 2))
    assert np.allclose(marg, np.exp(log_selection_law(alg, x[3:7], 2)), atol=1e-13)


@pytest.mark.parametrize("name", ["rps", "rps_uncapped", "wu_wang_gumbel"])
def test_whole_sequence_never_exceeds_per_block_bound(name):
    res = audit_sequence(name, 0.5, K=3, horizon=31, n_random=5)
    assert res.loss <= res.bound_selection + 1e-9 and not res.violation
    assert res.factorization_gap < 1e-9


@pytest.mark.parametrize("name", NEGATIVE_CONTROLS)
def test_whole_sequence_catches_negative_controls(name):
    res = audit_sequence(name, 0.5, K=3, horizon=63, n_random=2)
    assert res.violation and res.loss > 0.5


# ------------------------------------------------------------------ statistical
def randomized_response_counts(eps, n, seed):
    """Randomized response on one bit: report it with prob e^eps / (1 + e^eps); the counts of
    the output under input 0 and input 1 -- a mechanism whose privacy loss is exactly eps."""
    rng = generator({"test": "rr", "eps": eps, "n": n, "seed": seed})
    keep = np.exp(eps) / (1 + np.exp(eps))
    out0 = (rng.random(n) >= keep).astype(int)
    out1 = (rng.random(n) < keep).astype(int)
    return np.bincount(out0, minlength=2), np.bincount(out1, minlength=2)


def test_clopper_pearson_covers_randomized_response():
    eps = 1.0
    misses = 0
    for seed in range(20):
        c0, c1 = randomized_response_counts(eps, 2000, seed)
        b = loss_bounds(c0, c1, alpha=0.05)
        misses += not (b["lower"] <= eps <= b["upper"])
    assert misses <= 3  # simultaneous 95% bounds (Bonferroni: conservative)


def test_statistical_audit_detects_understated_epsilon():
    c0, c1 = randomized_response_counts(1.0, 20000, 0)
    b = loss_bounds(c0, c1, alpha=0.05)
    assert b["lower"] > 0.5  # a claim of eps = 0.5 is refuted
    assert b["lower"] <= 1.0 <= b["upper"]


def test_statistical_audit_of_replayed_runs():
    res = audit_statistical("rnm_ftnl", 0.5, K=2, block=16, runs=20000)
    assert not res.violation and res.loss_lower <= res.exact_loss <= res.loss_upper
    bad = audit_statistical("rps_eta_eps", 0.5, K=4, block=8, runs=20000)
    assert bad.violation and bad.loss_lower > 0.5


# ------------------------------------------------------------------ CLI
#: a small exact audit (K = 4, one block of 16, 300 random pairs) at eps = 0.5
SMALL_AUDIT = ["--epsilon", "0.5", "--K", "4", "--block", "16", "--random", "300"]


@pytest.mark.parametrize(
    "name, as_json, violation, two_eta",
    [("rps", False, False, 0.25), ("rps_eta_eps", True, True, 1.0)],
)
def test_cli_text_and_json(capsys, name, as_json, violation, two_eta):
    """One audit printed as text, one as JSON: the loss found, the bound 2 eta, the verdict."""
    args = ["audit", "--algorithm", name, *SMALL_AUDIT, *(["--json"] if as_json else [])]
    assert main(args) == 0
    out = capsys.readouterr().out
    if as_json:
        d = json.loads(out)
        assert d["violation"] is violation and (d["loss"] > 0.5) is violation
        assert d["bound_selection"] == pytest.approx(two_eta) and d["witness"]["d"]
    else:
        verdict = "violation" if violation else "within eps"
        assert "largest privacy loss found" in out and f"verdict: {verdict}" in out
        assert f"2*eta (Lemma 3) = {two_eta:g}" in out


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--algorithm", "ftl", "--epsilon", "1"], "--algorithm"),
        (["--algorithm", "rps", "--epsilon", "1", "--block", "12"], "--block"),
        (["--algorithm", "rps", "--epsilon", "-1"], "--epsilon"),
        (["--algorithm", "rps", "--epsilon", "1", "--method", "magic"], "--method"),
    ],
)
def test_cli_bad_input(capsys, args, flag):
    assert main(["audit", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "allowed" in err


# ------------------------------------------------------------------ grid and C1
SMALL_GRID = {
    "epsilons": [0.5],
    "K": [4],
    "blocks": [16],
    "algorithms": ["rps"],
    "negative_controls": NEGATIVE_CONTROLS,
    "exact": {"n_random": 100, "max_steps": 5},
    "sequence": {"K": [3], "horizon": 63, "n_random": 1},
    "statistical": {"algorithms": ["rps"], "K": [2], "runs": 2000},
}


def test_audit_grid_bytes_and_c1(tmp_path):
    from pathlib import Path

    from privdtol.analysis.claims.c1_privacy import check_c1

    (tmp_path / "agg").mkdir()
    paths = [tmp_path / "agg" / "privacy.parquet", tmp_path / "b.parquet"]
    for p in paths:
        assert main(["audit-grid", "--grid-json", json.dumps(SMALL_GRID), "--out", str(p)]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    import pandas as pd

    df = pd.read_parquet(paths[0])
    # C1 is a check like the others: privdtol check reads <agg-dir>/privacy.parquet
    out = tmp_path / "C1.json"
    config = Path(__file__).resolve().parents[1] / "config" / "smoke.yaml"
    assert (
        main(
            [
                "check",
                "--claim",
                "C1",
                "--config",
                str(config),
                "--agg-dir",
                str(tmp_path / "agg"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    c1 = json.loads(out.read_text())
    assert c1 == check_c1(df, inputs=[str(paths[0])])
    assert c1["verdict"] == "PASS" and c1["inputs"] == [str(paths[0])]
    assert {c["verdict"] for c in c1["cells"] if c["role"] == "negative_control"} == {"caught"}
    # a control that is not caught makes C1 FAIL
    weak = df.copy()
    weak.loc[weak.algorithm == "rps_data_prefix", "violation"] = False
    assert check_c1(weak)["verdict"] == "FAIL"
    assert (
        main(
            [
                "audit-grid",
                "--grid-json",
                json.dumps({"nope": 1}),
                "--out",
                str(tmp_path / "c.parquet"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "c.parquet").exists()


def test_laplace_quadrature_with_16_nodes_matches_40_to_rounding():
    """The audits' Laplace law uses 16 Gauss-Legendre nodes a segment: the same
    log-probabilities as 40 nodes to 1e-12 (absolute in log P, i.e. relative in P), on random
    sums and every eps the audits use."""
    from privdtol.privacy import mechanisms as mech

    rng = np.random.default_rng(7)
    fine = np.polynomial.legendre.leggauss(40)
    for K in (2, 3, 4, 8):
        for eps in (0.01, 0.1, 0.5, 2.0, 8.0):
            sums = rng.integers(0, 65, size=K).astype(float)
            ours = mech.laplace_noisy_min_logprob(sums, 2 / eps)
            nodes = mech._GL_NODES, mech._GL_WEIGHTS
            try:
                mech._GL_NODES, mech._GL_WEIGHTS = fine
                ref = mech.laplace_noisy_min_logprob(sums, 2 / eps)
            finally:
                mech._GL_NODES, mech._GL_WEIGHTS = nodes
            assert np.max(np.abs(ours - ref)) < 1e-12, (K, eps, sums)
