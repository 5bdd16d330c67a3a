"""Tests of :mod:`privdtol.core.lower_bound`: the deterministic instance's closed form pinned to
literals computed separately (decimal arithmetic, 50 digits), a Bernoulli instance against the
plain reference of tests/support/lower_bound_reference.py (exact binomial tails), the monotone
sandwich against the round-by-round sum, monotonicity, horizon-freeness, every bad input, and
an import that leaves scipy.stats unimported."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from support import lower_bound_reference as ref

from privdtol.core import lower_bound as lb
from privdtol.errors import InputError

H40 = (1 << 40) - 1
PARTS = ("statistical", "privacy", "combined", "two_point", "best")


# ------------------------------------------------------------------ the deterministic instance
#: mu = gap = 1: privacy_T = sum_(j < min(T, N)) (1 - e^(j ε)/K), N = ceil(log K / ε), computed
#: term by term with decimal at 50 digits; statistical_T = s_1 = 1 - log 2 / log K
DETERMINISTIC = [
    # K, ε, T, privacy_T, statistical_T
    (2, 0.5, 3, 0.67563936464993593, 0.0),
    (2, 0.5, H40, 0.67563936464993593, 0.0),
    (2, 0.1, 3, 1.3367131618820913, 0.0),
    (2, 0.1, H40, 2.1804513737281360, 0.0),
    (4, 0.5, 3, 1.6582492252102067, 0.5),
    (4, 0.5, H40, 1.6582492252102067, 0.5),
    (4, 0.1, 3, 2.1683565809410456, 0.5),
    (4, 0.1, H40, 6.7375361393937770, 0.5),
    (16, 0.5, 3, 2.6645623063025517, 0.75),
    (16, 0.5, H40, 4.1612348606792899, 0.75),
    (16, 0.1, 3, 2.7920891452352614, 0.75),
    (16, 0.1, H40, 18.821698233163194, 0.75),
]


@pytest.mark.parametrize("K, eps, T, privacy, statistical", DETERMINISTIC)
def test_the_deterministic_instance_matches_its_closed_form(K, eps, T, privacy, statistical):
    row = lb.lower_bound(K, 1.0, 1.0, eps, [T]).iloc[0]
    assert row["privacy"] == pytest.approx(privacy, rel=1e-12, abs=1e-15)
    assert row["statistical"] == pytest.approx(statistical, rel=1e-12, abs=1e-15)
    assert row["combined"] == pytest.approx(privacy, rel=1e-12)  # p_t >= s_t on this instance
    assert row["exact"] and row["combined_error"] == row["privacy_error"] == 0.0


def test_the_deterministic_privacy_sum_is_about_log_k_minus_one_over_epsilon():
    """The geometric sum N - (e^(N ε) - 1) / ((e^ε - 1) K) is (log K - 1)/ε + O(1)."""
    K, eps = 1 << 20, 1e-3
    got = lb.lower_bound(K, 1.0, 1.0, eps, [H40]).iloc[0]["privacy"]
    assert abs(got - (math.log(K) - 1) / eps) < 2


# ----------------------------------------------------------------------- a Bernoulli instance
def test_a_bernoulli_instance_matches_the_reference():
    """K = 4, mu = 3/4, gap = 1/2, ε = 1/2: every round summed, against exact binomial tails."""
    want = ref.sums(4, Fraction(3, 4), Fraction(1, 2), 0.5, 12)
    row = lb.lower_bound(4, 0.75, 0.5, 0.5, [12]).iloc[0]
    for part in PARTS:
        assert row[part] == pytest.approx(want[part], rel=1e-9), part
        assert row[f"{part}_error"] == 0.0
    assert row["exact"]
    assert want["statistical"] < want["privacy"] == want["combined"]  # the privacy term wins


@pytest.mark.parametrize(
    "K, mu, gap, eps",
    [
        (4, Fraction(3, 4), Fraction(1, 2), 0.5),
        (16, Fraction(17, 32), Fraction(1, 16), 0.25),
        (4, Fraction(1), Fraction(1), 0.5),  # p_4 = 1 - e^1.5/4: its minimum is at d = 3 > d*
    ],
)
def test_the_per_round_terms_match_the_reference(K, mu, gap, eps):
    """Negative values included: p_t's minimum over d may lie beyond log K / ε."""
    t = np.arange(1, 401)
    s = lb.statistical_term(K, float(mu), float(gap), t)
    p = lb.privacy_term(K, float(mu), float(gap), eps, t)
    want_s = [ref.statistical(K, mu, gap, int(x)) for x in t]
    want_p = [ref.privacy(K, gap, eps, int(x)) for x in t]
    np.testing.assert_allclose(s, want_s, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(p, want_p, rtol=1e-12, atol=1e-14)
    assert (p < 0).any() and (s < 0).any()  # both cross 0 within these rounds


def test_a_mixed_instance_matches_the_reference_where_statistics_wins_later():
    want = ref.sums(16, Fraction(17, 32), Fraction(1, 16), 0.25, 400)
    row = lb.lower_bound(16, 17 / 32, 1 / 16, 0.25, [400]).iloc[0]
    for part in PARTS:
        assert row[part] == pytest.approx(want[part], rel=1e-9), part
    assert want["privacy"] < want["statistical"] < want["combined"]


def test_kl_is_accurate_for_a_small_gap():
    getcontext().prec = 50
    gap = Decimal(2) ** -20
    p, q = Decimal(1) / 2 + gap / 2, Decimal(1) / 2 - gap / 2
    want = q * (q / p).ln() + (1 - q) * ((1 - q) / (1 - p)).ln()
    assert lb.kl_gap(float(p), float(gap)) == pytest.approx(float(want), rel=1e-12)
    assert lb.kl_gap(0.5, 0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert lb.kl_gap(1.0, 0.5) == math.inf


# ---------------------------------------------------------------------------- the sandwich
SANDWICH = (16, Fraction(129, 256), Fraction(1, 128), 0.125)  # zero from round ~17000 on
SANDWICH_HORIZONS = [1000, 5000, 20000]


@pytest.fixture(scope="module")
def sandwich_truth():
    K, mu, gap, eps = SANDWICH
    return [ref.sums(K, mu, gap, eps, T) for T in SANDWICH_HORIZONS]


@pytest.mark.parametrize("ratio", [None, 2.0**-4])
def test_the_sandwich_contains_the_round_by_round_sum(sandwich_truth, monkeypatch, ratio):
    """Summed exactly to round 100 only, the rest by ranges (the module's ratio, and a coarse
    one): the reference's round-by-round sum lies in [certified, certified + error]."""
    if ratio is not None:
        monkeypatch.setattr(lb, "RANGE_RATIO", ratio)
    K, mu, gap, eps = SANDWICH
    got = lb.lower_bound(K, float(mu), float(gap), eps, SANDWICH_HORIZONS, exact_limit=100)
    assert not got["exact"].any()
    slack = 1e-12
    for row, want in zip(got.itertuples(), sandwich_truth, strict=True):
        for part in PARTS:
            low, err = getattr(row, part), getattr(row, f"{part}_error")
            assert low * (1 - slack) <= want[part] <= (low + err) * (1 + slack), (row, part)
            if ratio is None:
                assert err <= 1e-3 * low, (row, part)
    assert got["combined_error"].iloc[-1] > 0  # the ranges were used, not single rounds


def test_a_pipeline_cell_has_a_relative_width_below_one_in_a_thousand():
    got = lb.lower_bound(4096, 0.5 + 2**-7, 2**-6, 1 / 64, [(1 << k) - 1 for k in range(1, 41)])
    assert (got["combined_error"] > 0).any() and not got["exact"].iloc[-1]
    for part in PARTS:
        assert (got[f"{part}_error"] <= 1e-3 * got[part]).all(), part


# ------------------------------------------------------------- monotonicity, horizon-freeness
@pytest.mark.parametrize(
    "K, mu, gap, eps",
    [(8, 0.5 + 2**-6, 2**-5, 0.25), (1024, 0.5 + 2**-9, 2**-8, 1 / 32), (3, 1.0, 1.0, 2.0)],
)
def test_the_terms_decrease_and_the_sums_grow(K, mu, gap, eps):
    t = np.unique(np.geomspace(1, 3e5, 600).astype(np.int64))
    s, p = lb.statistical_term(K, mu, gap, t), lb.privacy_term(K, mu, gap, eps, t)
    assert (s[1:] <= s[:-1]).all()  # -inf from round 2 on for mu = 1
    assert (p[1:] <= p[:-1] + 1e-12).all()
    got = lb.lower_bound(K, mu, gap, eps, [(1 << k) - 1 for k in range(1, 41)])
    for part in PARTS:
        assert (np.diff(got[part]) >= 0).all(), part
    assert (got["combined"] >= np.maximum(got["statistical"], got["privacy"])).all()
    assert (got["combined"] <= got["statistical"] + got["privacy"] + 1e-12).all()


def test_the_bound_is_constant_once_the_terms_vanish():
    """K = 64, mu = 9/16, gap = 1/8, ε = 1/2: s_t and p_t are <= 0 from round ~500 on."""
    horizons = [600, 10**4, 10**8, H40]
    got = lb.lower_bound(64, 0.5625, 0.125, 0.5, horizons)
    assert got["exact"].all() and (got["combined_error"] == 0).all()
    for part in PARTS:
        assert got[part].nunique() == 1 and got[part].iloc[0] > 0, part
    assert lb.statistical_term(64, 0.5625, 0.125, [600])[0] <= 0
    assert lb.privacy_term(64, 0.5625, 0.125, 0.5, [600])[0] <= 0


def test_horizons_are_returned_sorted_once_each():
    got = lb.lower_bound(4, 0.75, 0.5, 0.5, [12, 3, 12, 1])
    assert got["horizon"].tolist() == [1, 3, 12]
    assert list(got.columns) == [
        "horizon",
        *PARTS,
        *(f"{p}_error" for p in PARTS),
        "exact",
    ]
    assert got["combined"].iloc[0] == pytest.approx(0.5 * (1 - 1 / 4))  # gap * p_1


# ------------------------------------------------------------------------------- bad input
GOOD = dict(K=4, mu=0.75, gap=0.5, epsilon=0.5, horizons=[12])


@pytest.mark.parametrize(
    "change, field",
    [
        ({"K": 1}, "K"),
        ({"K": 2.5}, "K"),
        ({"K": "four"}, "K"),
        ({"K": True}, "K"),
        ({"gap": 0.0}, "gap"),
        ({"gap": 1.5}, "gap"),
        ({"gap": float("nan")}, "gap"),
        ({"mu": 0.25}, "mu"),  # mu < gap: the best action's mean would be negative
        ({"mu": 1.25}, "mu"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"horizons": [0]}, "horizon"),
        ({"horizons": [1 << 40]}, "horizon"),
        ({"horizons": [12.5]}, "horizon"),
        ({"horizons": []}, "horizon"),
    ],
)
def test_bad_input_names_its_field(change, field):
    with pytest.raises(InputError) as err:
        lb.lower_bound(**(GOOD | change))
    assert err.value.field == field
    assert "\n" not in str(err.value) and "allowed" in str(err.value)


def test_the_terms_reject_rounds_below_one():
    with pytest.raises(InputError, match=r"^t:"):
        lb.statistical_term(4, 0.75, 0.5, [0, 1])
    with pytest.raises(InputError, match=r"^t:"):
        lb.privacy_term(4, 0.75, 0.5, 0.5, [1, -3])


def test_two_point_term_is_a_geometric_series_pinned_by_hand():
    # mu = 3/4, gap = 1/2: kl(1/4 || 3/4) = kl(3/4 || 1/4) = (ln 3)/2, so b_t = 3^-(t-1)/4 and
    # gap * sum_t b_t = (1/2)(1/4)(1 - 3^-T)/(1 - 1/3) = (3/16)(1 - 3^-T)
    got = lb.lower_bound(2, 0.75, 0.5, 0.5, [1, 2, 5, 2**40 - 1])
    assert got["two_point"].tolist() == pytest.approx(
        [0.125, 0.1666666666666667, 0.18672839506172840, 0.1875], rel=1e-12
    )
    assert lb.two_point_term(2, 0.75, 0.5, [1, 3]).tolist() == pytest.approx([0.25, 0.25 / 9])
    # at K = 2 Fano's term is empty: the best bound takes the two-point term where it is larger
    assert got["statistical"].iloc[-1] == 0.0
    assert (got["best"] >= got[["combined", "two_point"]].max(axis=1) - 1e-15).all()


def test_the_privacy_term_is_shared_across_best_means_bit_for_bit(monkeypatch):
    """The privacy term does not depend on mu: lower bounds for several mu computed with the
    shared store equal those computed with an empty store each time, to the last bit, and the
    second mu computes no value of the first again."""
    mus, args = (0.3, 0.5, 0.9), (4, 2.0**-6, 1.0, [2**20 - 1, 2**40 - 1])
    fresh = []
    for mu in mus:
        lb._MIN_TERMS.clear()
        fresh.append(lb.lower_bound(args[0], mu, *args[1:]))
    lb._MIN_TERMS.clear()
    computed, real = [], lb._min_term
    monkeypatch.setattr(lb, "_min_term", lambda n, *a: computed.append(n.size) or real(n, *a))
    shared = [lb.lower_bound(args[0], mu, *args[1:]) for mu in mus]
    for a, b in zip(fresh, shared, strict=True):
        assert a.equals(b)
    first = sum(computed)
    assert first > 50 and len(lb._MIN_TERMS) == 1  # the rounds before p_t vanishes
    lb.lower_bound(args[0], 0.7, *args[1:])
    assert sum(computed) == first  # nothing new: the store had every n
    lb.lower_bound(args[0], 0.7, 2.0**-5, 1.0, [2**40 - 1])
    assert sum(computed) > first and len(lb._MIN_TERMS) == 2  # another gap: its own values


def test_the_shared_store_starts_again_when_full(monkeypatch):
    monkeypatch.setattr(lb, "MIN_TERMS_MAX", 10)
    lb._MIN_TERMS.clear()
    lb._min_term_shared(np.arange(20), 4, 0.25, 1.0)
    assert len(lb._MIN_TERMS[(4, 0.25, 1.0)]) == 20
    lb._min_term_shared(np.arange(3), 8, 0.25, 1.0)
    assert set(lb._MIN_TERMS) == {(8, 0.25, 1.0)}


def test_importing_the_module_does_not_import_scipy_stats():
    """Every `privdtol check` imports this module through the claims registry, and few compute
    p_t: scipy.stats (slow to import) is imported where p_t is computed, not at import."""
    import subprocess
    import sys

    code = "import sys, privdtol.core.lower_bound; print('scipy.stats' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("K", "gap", "eps", "top"),
    [(64, 0.125, 0.5, 2000), (16, 0.03125, 0.25, 5000), (1024, 0.5, 0.0625, 400)],
)
def test_the_privacy_terms_first_zero_is_the_first_round_a_scan_finds(K, gap, eps, top):
    """_first_zero_p's bracketing search (up to ZERO_GRID rounds a step) against a scan of
    p_t over every round 1..top; and top + 1 when p_t stays positive up to a top below it."""
    p = lb.privacy_term(K, 0.5 + gap / 2, gap, eps, np.arange(1, top + 1))
    first = int(np.argmax(p <= 0)) + 1
    assert p[first - 1] <= 0 < p[first - 2] and first > lb.ZERO_GRID  # a real search
    assert lb._first_zero_p(K, gap, eps, top) == first
    assert lb._first_zero_p(K, gap, eps, first - 1) == first
    assert lb._first_zero_p(K, gap, eps, first - 2) == first - 1
