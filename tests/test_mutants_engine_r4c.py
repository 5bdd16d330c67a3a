"""Guards for the engine's fourth fresh mutation sample (docs/testing.md, mutation testing) in
the proof terms of Lemmas 4-5 (:mod:`privdtol.engine.exact.proof`) and the exact cell's
Chernoff sums (:mod:`privdtol.engine.exact.spec`), Cesari & Colomboni Sections 4 and 5.3-5.4:
the dyadic levels of the gaps, the CLI's one-line check, Lemma 4's limit of the regret, the
per-m and per-block records of :func:`sum_terms`, and the geometric Chernoff sum's branch for
an exponent too small to divide by."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from privdtol.engine.exact.proof import (
    _eq4_ratios,
    _levels,
    _weighted,
    fmt_check,
    regret_limit,
    restricted_errors,
    sum_terms,
)
from privdtol.engine.exact.spec import _Spec

U = 2.0**-53


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


def test_chernoff_sum_of_an_exponent_below_1e300_is_n_times_the_bound_at_a():
    """rps (eta = 1/8) on Bernoulli means (0, 5e-300): group 1's per-round exponent,
    min over theta <= eta of log(1 + 5e-300 (e^(-theta) - 1)), is 5e-300 (e^(-1/8) - 1)
    ~ -5.9e-301, too small for the geometric ratio: the sum over m = a..a+n-1 is bounded by
    n e^(a x). At a = 10^303, a x = 5000 (e^(-1/8) - 1) ~ -587.5; the best group's sum is n."""
    spec = _Spec("rps", [0.0, 5e-300], 1.0, "bernoulli")
    bound = math.exp(5000 * math.expm1(-0.125))
    for n in (1, 10):
        got = spec.chernoff_sum(10**303, 10**303 + n - 1)
        assert got[0] == n
        assert got[1] == pytest.approx(n * bound, rel=1e-12)


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


def test_eq4_ratios_keep_small_gap_laws_valued_to_ten_percent_in_m_order():
    """Gaps (0, 1/2, 1, 2), the last three small; laws at m = 1 and m = 4000 (the cache unordered):
    m = 1 keeps groups 1 (E = P/10 exactly, kept), 2 and 3; m = 4000 drops group 1 (E > P/10),
    group 2 (P = 0) and group 3, whose eq. (4) side 2 e^(-2000) underflows to 0; the best
    group is never small. Each ratio is P / (2 e^(-m Delta^2/8)), its upper end (P + E) / that."""
    spec = SimpleNamespace(delta=np.array([0.0, 0.5, 1.0, 2.0]))
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


MEANS8 = [0.25, 0.5, 0.75, 0.75, 0.5, 0.5, 1.0, 0.5]


