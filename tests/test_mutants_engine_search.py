"""Guards found by mutation testing of the proof terms and the worst-case search
(``make mutation GROUPS=engine``, docs/testing.md), on deterministic losses, where every
selection law is a closed form: softmax(-eta m mu) of the atoms m mu_j (Section 4), so every
expected value below is a sum written out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

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


#: three small-gap actions (Delta <= 4 eta = 1/2) in the dyadic levels 1, 2, 3 of
#: Delta_min = 0.1: 0.1 in [0.1, 0.2), 0.25 in [0.2, 0.4), 0.45 in [0.4, 0.8)
MEANS = [0.2, 0.3, 0.45, 0.65]
DELTAS = [0.0, 0.1, 0.25, 0.45]


def test_sum_terms_groups_and_sum_f_carry_their_error_bounds():
    """Each dyadic group H_l's sum and sum_m F_m against the closed forms, within the error
    bounds the records carry (read by the proof table, pipeline.proof.flat_row, and the
    lemma5 objective of the worst-case search); the bounds of H_l by hand:
    (32 log(1 + 1) + 18) / (2^(l-1) x 0.1)."""
    from privdtol.engine.exact.proof import proof_terms, sum_terms
    from privdtol.engine.worst_case import Objective
    from privdtol.pipeline.proof import flat_row

    per_action = _sum_f(DELTAS)
    sums = sum_terms("rps", MEANS, 1.0, "deterministic")
    groups = sums["groups"]
    assert [g["level"] for g in groups] == [1, 2, 3] and [g["size"] for g in groups] == [1] * 3
    for g, want in zip(groups, per_action[1:], strict=True):
        assert set(g) == {"level", "size", "sum", "bound", "error_bound"}
        assert g["bound"] == pytest.approx((32 * math.log(2) + 18) / (0.1 * 2 ** (g["level"] - 1)))
        assert abs(g["sum"] - want) <= g["error_bound"] <= 1e-7 * want
    sum_f = math.fsum(per_action)
    err = sums["error_bound"]["sum_F"]
    assert abs(sums["sum_F"] - sum_f) <= err <= 1e-7 * sum_f

    # as the consumers read them: the proof table's row and the lemma5 objective
    terms = proof_terms("rps", MEANS, 1.0, 1000, "deterministic", regret=(1.0, 0.0), sums=sums)
    row = flat_row({"cell_id": "c", "cell": {"instance": "hand", "mu_best": 0.2}, **terms})
    ratio = max(s / g["bound"] for s, g in zip(per_action[1:], groups, strict=True))
    assert abs(row["groups_max_ratio"] - ratio) <= row["groups_max_ratio_err"] <= 1e-7 * ratio
    assert abs(row["sum_F"] - sum_f) <= row["sum_F_err"] == err
    f = Objective("rps", 4, 0.1, 1.0, "lemma5", "free", 1000, "deterministic")
    entry = f.at(np.array(MEANS))
    assert abs(entry["value"] - sum_f) <= entry["error_bound"] == err


def test_drift_compares_each_checkpoint_with_the_next_round():
    """The drift inequality E log Z_(m+1) - E log Z_m + (eta/4) E V_m <= 0 (Lemma 5's proof) on
    m = 0..4 and 2^k (k <= 12); deterministic means (0.2, 0.9): one large-gap action
    (Delta = 0.7 > 4 eta), x_m = e^(-eta m Delta), log Z_m = log(1 + x_m), V_m = Delta x_m /
    (1 + x_m). The record's maximum is the hand maximum up to its error bound, and <= 0."""
    from privdtol.engine.exact.proof import DRIFT_MS, sum_terms

    delta = 0.7
    drift = sum_terms("rps", [0.2, 0.9], 1.0, "deterministic")["drift"]

    def lz(m):
        return math.log1p(math.exp(-ETA * m * delta))

    def gap(m):
        x = math.exp(-ETA * m * delta)
        return lz(m + 1) - lz(m) + ETA / 4 * delta * x / (1 + x)

    assert DRIFT_MS == (0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
    assert drift["m_max"] == 4096 and drift["at_m"] in DRIFT_MS
    e = drift["error_bound"]
    assert 0 <= e <= 1e-12
    assert drift["max_gap"] <= 0
    assert abs(drift["max_gap"] - gap(drift["at_m"])) <= e
    assert all(gap(m) <= drift["max_gap"] + e for m in DRIFT_MS)
    assert gap(1) < -1e-3  # far from the edge at small m: a wrong neighbour shows
    for rec in drift["log_z"]:
        assert abs(rec["value"] - lz(rec["m"])) <= rec["error_bound"]


def _fake_regret(accurate: float):
    """An exact engine by hand: Reg = 2 at the standard instance (1/4, 3/4), else 3 at the
    search's tolerance and ``accurate`` at the engine's default (what a re-computation of a
    candidate ranked at the search tolerance may give)."""

    def fake(algorithm, means, epsilon, horizons, env="bernoulli", tol=None):
        if np.allclose(means, [0.25, 0.75], rtol=0, atol=1e-15):
            value = 2.0
        else:
            value = 3.0 if tol is not None else accurate
        return np.array([value]), np.array([0.0])

    return fake


@pytest.mark.parametrize(("accurate", "standard_wins"), [(1.0, True), (2.5, False)])
def test_search_reranks_the_accurate_best_against_the_standard_instance(
    monkeypatch, accurate, standard_wins
):
    """Differential evolution ranks candidates at the search tolerance (all 3 here); the best,
    computed again accurately, is reported unless the standard instance (2) is larger: 1.0
    loses to it, 2.5 does not. Theorem 1's bound at K = 2, gap 1/2, eps = 1 by hand:
    1 + 800 log 2 / (1/2) + 16 log 2 / (1/8) = 1 + 1728 log 2."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret(accurate))
    res, trace = search("rps", 2, 0.5, 1.0, budget=4, horizon=1000, env="deterministic")
    bound = 1 + 1728 * math.log(2)
    assert res["bound"] == pytest.approx(bound, rel=1e-15)
    assert res["standard"] == {"means": [0.25, 0.75], "value": 2.0 / res["bound"]}
    assert max(t["ratio"] for t in trace) == 3.0 / res["bound"]  # ranked at the search tol
    want = 2.0 if standard_wins else accurate
    assert res["regret"] == want and res["value"] == want / res["bound"]
    assert (res["means"] == [0.25, 0.75]) is standard_wins


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


def test_objective_recomputes_a_search_tolerance_value_accurately(monkeypatch):
    """An instance cached at the search tolerance is computed again when the engine's default
    is asked for (and that accurate value then serves both), never the other way round."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import Objective

    calls, real = [], exact.expected_regret

    def spy(*args, **kw):
        calls.append(kw)
        return real(*args, **kw)

    monkeypatch.setattr(exact, "expected_regret", spy)
    f = Objective("rps", 2, 0.5, 1.0, "theorem1", "free", 1000, "deterministic")
    means = np.array([0.25, 0.75])
    f.tol = 1e-6
    assert f.at(means)["tol"] == 1e-6
    f.tol = None
    accurate = f.at(means)
    assert accurate["tol"] is None
    f.tol = 1e-6
    assert f.at(means) is accurate
    assert calls == [{"tol": 1e-6}, {}]
    reg = _det_regret(1000, 0.5)
    assert abs(accurate["value"] - reg) <= accurate["error_bound"] + 64 * U * reg
