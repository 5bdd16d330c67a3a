"""Tests of :mod:`privdtol.core.bounds`: Theorem 1's bound (eq. (1)), its simplified form eq. (2),
the other bound shapes and the steps of the proof (Lemmas 4-5, eqs. (4)-(6)), pinned to
hand-computed literals; and the verdicts of the Theorem 1 check against them."""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.core import bounds


def _objects(*values):
    return np.array(values, dtype=object)


def test_lower_shape_of_an_object_column_with_none_is_nan():
    """A table column with gaps (dtype object, None for a missing value) gives NaN in that row,
    as every other bound does, not the TypeError of ``np.minimum`` comparing None with a
    float."""
    out = bounds.lower_shape(10, _objects(0.5, None), _objects(0.1, 0.1))
    assert out.dtype == float
    assert out[0] == pytest.approx(np.log(10) / 0.1, rel=1e-12)
    assert np.isnan(out[1])
    out = bounds.lower_shape(10, _objects(0.5, 0.5), _objects(0.1, None))
    assert np.isnan(out[1])


def test_lower_shape_propagates_a_nan_gap_in_an_object_column():
    """On an object column ``np.minimum(nan, 0.5)`` is 0.5 (the comparison with NaN is False),
    which would silently make a missing gap log K / eps (2.77 for K = 4, eps = 0.5); converted
    to float it is NaN, as for a float column."""
    out = bounds.lower_shape(4, _objects(np.nan, 0.5), _objects(0.5, np.nan))
    assert np.isnan(out).all()
    floats = bounds.lower_shape(4, np.array([np.nan, 0.5]), np.array([0.5, np.nan]))
    assert np.isnan(floats).all()


#: each bound of core/bounds.py with scalar arguments (values pinned below)
BOUND_ARGS = {
    "eta": (0.5,),
    "theorem1": (10, 0.5, 0.1),
    "corollary": (10, 0.5, 0.1),
    "rate": (10, 0.5, 0.1),
    "lower_shape": (10,),  # K only: its gap and eps are tested by test_lower_shape_* above
    "wu_wang_shape": (10, 0.5, 0.1),
    "small_gap": (0.3, 0.125),
    "lemma4": (2.5,),
    "lemma5": (10, 0.5, 0.05),
    "eq4": (8, 0.5),
    "group_bound": (3, 2, 0.1),
    "eq5_groups": (10, 0.5),
    "eq5": (10, 0.5),
    "eq6": (10, 0.05),
    "drift": (9, 0.05),
}


#: the full arguments of a bound whose BOUND_ARGS vary only some of them
FULL_ARGS = {"lower_shape": (10, 0.5, 0.1)}


@pytest.mark.parametrize(
    ("name", "position"), [(n, i) for n, args in BOUND_ARGS.items() for i in range(len(args))]
)
def test_bounds_accept_object_columns_with_missing_values(name, position):
    """A table column of dtype object (Python numbers and None, as pandas gives for a column
    with gaps) is converted to float: None becomes NaN, not a TypeError."""
    args = list(FULL_ARGS.get(name, BOUND_ARGS[name]))
    scalar = getattr(bounds, name)(*args)
    args[position] = np.array([args[position], None], dtype=object)
    out = np.asarray(getattr(bounds, name)(*args), dtype=float)
    assert out[0] == pytest.approx(float(scalar), rel=1e-12)
    if name == "small_gap":
        assert out[1] == 0.0  # NaN <= x is False
    else:
        assert np.isnan(out[1])


#: relative tolerance of a literal against the formula: rounding only
REL = 1e-12


#: (K, Delta_min, eps, eta, Theorem 1 (1), eq. (2)); by hand, log = natural log:
#: e.g. K=2, Delta=0.1, eps=1: eta = 1/8, 1 + 800 log 2/0.1 + 16·8 log 2 = 5634.900283591235
CASES = [
    (2, 0.1, 1.0, 0.125, 5634.900283591235, 7624.6189861593975),
    (10, 0.5, 0.1, 0.05, 4421.963378548568, 27631.021115928546),
    (1000, 0.01, 0.25, 0.125, 553505.6149942806, 718406.5490141422),
    (2, 1.0, 0.01, 0.005, 2773.5887222397814, 70007.86523655448),
    (64, 0.05, 0.3, 0.125, 67075.46636842478, 97040.60527839232),
]


@pytest.mark.parametrize(("K", "gap", "eps", "eta", "thm1", "eq2"), CASES)
def test_theorem1_and_eq2_match_the_paper(K, gap, eps, eta, thm1, eq2):
    assert bounds.eta(eps) == pytest.approx(eta, rel=REL)
    assert bounds.theorem1(K, gap, eps) == pytest.approx(thm1, rel=REL)
    assert bounds.corollary(K, gap, eps) == pytest.approx(eq2, rel=REL)
    assert bounds.rate(K, gap, eps) == pytest.approx(eq2 / 1000, rel=REL)
    assert thm1 <= eq2  # eq. (2) follows from eq. (1)


def test_theorem1_broadcasts_over_arrays():
    K, gap, eps, _, thm1, _ = (np.array(col) for col in zip(*CASES, strict=True))
    np.testing.assert_allclose(bounds.theorem1(K, gap, eps), thm1, rtol=REL)