@pytest.mark.parametrize(
    ("algorithm", "softmax", "scale", "det", "random_prefix"),
    [
        ("rps", True, 0.125, True, True),  # eta = min(eps/2, 1/8)
        ("rps_full_prefix", True, 0.125, True, False),
        ("rps_uncapped", True, 0.25, True, True),  # eta = eps/2
        ("rps_eta_logk", True, 0.125 / 3, True, True),  # min(eps/2, 1/8) / log2(8)
        ("rps_eta_sq", True, 0.125, True, True),  # eps^2/2
        ("rps_short_prefix", True, 0.125, True, False),
        ("wu_wang_gumbel", True, 0.25, False, False),  # Gumbel(2/eps): eps/2, resampled
        ("rnm_ftnl", False, 4.0, True, False),  # Laplace(2/eps) on atoms
        ("wu_wang", False, 4.0, False, False),  # resampled losses: never atoms
    ],
)
def test_spec_groups_equal_means_and_reads_the_rule_of_each_algorithm(
    algorithm, softmax, scale, det, random_prefix
):
    """K = 8 deterministic means with groups 0.25 (best, 1), 0.5 (4), 0.75 (2), 1 (1) at
    eps = 1/2: the sorted group means, float sizes, gaps, K and each action's group; the
    rule's temperature or Laplace scale (the other None), atoms unless resampled, the random
    prefix of the RPS family. A softmax's per-round exponent on atoms is -eta Delta (theta =
    eta, the grid's end), with no penalty; Laplace's penalty is -2 log(1 - (theta b)^2) on
    its theta grid (theta b from 1e-12 to 400/401)."""
    spec = _Spec(algorithm, MEANS8, 0.5, "deterministic")
    assert spec.mu.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert spec.ns.dtype == np.float64 and spec.ns.tolist() == [1.0, 4.0, 2.0, 1.0]
    assert spec.delta.tolist() == [0.0, 0.25, 0.5, 0.75] and spec.K == 8
    assert spec.inv.tolist() == [0, 1, 2, 2, 1, 1, 3, 1]
    assert (spec.softmax, spec.det, spec.random_prefix) == (softmax, det, random_prefix)
    if softmax:
        assert spec.eta == pytest.approx(scale, rel=1e-15) and spec.b is None
        if det:
            np.testing.assert_allclose(spec.lmgf[:, 0], -scale * spec.delta, rtol=1e-15)
        assert spec.lmgf.shape == (4, 1) and spec.pen.tolist() == [0.0]
    else:
        assert spec.b == scale and spec.eta is None
        # theta b: 400 interior points of [0, 1] and 599 geometric ones in [1e-12, 0.999)
        assert spec.pen.shape == (999,) and spec.lmgf.shape == (4, 999)
        assert spec.pen.min() == pytest.approx(-2 * math.log1p(-(1e-12**2)), rel=1e-12)
        assert spec.pen.max() == pytest.approx(-2 * math.log1p(-((400 / 401) ** 2)), rel=1e-12)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("hedge", [0.2, 0.5], 1.0, "bernoulli"), "unsupported algorithm/env 'hedge'/'bernoulli'"),
        (("rps", [0.2, 0.5], 1.0, "gaussian"), "unsupported algorithm/env 'rps'/'gaussian'"),
        (("rps", [0.5], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [[0.2, 0.5]], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [-0.01, 0.5], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [0.2, 1.01], 1.0, "bernoulli"), "means: need K >= 2 values in [0, 1]"),
        (("rps", [0.2, 0.5], 0.0, "bernoulli"), "epsilon must be a finite number > 0"),
        (("rps", [0.2, 0.5], math.inf, "bernoulli"), "epsilon must be a finite number > 0"),
        (("rps", [0.2, 0.5], math.nan, "bernoulli"), "epsilon must be a finite number > 0"),
        (("rps", [0.2, 0.2, 0.5], 1.0, "bernoulli"), "means: no unique best action"),
    ],
)
def test_spec_refuses_each_invalid_instance_with_its_message(args, message):
    """Each refusal of an exact cell, with its exact sentence; the ends 0 and 1 of the means
    and a tiny eps are allowed, and a softmax's eta override replaces its temperature."""
    with pytest.raises(ValueError) as err:
        _Spec(*args)
    assert str(err.value) == message
    assert _Spec("rps", [0.0, 1.0], 1e-9, "bernoulli").eta == 0.5e-9
    assert _Spec("rps", [0.0, 1.0], 1.0, "bernoulli", eta=0.01).eta == 0.01


def test_spec_refuses_an_eta_override_of_a_laplace_rule():
    """report-noisy-min has a noise scale, no temperature to override."""
    with pytest.raises(ValueError) as err:
        _Spec("rnm_ftnl", [0.2, 0.5], 1.0, "bernoulli", eta=0.1)
    assert str(err.value) == "'rnm_ftnl' is not a softmax rule: no eta to override"


def test_sum_terms_without_a_large_gap_reports_no_v_sum_and_no_drift():
    """rps (eta = 1/8, 4 eta = 1/2) on deterministic (0.2, 0.3): the only gap 0.1 is small,
    so the large-gap part, sum_V, its error and the drift bound are 0, the drift record None."""
    out = sum_terms("rps", [0.2, 0.3], 1.0, "deterministic")
    assert (out["n_small"], out["n_large"], out["sum_V"], out["large_gap"]) == (1, 0, 0.0, 0.0)
    assert out["drift"] is None and out["bounds"]["drift"] == 0.0
    assert out["error_bound"]["sum_V"] == 0.0 and out["error_bound"]["drift"] is None
