"""Tests of :mod:`privdtol.engine.exact.proof`: the exact terms of Lemmas 4-5 (Cesari &
Colomboni, Sections 5.3-5.4: sum_m F_m, its small- and large-gap parts, eq. (4)'s ratios,
sum_V, the drift of the potential, the bounds of eqs. (5)-(6) and Theorem 1) against closed
forms, ``support.proof_reference``'s enumeration, random walks and Monte Carlo; the ``lemmas``
command line."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from support import proof_reference as ref
from support.engine_laws import U

from privdtol.engine.exact import expected_regret
from privdtol.engine.exact.potential import expected_log_z
from privdtol.engine.exact.proof import (
    _eq4_ratios,
    _levels,
    _weighted,
    fmt_check,
    proof_terms,
    regret_limit,
    restricted_errors,
    selection_errors,
    sum_terms,
)
from privdtol.environments import (
    instance_means,
)


def test_regret_limit_charges_half_the_tail_bound_by_hand():
    """means (0, 1/2): E[Delta_(A_0)] = 1/4; F_1's block 0.1, the next 0.05, tail bound 0.02:
    lim Reg = 1/4 + 2 (0.1) + 4 (0.05 + 0.02/2) = 0.69; its error bound 2 (0.01) + 4 (0.001)
    + 2 (0.02) + 8 U (2 blocks) (0.69)."""
    sums = {
        "means": [0.0, 0.5],
        "blocks": [{"sum": 0.1, "error_bound": 0.01}, {"sum": 0.05, "error_bound": 0.001}],
        "tail_bound": 0.02,
    }
    value, err = regret_limit(sums)
    assert value == pytest.approx(0.69, rel=1e-14, abs=0)
    assert err == pytest.approx(0.064 + 16 * U * 0.69, rel=1e-14, abs=0)


def test_regret_limit_computes_in_double_precision_from_single_precision_means():
    """float32 means (0.1, 0.3, 0.7) with no block mass: the limit is E[Delta_(A_0)], the mean
    gap of the float32 values, worked out exactly with fractions (float32 arithmetic would be
    off by ~1e-8); its error bound is 8 U (1 block) times it."""
    means = np.array([0.1, 0.3, 0.7], dtype=np.float32)
    exact = [Fraction(float(x)) for x in means]
    a0 = float(sum(x - exact[0] for x in exact) / 3)
    sums = {"means": means, "blocks": [{"sum": 0.0, "error_bound": 0.0}], "tail_bound": 0.0}
    value, err = regret_limit(sums)
    assert value == pytest.approx(a0, rel=4 * U, abs=0)
    assert err == pytest.approx(8 * U * a0, rel=1e-12, abs=0)


def test_regret_limit_weighs_block_zero_twice_and_every_later_block_four_times():
    """means (0, 1/4, 1/2, 1): E[Delta_(A_0)] = 7/16; blocks 1/2, 1/4, 1/8 with errors 2^-10,
    2^-12, 2^-14; tail bound 2^-6: lim Reg = 7/16 + 2 (1/2) + 4 (1/4 + 1/8 + 2^-7) = 2.96875
    (dyadic, exact); error 2 (2^-10) + 4 (2^-12 + 2^-14) + 2 (2^-6) + 8 U (3 blocks) 2.96875."""
    blocks = [(0.5, 2.0**-10), (0.25, 2.0**-12), (0.125, 2.0**-14)]
    sums = {
        "means": [0, 0.25, 0.5, 1],
        "blocks": [{"sum": s, "error_bound": e} for s, e in blocks],
        "tail_bound": 2.0**-6,
    }
    value, err = regret_limit(sums)
    assert value == 2.96875
    want = 2.0**-9 + 4 * (2.0**-12 + 2.0**-14) + 2.0**-5
    assert err == pytest.approx(want + 24 * U * 2.96875, rel=1e-14, abs=0)


def test_sum_terms_reports_lemma5_and_theorem1_under_their_keys():
    """rps on deterministic (0.2, 0.9), eps = 1: K = 2, gap 0.7, eta = min(1/2, 1/8) = 1/8, so
    Lemma 5's bound is 200 ln 2/0.7 + 4 ln 2/(1/8) and Theorem 1's 1 + 800 ln 2/0.7 +
    16 ln 2/(1/8)."""
    out = sum_terms("rps", [0.2, 0.9], 1.0, "deterministic")["bounds"]
    ln2 = math.log(2.0)
    assert list(out) == ["lemma4", "lemma5", "eq5", "eq5_groups", "eq6", "drift", "theorem1"]
    assert out["lemma5"] == pytest.approx(200 * ln2 / 0.7 + 32 * ln2, rel=1e-12)
    assert out["theorem1"] == pytest.approx(1 + 800 * ln2 / 0.7 + 128 * ln2, rel=1e-12)


def test_levels_are_dyadic_in_the_smallest_gap_and_the_best_action_is_level_one():
    """Gap 1/8: Delta = 1/8 and 1/5 lie in [1/8, 1/4) (level 1), 1/4 and 0.49 in [1/4, 1/2)
    (level 2), 1/2 in [1/2, 1) (level 3); the best action (Delta = 0) is read as the smallest
    gap, so level 1, never log2(0)."""
    delta = np.array([0.0, 0.125, 0.2, 0.25, 0.49, 0.5])
    got = _levels(delta, 0.125)
    assert got.tolist() == [1, 1, 1, 2, 2, 3]


def _terms(**over):
    terms = {
        "algorithm": "rps",
        "K": 3,
        "gap": 0.25,
        "epsilon": 0.5,
        "regret_limit": 12.5,
        "regret": 11.0,
        "sum_F": 3.0,
        "small_gap": 1.0,
        "large_gap": 2.0,
        "sum_V": 2.5,
        "bounds": {"lemma4": 13.0, "lemma5": 30.0, "eq5": 40.0, "eq6": 50.0},
    }
    return {**terms, **over}


def test_fmt_check_prints_each_lemma_side_against_its_bound():
    """The CLI's line, written out by hand: Lemma 4's exact side is the limit of the regret
    when there is one (else Reg_T), each number in %.6g; a non-finite side is flagged."""
    head = "rps: K=3 gap=0.25 eps=0.5"
    tail = "Lemma 5 3 <= 30  eq.(5) 1 <= 40  eq.(6) 2 <= 2.5 <= 50"
    assert fmt_check(_terms()) == f"{head}  Lemma 4 12.5 <= 13  {tail}"
    assert fmt_check(_terms(regret_limit=None)) == f"{head}  Lemma 4 11 <= 13  {tail}"
    got = fmt_check(_terms(regret_limit=None, regret=math.inf))
    assert got == f"{head}  Lemma 4 inf <= 13  {tail} (not finite)"
    got = fmt_check(_terms(algorithm="rps_eta_logk", K=12, gap=1 / 3, epsilon=2.0))
    assert got.startswith("rps_eta_logk: K=12 gap=0.333333 eps=2  Lemma 4 12.5 <= 13")


def _det_f(m, gaps, eta=0.125):
    """F_m of a softmax on deterministic losses: sum_j Delta_j e^(-eta m Delta_j) / Z_m."""
    w = [math.exp(-eta * m * d) for d in gaps]
    return sum(d * x for d, x in zip(gaps, w, strict=True)) / sum(w)


def test_sum_terms_records_f_m_per_m_and_each_dyadic_block_by_hand():
    """rps (eta = 1/8) on deterministic (0.2, 0.9): P(A = 2 | m rounds) = 1/(1 + e^(0.0875 m)),
    so F_m = 0.7 / (1 + e^(0.0875 m)), whose law error bound (the closed form's) is
    0.7 P U (22 + 8 (0.0875 m)) + 0.7e-300; block r sums F over 2^(r-1)+1..2^r; the sum stops
    after block 9 (m <= 512), whose tail 0.7 e^(-513 (0.0875)) / (1 - e^(-0.0875)) is below
    1e-13 of the sum (block 8's, 0.7 e^(-257 (0.0875)) / (1 - e^(-0.0875)) ~ 1.5e-10, is not)."""
    out = sum_terms("rps", [0.2, 0.9], 1.0, "deterministic")
    x = 0.0875
    assert [list(f) for f in out["F"][:1]] == [["m", "value", "error_bound"]]
    ms = [f["m"] for f in out["F"]]
    assert ms[:4] == [1, 2, 3, 4] and ms == sorted(set(ms)) and ms[-1] <= 512
    for f in out["F"]:
        m = f["m"]
        p = 1 / (1 + math.exp(x * m))
        assert f["value"] == pytest.approx(0.7 * p, rel=1e-13)
        want = 0.7 * (p * U * (22 + 8 * x * m) + 1e-300)
        assert f["error_bound"] == pytest.approx(want, rel=1e-10)
    blocks = out["blocks"]
    assert [b["r"] for b in blocks] == list(range(10))
    assert [list(b) for b in blocks[:1]] == [["r", "sum", "error_bound"]]
    for r, b in enumerate(blocks):
        lo, hi = (1, 1) if r == 0 else ((1 << (r - 1)) + 1, 1 << r)
        want = sum(0.7 / (1 + math.exp(x * m)) for m in range(lo, hi + 1))
        assert abs(b["sum"] - want) <= b["error_bound"] + 1e-15 * want
        assert b["error_bound"] <= 1e-9 * out["sum_F"]  # REL_TOL of the sum so far
    tail = 0.7 * math.exp(-513 * x) / -math.expm1(-x)
    assert out["tail_bound"] == pytest.approx(tail, rel=1e-10)


def test_sum_terms_splits_small_and_large_gaps_with_the_summed_laws():
    """rps (eta = 1/8, 4 eta = 1/2) on deterministic (0.2, 0.3, 0.9): Delta = 0.1 is small-gap
    (level 1 of gap 0.1, group bound (32 ln 2 + 18) / 0.1), 0.7 large-gap. The sums over
    m >= 1 of F_m and of each part, summed directly in closed form to m = 6000 (the rest
    < e^(-75) / 0.0125), lie within their error bounds; n_small = n_large = 1."""
    out = sum_terms("rps", [0.2, 0.3, 0.9], 1.0, "deterministic")
    ms = np.arange(1, 6001)
    d1, d2 = 0.3 - 0.2, 0.9 - 0.2  # the gaps as the doubles give them
    w = np.exp(-0.125 * ms[:, None] * np.array([0.0, d1, d2]))
    P = w / w.sum(axis=1, keepdims=True)
    small, large = float(d1 * P[:, 1].sum()), float(d2 * P[:, 2].sum())
    assert (out["K"], out["gap"], out["eta"], out["eta_selection"]) == (3, d1, 0.125, 0.125)
    assert (out["n_small"], out["n_large"], out["env"]) == (1, 1, "deterministic")
    assert out["means"] == [0.2, 0.3, 0.9] and out["epsilon"] == 1.0
    err = out["error_bound"]
    for key, want in (("small_gap", small), ("large_gap", large), ("sum_F", small + large)):
        assert abs(out[key] - want) <= err[key] + 1e-12 * want, key
        assert err[key] <= 1e-7 * want, key
    (group,) = out["groups"]
    assert list(group) == ["level", "size", "sum", "bound", "error_bound"]
    assert (group["level"], group["size"]) == (1, 1)
    assert group["bound"] == pytest.approx((32 * math.log(2) + 18) / d1, rel=1e-14)
    assert abs(group["sum"] - small) <= group["error_bound"] + 1e-12 * small
    assert _det_f(1, [0.0, d1, d2]) == pytest.approx(out["F"][0]["value"], rel=1e-13)


def test_weighted_sums_every_range_and_half_the_tail_with_its_error_bound():
    """Three ranges of two groups, weights (1, 2): S w = (2, 1/2, 1/8), tail (1/2, 1/4) weighs
    1, charged as 1/2: value 2 + 1/2 + 1/8 + 1/2 = 3.125 (dyadic, exact); with E = 2^-10 S
    the error bound is sum E w = 2.625 (2^-10), plus 1/2 (half the tail), plus 4 U (3 ranges)
    3.125."""
    S = np.array([[1.0, 0.5], [0.25, 0.125], [0.0, 0.0625]])
    E = S * 2.0**-10
    value, err = _weighted(S, E, np.array([0.5, 0.25]), np.array([1.0, 2.0]))
    assert value == 3.125
    assert err == pytest.approx(2.625 * 2.0**-10 + 0.5 + 12 * U * 3.125, rel=1e-15, abs=0)


def test_weighted_sum_error_counts_one_rounding_per_range():
    """_weighted: value = sum_(r, g) w_g S[r, g] + w . tail / 2; its error bound adds the
    laws' errors, half the tail and 4 U per range (rows of S) times the value. Three ranges,
    two groups, all numbers dyadic (exact): S @ w = (1, 0.75, 0.5), w . tail / 2 = 0.25, so
    value = 2.5; error = 0.125 + 0.25 + 4 U x 3 x 2.5."""
    from privdtol.engine.exact.proof import _weighted

    S = np.array([[0.5, 0.25], [0.25, 0.25], [0.0, 0.25]])
    E = np.array([[0.0, 0.0625], [0.0, 0.0], [0.0, 0.0]])
    tail = np.array([0.0, 0.25])
    w = np.array([1.0, 2.0])
    value, err = _weighted(S, E, tail, w)
    assert value == 2.25 + 0.25
    assert err == 0.125 + 0.25 + 4 * U * 3 * 2.5


def test_eq4_ratios_keep_small_gap_laws_valued_to_ten_percent_in_m_order():
    """Gaps (0, 1/2, 1, 2), the last three small; laws at m = 1 and m = 4000 (the cache unordered):
    m = 1 keeps groups 1 (E = P/10 exactly, kept), 2 and 3; m = 4000 drops group 1 (E > P/10),
    group 2 (P = 0) and group 3, whose eq. (4) side 2 e^(-2000) underflows to 0; the best
    group is never small. Each ratio is P / (2 e^(-m Delta^2/8)), its upper end (P + E) / that."""
    spec = SimpleNamespace(delta=np.array([0.0, 0.5, 1.0, 2.0]), mixed=lambda P, E: (P, E))
    cache = {
        4000: (np.array([0.9, 0.5, 0.0, 0.2]), np.array([0.0, 0.06, 0.0, 0.0])),
        1: (np.array([0.3, 0.5, 0.125, 0.0625]), np.array([0.0, 0.05, 0.0, 0.001])),
    }
    small = np.array([False, True, True, True])
    out, hi = _eq4_ratios(spec, SimpleNamespace(cache=cache), small)
    rhs = [2 * math.exp(-(d**2) / 8) for d in (0.5, 1.0, 2.0)]
    np.testing.assert_allclose(out, [0.5 / rhs[0], 0.125 / rhs[1], 0.0625 / rhs[2]], rtol=1e-15)
    np.testing.assert_allclose(hi, [0.55 / rhs[0], 0.125 / rhs[1], 0.0635 / rhs[2]], rtol=1e-15)
    out, hi = _eq4_ratios(spec, SimpleNamespace(cache=cache), np.array([False, False, True, True]))
    np.testing.assert_allclose(out, [0.125 / rhs[1], 0.0625 / rhs[2]], rtol=1e-15)


def test_restricted_errors_are_the_gap_of_the_best_and_large_gap_softmax():
    """rps (eta = 1/8, 4 eta = 1/2) on deterministic (0.2, 0.3, 0.9, 0.9): the restricted
    instance drops the small gap 0.1 and keeps (0.2, 0.9, 0.9), d = 0.9 - 0.2.  V_0 = 2d/3
    (uniform A_0), error 4 U V_0; V_m = 2d e^(-m d/8) / (1 + 2 e^(-m d/8)), error
    2d (P U (22 + m d) + 1e-300) + 4 U V_m (the closed-form law's bound), also at m = 1 alone;
    none large-gap: zeros."""
    d = 0.9 - 0.2
    ms = [0, 1, 5]
    V, E = restricted_errors("rps", [0.2, 0.3, 0.9, 0.9], 1.0, ms, "deterministic")
    assert V[0] == pytest.approx(2 * d / 3, rel=1e-15)
    assert E[0] == pytest.approx(4 * U * 2 * d / 3, rel=1e-12)
    for k, m in enumerate(ms[1:], 1):
        p = math.exp(-m * d / 8) / (1 + 2 * math.exp(-m * d / 8))
        assert V[k] == pytest.approx(2 * d * p, rel=1e-13)
        want = 2 * d * (p * U * (22 + m * d) + 1e-300) + 4 * U * 2 * d * p
        assert E[k] == pytest.approx(want, rel=1e-10)
    p1 = math.exp(-d / 8) / (1 + 2 * math.exp(-d / 8))
    V, _ = restricted_errors("rps", [0.2, 0.3, 0.9, 0.9], 1.0, 1, "deterministic")
    assert V.tolist() == [pytest.approx(2 * d * p1, rel=1e-13)]  # m = 1 alone
    V, E = restricted_errors("rps", [0.2, 0.3], 1.0, ms, "deterministic")
    assert V.tolist() == [0.0] * 3 and E.tolist() == [0.0] * 3


def test_sum_terms_reports_eq4_ratios_sum_v_and_every_bound_by_hand():
    """rps (eta = 1/8) on deterministic (0.2, 0.3, 0.9), gaps d1 = 0.1, d2 = 0.7 (as doubles):
    eq. (4)'s ratio P(A = 2 | m) / (2 e^(-m d1^2/8)) at every m of the F records, its max and
    median; sum_V = d2/2 (V_0 of the restricted (0.2, 0.9)) + sum_(m>=1) d2 / (1 + e^(m d2/8))
    (summed to m = 2000, rest < e^(-175)); the bounds of Lemmas 4-5 and eqs. (5)-(6) at K = 3:
    1 + 4 sum_F, 200 ln 3/d1 + 32 ln 3, 200 ln 3/d1, (64 ln 4 + 36)/d1, 32 ln 3, the drift's
    32 ln 2 (one large-gap action), Theorem 1's 1 + 800 ln 3/d1 + 128 ln 3."""
    out = sum_terms("rps", [0.2, 0.3, 0.9], 1.0, "deterministic")
    d1, d2 = 0.3 - 0.2, 0.9 - 0.2
    ms = np.array([f["m"] for f in out["F"]], dtype=float)
    w1, w2 = np.exp(-ms * d1 / 8), np.exp(-ms * d2 / 8)
    ratios = w1 / (1 + w1 + w2) / (2 * np.exp(-ms * d1**2 / 8))
    assert out["max_ratio_eq4"] == pytest.approx(ratios.max(), rel=1e-12)
    assert out["median_ratio_eq4"] == pytest.approx(np.median(ratios), rel=1e-12)
    assert 0 <= out["error_bound"]["max_ratio_eq4"] <= 1e-12 * ratios.max()
    m = np.arange(1, 2001)
    sum_v = d2 / 2 + float((d2 / (1 + np.exp(m * d2 / 8))).sum())
    assert abs(out["sum_V"] - sum_v) <= out["error_bound"]["sum_V"] + 1e-13 * sum_v
    assert out["error_bound"]["sum_V"] <= 1e-8 * sum_v
    ln3 = math.log(3)
    want = {
        "lemma4": 1 + 4 * out["sum_F"],
        "lemma5": 200 * ln3 / d1 + 32 * ln3,
        "eq5": 200 * ln3 / d1,
        "eq5_groups": (64 * math.log(4) + 36) / d1,
        "eq6": 32 * ln3,
        "drift": 32 * math.log(2),
        "theorem1": 1 + 800 * ln3 / d1 + 128 * ln3,
    }
    assert out["bounds"] == pytest.approx(want, rel=1e-14)
    assert list(out["error_bound"]) == [
        "sum_F",
        "small_gap",
        "large_gap",
        "sum_V",
        "max_ratio_eq4",
        "drift",
    ]


def test_sum_terms_without_a_large_gap_reports_no_v_sum_and_no_drift():
    """rps (eta = 1/8, 4 eta = 1/2) on deterministic (0.2, 0.3): the only gap 0.1 is small,
    so the large-gap part, sum_V, its error and the drift bound are 0, the drift record None."""
    out = sum_terms("rps", [0.2, 0.3], 1.0, "deterministic")
    assert (out["n_small"], out["n_large"], out["sum_V"], out["large_gap"]) == (1, 0, 0.0, 0.0)
    assert out["drift"] is None and out["bounds"]["drift"] == 0.0
    assert out["error_bound"]["sum_V"] == 0.0 and out["error_bound"]["drift"] is None


ETA = 0.125  # rps at eps = 1: eta = min(eps/2, 1/8)


def _hand_drift(eta: float, delta: float):
    """(log Z_m, gap(m)) of one large-gap action on deterministic losses by hand:
    x_m = e^(-eta m Delta), log Z_m = log(1 + x_m), V_m = Delta x_m / (1 + x_m) and the drift
    gap(m) = log Z_(m+1) - log Z_m + (eta/4) V_m (Lemma 5's proof: gap <= 0)."""

    def lz(m):
        return math.log1p(math.exp(-eta * m * delta))

    def gap(m):
        x = math.exp(-eta * m * delta)
        return lz(m + 1) - lz(m) + eta / 4 * delta * x / (1 + x)

    return lz, gap


def test_drift_at_a_small_temperature_matches_the_hand_potential():
    """The drift inequality E log Z_(m+1) - E log Z_m + (eta/4) E V_m <= 0 (Lemma 5's proof),
    rps at eps = 0.01 (eta = 0.005), deterministic means (0.2, 0.7): Delta = 0.5 > 4 eta, so
    the one other action is large-gap; x_m = e^(-eta m Delta), log Z_m = log(1 + x_m), V_m =
    Delta x_m / (1 + x_m). At this eta even m = 4096 has x_m ~ 4e-5: every m's gap is far
    above the error bound, so the maximum is the hand maximum."""
    from privdtol.engine.exact.proof import DRIFT_MS, _drift

    eta, delta = 0.005, 0.5

    _, gap = _hand_drift(eta, delta)

    drift = _drift("rps", [0.2, 0.7], 0.01, "deterministic", eta)
    want = max(DRIFT_MS, key=gap)
    assert want == 4096 and -1e-7 < gap(want) < -5e-8
    e = drift["error_bound"]
    assert 0 <= e <= 1e-12
    assert drift["at_m"] == want
    # (eta/5 in place of eta/4 would move the gap at m = 4096 by (eta/20) V_m ~ 4.5e-9)
    assert abs(drift["max_gap"] - gap(want)) <= e + 1e-15


def test_drift_compares_each_checkpoint_with_the_next_round():
    """The drift inequality E log Z_(m+1) - E log Z_m + (eta/4) E V_m <= 0 (Lemma 5's proof) on
    m = 0..4 and 2^k (k <= 12); deterministic means (0.2, 0.9): one large-gap action
    (Delta = 0.7 > 4 eta), x_m = e^(-eta m Delta), log Z_m = log(1 + x_m), V_m = Delta x_m /
    (1 + x_m). The record's maximum is the hand maximum up to its error bound, and <= 0."""
    from privdtol.engine.exact.proof import DRIFT_MS, sum_terms

    delta = 0.7
    drift = sum_terms("rps", [0.2, 0.9], 1.0, "deterministic")["drift"]

    lz, gap = _hand_drift(ETA, delta)

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


def test_sum_terms_reports_the_drift_error_bound():
    """The record's error_bound carries the drift's error bound under "drift" (read by the
    proof table); deterministic (0.2, 0.9) at eps = 1: one large-gap action, so a drift."""
    from privdtol.engine.exact.proof import sum_terms

    terms = sum_terms("rps", [0.2, 0.9], 1.0, "deterministic")
    assert terms["drift"] is not None
    e = terms["error_bound"]
    assert set(e) == {"sum_F", "small_gap", "large_gap", "sum_V", "max_ratio_eq4", "drift"}
    assert e["drift"] == terms["drift"]["error_bound"] and 0 <= e["drift"] <= 1e-12


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
    from privdtol.pipeline.proof import flat_row

    per_action = ref.deterministic_sum_f(DELTAS, ETA)
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

    # as the consumer reads them: the proof table's row
    terms = proof_terms("rps", MEANS, 1.0, 1000, "deterministic", regret=(1.0, 0.0), sums=sums)
    row = flat_row({"cell_id": "c", "cell": {"instance": "hand", "mu_best": 0.2}, **terms})
    ratio = max(s / g["bound"] for s, g in zip(per_action[1:], groups, strict=True))
    assert abs(row["groups_max_ratio"] - ratio) <= row["groups_max_ratio_err"] <= 1e-7 * ratio
    assert abs(row["sum_F"] - sum_f) <= row["sum_F_err"] == err


@pytest.mark.parametrize("k", [20, 40])
def test_lemma_5s_sum_reaches_its_tail_at_tiny_gaps(k):
    """sum_(m >= 1) F_m of rps at K = 2 on deterministic losses, eps = 1 (eta = 1/8), gap
    Delta = 2^-k: F_m = Delta / (1 + e^(c m)), c = eta Delta, and by Euler-Maclaurin
    sum_(m >= 1) f(m) = int_0^oo f - f(0)/2 - f'(0)/12 + O(Delta c^3)
                     = ln 2/eta - Delta/4 + Delta c/48 (to 1e-50 here).
    At Delta = 2^-40 the sum's mass lies near m ~ 1/c = 2^43: the m-sum must run through the
    blocks up to 2^62 (R_MAX) and stop only when its rest is below 1e-13 of it (STOP), so the
    error bound stays near 1e-9 of the sum."""
    from privdtol.engine.exact.proof import sum_terms

    gap = 2.0**-k
    s = sum_terms("rps", [0.5 - gap / 2, 0.5 + gap / 2], 1.0, "deterministic")
    ref = 8 * np.log(2) - gap / 4 + gap * (gap / 8) / 48
    err = s["error_bound"]["sum_F"]
    assert abs(s["sum_F"] - ref) <= err + 1e-12
    assert err <= 1e-8 * ref
    assert s["tail_bound"] <= 1e-12 * ref


@pytest.mark.parametrize(
    "algorithm, means, epsilon",
    [
        ("rps", (0.3, 0.4, 0.4, 0.7), 0.0625),  # small and large gaps: the restricted pass too
        ("rps_short_prefix", (0.45, 0.5, 0.5), 4.0),  # its prefix ranges are not the dyadic ones
    ],
)
def test_sums_reusing_the_regret_laws_match_sums_computed_alone(algorithm, means, epsilon):
    """The pipeline's proof terms reuse the averager of the cell's exact regret
    (regret_and_averager): the same sums, within the error bounds, as computed from scratch."""
    from privdtol.engine.exact import expected_regret, regret_and_averager
    from privdtol.engine.exact.proof import sum_terms

    reg, _, avg = regret_and_averager(algorithm, means, epsilon, [(1 << 20) - 1])
    alone_reg, _ = expected_regret(algorithm, means, epsilon, [(1 << 20) - 1])
    assert reg[0] == alone_reg[0]  # the regret itself is computed as before
    shared, alone = (
        sum_terms(algorithm, means, epsilon, base=avg),
        sum_terms(algorithm, means, epsilon),
    )
    for key in ("sum_F", "small_gap", "large_gap", "sum_V"):
        tol = shared["error_bound"][key] + alone["error_bound"][key] + 1e-300
        assert abs(shared[key] - alone[key]) <= tol, key
    assert shared["sum_F"] > 0 and len(shared["F"]) >= len(alone["F"]) // 2


def test_sums_refuse_the_averager_of_another_instance():
    from privdtol.engine.exact import regret_and_averager
    from privdtol.engine.exact.proof import sum_terms

    _, _, avg = regret_and_averager("rps", (0.4, 0.6), 1.0, [1023])
    with pytest.raises(ValueError, match="another instance"):
        sum_terms("rps", (0.4, 0.7), 1.0, base=avg)


#: the tolerances against the references: exact values within the library's error bound +
#: REL_EXACT relative; the walks within REL_WALK relative; Monte Carlo within Z_MC standard errors
REL_EXACT, REL_WALK, Z_MC = 1e-12, 1e-6, 4.0


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


# brute-force enumeration


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


# K = 2 and K = 3 random walks


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


# Monte Carlo, and the inequalities themselves


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


def test_lemma_inequalities_hold_on_three_levels():
    _check_inequalities(terms("rps", (0.2, 0.5, 0.8), 8.0), np.array([0.2, 0.5, 0.8]))


# the command line


REL_IDENTITY = 1e-9


# ------------------------------------------------------------ Lemma 4's block accounting
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


# --------------------------------------------------------------- the paper's inequalities
INEQ_CASES = [
    ("standard", 8, 0.1, 1.0),
    ("staircase", 8, 0.05, 8.0),
    ("standard", 4, 2.0**-4, 1 / 16),
    ("staircase", 16, 2.0**-5, 0.5),
    ("standard", 8, 2.0**-7, 8.0),  # the control's instance: Lemma 4 holds with slack ~1
]


@pytest.mark.slow
@pytest.mark.parametrize("instance, K, gap, eps", INEQ_CASES)
def test_lemma_inequalities_hold_for_rps(instance, K, gap, eps):
    means = instance_means(K, gap, None, instance)
    _check_inequalities(terms("rps", tuple(means), eps), means)


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


#: rps_uniform_mix's proof instance: deterministic (0.2, 0.3, 0.9), eps = 1 (eta = 1/8): gap
#: 0.1 <= 4 eta = 1/2 small, gap 0.7 large; mean gap (0.1 + 0.7)/3 = 4/15
MIX_MEANS, M_MAX = [0.2, 0.3, 0.9], (1 << 40) - 1


@functools.lru_cache(maxsize=1)
def _mix_and_rps():
    return (
        proof_terms("rps_uniform_mix", MIX_MEANS, 1.0, env="deterministic"),
        proof_terms("rps", MIX_MEANS, 1.0, env="deterministic"),
    )


def test_uniform_mix_sums_are_the_softmax_sums_plus_the_uniform_term_up_to_two_to_the_forty():
    """rps_uniform_mix (gamma = 1/16) on MIX_MEANS: each m-sum is 15/16 of rps's plus the uniform
    term gamma (sum of the part's gaps)/K summed over m = 1..2^40 - 1: Lemma 5's
    (1/16)(0.8/3)(2^40 - 1) = (2^40 - 1)/60 = 18325193796.25, the small-gap part's
    (2^40 - 1)/480 = 2290649224.53125, the large-gap part's 7 (2^40 - 1)/480 =
    16034544571.71875; the group H_1 = {0.1} as the small part; every F_m = 15/16 of rps's +
    1/60; each a certified lower value (the true sums are infinite) far above its bound."""
    mix, rps = _mix_and_rps()
    assert mix["uniform_mix"] == 1 / 16 and mix["sum_m_max"] == M_MAX == 1099511627775
    assert rps["uniform_mix"] == 0.0 and rps["sum_m_max"] is None
    uniform = {"sum_F": 18325193796.25, "small_gap": 2290649224.53125}
    uniform["large_gap"] = 16034544571.71875
    assert uniform["sum_F"] == M_MAX / 60 and uniform["small_gap"] == M_MAX / 480
    for key, extra in uniform.items():
        want = 15 / 16 * rps[key] + extra
        err = mix["error_bound"][key]
        assert abs(mix[key] - want) <= err + 15 / 16 * rps["error_bound"][key] + 4e-15 * want
        # the error bound: rps's, scaled, plus rounding of order 1e-15 of the value
        scaled = 15 / 16 * rps["error_bound"][key]
        assert scaled <= err <= scaled + 1e-13 * mix[key]
    assert mix["sum_F"] > 1e6 * mix["bounds"]["lemma5"]
    assert mix["small_gap"] > 1e6 * mix["bounds"]["eq5"]
    assert mix["large_gap"] > 1e7 * mix["bounds"]["eq6"]
    assert mix["bounds"] == rps["bounds"] | {"lemma4": 1 + 4 * mix["sum_F"]}
    (g,) = mix["groups"]
    assert g["sum"] == mix["small_gap"] and g["bound"] == rps["groups"][0]["bound"]
    assert [f["m"] for f in mix["F"]] == [f["m"] for f in rps["F"]]
    for fm, fr in zip(mix["F"], rps["F"], strict=True):
        assert fm["value"] == pytest.approx(15 / 16 * fr["value"] + 1 / 60, rel=4e-16, abs=0)
        assert fm["error_bound"] >= 15 / 16 * fr["error_bound"]


def test_uniform_mix_blocks_reach_two_to_the_forty_and_sum_to_the_lower_value():
    """The ranges of m of rps_uniform_mix run up to the one holding 2^40 - 1 (r = 40, the
    m in 2^39 + 1..2^40 - 1): 41 blocks, block r's sum 15/16 of rps's (0 beyond rps's last) +
    (1/60) n_r, n_0 = 1, n_r = 2^(r-1), n_40 = 2^39 - 1; the blocks plus half the tail bound
    (15/16 of rps's) are sum_F."""
    mix, rps = _mix_and_rps()
    assert len(mix["blocks"]) == 41 < len(rps["blocks"]) + 41
    n = [1] + [1 << (r - 1) for r in range(1, 40)] + [(1 << 39) - 1]
    assert sum(n) == M_MAX
    for r, block in enumerate(mix["blocks"]):
        soft = rps["blocks"][r]["sum"] if r < len(rps["blocks"]) else 0.0
        assert block["r"] == r
        assert block["sum"] == pytest.approx(15 / 16 * soft + n[r] / 60, rel=1e-15, abs=0)
    assert mix["tail_bound"] == pytest.approx(15 / 16 * rps["tail_bound"], rel=1e-15)
    total = math.fsum(b["sum"] for b in mix["blocks"]) + mix["tail_bound"] / 2
    assert total == pytest.approx(mix["sum_F"], rel=1e-14)


def test_uniform_mix_keeps_the_softmax_potential_and_has_no_regret_limit():
    """sum_V, the drift and the restricted instance are the softmax component's (rps's): the
    mixture breaks the step P <= Q (its large-gap part exceeds sum_V); its Reg_T grows
    linearly, (15/16) Reg_T(rps) + T (4/15)/16 = (15/16) Reg_T(rps) + T/60 at T = 2^40 - 1,
    so it has no limit (None) and Lemma 4's left side is Reg_T."""
    mix, rps = _mix_and_rps()
    assert mix["sum_V"] == rps["sum_V"] and mix["drift"] == rps["drift"]
    assert mix["large_gap"] > 1e9 * mix["sum_V"]
    assert mix["regret_limit"] is None and mix["error_bound"]["regret_limit"] is None
    assert rps["regret_limit"] is not None
    want = 15 / 16 * rps["regret"] + M_MAX / 60
    assert mix["regret"] == pytest.approx(want, rel=1e-14)
    assert mix["error_bound"]["regret"] >= 15 / 16 * rps["error_bound"]["regret"]


def test_uniform_mix_selection_errors_are_the_mixed_laws_gaps():
    """F_m of rps_uniform_mix at single m: 15/16 of rps's + 1/60 (deterministic MIX_MEANS);
    Bernoulli (0.4, 0.6), eps = 0.5: 15/16 of rps's + (1/16)(0.2/2) = + 1/160."""
    ms = [1, 7, 300]
    F, E = selection_errors("rps_uniform_mix", MIX_MEANS, 1.0, ms, "deterministic")
    R, RE = selection_errors("rps", MIX_MEANS, 1.0, ms, "deterministic")
    np.testing.assert_allclose(F, 15 / 16 * R + 1 / 60, rtol=4e-16)
    assert (E >= 15 / 16 * RE).all() and (E <= 15 / 16 * RE + 1e-15).all()
    F, _ = selection_errors("rps_uniform_mix", [0.4, 0.6], 0.5, ms)
    R, _ = selection_errors("rps", [0.4, 0.6], 0.5, ms)
    np.testing.assert_allclose(F, 15 / 16 * R + 1 / 160, rtol=1e-14)


def test_proof_terms_refuse_the_sums_of_another_mixture():
    """The sums of rps (gamma = 0) given for rps_uniform_mix (same temperature) are refused:
    a caller's cache keyed by the temperature alone must not pass them on."""
    sums = sum_terms("rps", MIX_MEANS, 1.0, "deterministic")
    with pytest.raises(ValueError, match="another selection"):
        proof_terms("rps_uniform_mix", MIX_MEANS, 1.0, env="deterministic", sums=sums)


def test_eq4_ratios_of_the_uniform_mix_use_its_mixed_law():
    """eq. (4)'s ratio for rps_uniform_mix is of its selection's law: on MIX_MEANS (K = 3, the
    small gap 0.1), a law 0.3 of the softmax at m = 1 is (15/16) 0.3 + 1/48 = 0.3020833...,
    against 2 e^(-0.1^2/8); its upper end adds (15/16) of the error 0.01 (and rounding)."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec("rps_uniform_mix", MIX_MEANS, 1.0, "deterministic")
    cache = {1: (np.array([0.5, 0.3, 0.2]), np.array([0.0, 0.01, 0.0]))}
    small = np.array([False, True, False])
    out, hi = _eq4_ratios(spec, SimpleNamespace(cache=cache), small)
    rhs = 2 * math.exp(-((0.3 - 0.2) ** 2) / 8)
    np.testing.assert_allclose(out, [(0.28125 + 1 / 48) / rhs], rtol=1e-15)
    np.testing.assert_allclose(hi, [(0.28125 + 1 / 48 + 0.009375) / rhs], rtol=1e-14)