def test_eta_is_min_of_half_eps_and_one_eighth():
    eps = np.array([0.01, 0.1, 0.2, 0.25, 0.26, 0.3, 1.0, 8.0])
    np.testing.assert_array_equal(
        bounds.eta(eps), [0.005, 0.05, 0.1, 0.125, 0.125, 0.125, 0.125, 0.125]
    )


#: (K, Delta, eps, 802 log K/Delta + 32 log K/eps), eps <= 1/4 (the proof's first case)
SMALL_EPS = [
    (10, 0.5, 0.1, 4430.173718920544),
    (1000, 0.01, 0.25, 554886.1660500771),
    (2, 1.0, 0.01, 2773.975016600901),
]


#: (K, Delta, eps, 930 log K/Delta), eps > 1/4 (the proof's second case)
LARGE_EPS = [(2, 0.1, 1.0, 6446.268779207491), (64, 0.05, 0.3, 77355.22535048988)]


@pytest.mark.parametrize(("K", "gap", "eps", "split"), SMALL_EPS)
def test_proof_of_eq2_small_eps_case(K, gap, eps, split):
    """eps <= 1/4: eta = eps/2, 16 log K/eta = 32 log K/eps, and with 1 <= 2 log K/Delta the
    bound (1) is at most 802 log K/Delta + 32 log K/eps, itself at most eq. (2)."""
    assert 16 * np.log(K) / bounds.eta(eps) == pytest.approx(32 * np.log(K) / eps, rel=REL)
    assert bounds.theorem1(K, gap, eps) <= split <= bounds.corollary(K, gap, eps)


@pytest.mark.parametrize(("K", "gap", "eps", "split"), LARGE_EPS)
def test_proof_of_eq2_large_eps_case(K, gap, eps, split):
    """eps > 1/4: eta = 1/8, 16 log K/eta = 128 log K <= 128 log K/Delta, so (1) is at most
    930 log K/Delta, itself at most eq. (2)."""
    assert 16 * np.log(K) / bounds.eta(eps) == pytest.approx(128 * np.log(K), rel=REL)
    assert bounds.theorem1(K, gap, eps) <= split <= bounds.corollary(K, gap, eps)


def test_the_two_terms_of_theorem1():
    """At K=10, eps=0.1 (eta = 0.05): the statistical term 800 log 10/Delta is 1842.068074395237
    at Delta=1 and twice that at Delta=1/2; the privacy term 16 log 10/0.05 = 736.8272297580947;
    so (1) is 1 + 1842.068074395237 + 736.8272297580947 at Delta=1."""
    t_half, t_one = bounds.theorem1(10, 0.5, 0.1), bounds.theorem1(10, 1.0, 0.1)
    assert t_half - t_one == pytest.approx(1842.068074395237, rel=1e-10)
    assert t_one == pytest.approx(2579.8953041533314, rel=REL)


def test_the_shapes_of_the_other_bounds():
    """Hu et al.'s lower shape log K/min(Delta, eps) and Wu & Wang's log K/Delta + log² K/eps."""
    assert bounds.lower_shape(10, 0.5, 0.1) == pytest.approx(23.025850929940457, rel=REL)
    assert bounds.lower_shape(2, 0.1, 1.0) == pytest.approx(6.931471805599452, rel=REL)
    assert bounds.wu_wang_shape(10, 0.5, 0.1) == pytest.approx(57.62415129077208, rel=REL)
    assert bounds.wu_wang_shape(1000, 0.01, 0.25) == pytest.approx(881.643859875436, rel=REL)


def test_the_proof_steps():
    """Lemma 4: 1 + 4 sum F; Lemma 5: 200 log K/Delta + 4 log K/eta; eq. (4): 2 exp(-m
    Delta²/8); the group bound (32 log(#H + 1) + 18)/(2^(l-1) Delta); its sum
    (64 log(K + 1) + 36)/Delta; eqs. (5), (6); the drift 4 log(1 + n)/eta; the split 4 eta."""
    assert bounds.lemma4(2.5) == 11.0
    assert bounds.lemma5(2, 0.1, 0.125) == pytest.approx(1408.4750708978088, rel=REL)
    assert bounds.lemma5(10, 0.5, 0.05) == pytest.approx(1105.240844637142, rel=REL)
    assert bounds.eq5(10, 0.5) == pytest.approx(921.0340371976183, rel=REL)
    assert bounds.eq6(10, 0.05) == pytest.approx(184.20680743952366, rel=REL)
    assert bounds.eq4(100, 0.2) == pytest.approx(1.2130613194252666, rel=REL)
    assert bounds.eq4(8, 1.0) == pytest.approx(0.7357588823428847, rel=REL)
    assert bounds.group_bound(3, 3, 0.1) == pytest.approx(155.90354888959124, rel=REL)
    assert bounds.eq5_groups(10, 0.5) == pytest.approx(378.93059491819145, rel=REL)
    assert bounds.drift(9, 0.05) == pytest.approx(184.20680743952366, rel=REL)
    assert bounds.SPLIT == 4
    np.testing.assert_array_equal(
        bounds.small_gap([0.3, 0.5, 0.50001, 0.9], 0.125), [True, True, False, False]
    )
