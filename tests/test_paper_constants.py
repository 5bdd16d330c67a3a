"""The paper's numbers, pinned as literals written out by hand from its text.

Every expected value below was computed from the formula as the paper prints it (natural
logarithms), not from the package: a test that compares a function with itself cannot catch a
mistyped constant.  Sources (Cesari & Colomboni, arXiv 2605.29148):

- Section 4: eta = min(eps/2, 1/8); M_0 = 1, M_r ~ Unif{2^(r-1) + 1, ..., 2^r};
- Theorem 1, eq. (1): Reg_T <= 1 + 800 log K/Delta_min + 16 log K/eta;
- eq. (2): Reg_T <= 1000 (log K/Delta_min + log K/eps);
- the end of Section 5.4 (proof of eq. (2)): for eps <= 1/4, 16 log K/eta = 32 log K/eps and
  Reg_T <= 802 log K/Delta_min + 32 log K/eps; for eps > 1/4, eta = 1/8, 16 log K/eta =
  128 log K and Reg_T <= 930 log K/Delta_min;
- Lemma 3: each softmax selection is 2 eta-DP; Lemmas 4, 5 and eqs. (4)-(6);
- the competitors (DESIGN.md table, their modules' docstrings): Laplace or Gumbel noise of
  scale 2/eps, Decreasing Hedge eta_t = 2 sqrt(log K/t);
- the decision thresholds' defaults of the config schema's ``checks:`` block.
"""

from __future__ import annotations

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm
from privdtol.algorithms.hedge import DecreasingHedge
from privdtol.algorithms.rps import prefix_range
from privdtol.analysis.claims import c3_horizon_free
from privdtol.core import bounds, clock
from privdtol.pipeline.config import check_defaults
from privdtol.privacy.mechanisms import lemma3_bound

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


@pytest.mark.parametrize(
    ("name", "eps", "bound"),
    [
        ("rps", 1.0, 0.25),  # 2 eta, eta = 1/8
        ("rps", 0.1, 0.1),  # 2 eta = eps for eps <= 1/4
        ("rps_full_prefix", 0.2, 0.2),
        ("rps_uncapped", 1.0, 1.0),  # 2 (eps/2)
        ("wu_wang_gumbel", 0.3, 0.3),  # exponential mechanism, eta = eps/2
        ("rnm_ftnl", 0.3, 0.3),  # Laplace(2/eps), sensitivity 1 per coordinate
        ("wu_wang", 0.7, 0.7),
    ],
)
def test_lemma3_per_selection_bound(name, eps, bound):
    assert lemma3_bound(make_algorithm(name, eps)) == pytest.approx(bound, rel=REL)


def test_the_competitors_noise_scales_and_temperatures():
    for name in ("rnm_ftnl", "wu_wang", "wu_wang_gumbel"):
        assert make_algorithm(name, 0.5).noise_scale == 4.0  # 2/eps
        assert make_algorithm(name, 0.1).noise_scale == pytest.approx(20.0, rel=REL)
    assert make_algorithm("rps", 1.0).eta == 0.125
    assert make_algorithm("rps", 0.1).eta == pytest.approx(0.05, rel=REL)
    assert make_algorithm("rps_uncapped", 1.0).eta == 0.5
    # softmax(-eta S) at S = (0, 8), eta = 1/8, and Gumbel(2/eps = 1) at S = (0, 1):
    # (1/(1 + e^-1), e^-1/(1 + e^-1))
    law = [0.7310585786300049, 0.2689414213699951]
    rps = make_algorithm("rps", 1.0).law(np.array([[0.0, 8.0]]), 3)
    gumbel = make_algorithm("wu_wang_gumbel", 2.0).law(np.array([[0.0, 1.0]]), 3)
    np.testing.assert_allclose(rps[0], law, rtol=REL)
    np.testing.assert_allclose(gumbel[0], law, rtol=REL)


def test_hedge_learning_rate():
    """Decreasing Hedge (Mourtada & Gaiffas 2019): eta_t = 2 sqrt(log K/t)."""
    assert DecreasingHedge.learning_rate(10, 4) == pytest.approx(1.5174271293851465, rel=REL)
    assert DecreasingHedge.learning_rate(2, 1) == pytest.approx(1.6651092223153954, rel=REL)


def test_the_random_prefix_and_the_dyadic_clock():
    """M_0 = 1; M_r ~ Unif{2^(r-1) + 1, ..., 2^r}; the full-prefix ablation reads 2^r rounds;
    B_r = {2^r, ..., 2^(r+1) - 1}, so T = 10 has blocks of 1, 2, 4 and 3 rounds."""
    assert [prefix_range(r) for r in (0, 1, 2, 3, 10)] == [
        (1, 1),
        (2, 2),
        (3, 4),
        (5, 8),
        (513, 1024),
    ]
    rng = np.random.default_rng(0)
    m = make_algorithm("rps", 1.0).prefix_lengths(rng, 3, 4000)
    assert set(np.unique(m).tolist()) == {5, 6, 7, 8}
    full = make_algorithm("rps_full_prefix", 1.0).prefix_lengths(rng, 3, 5)
    np.testing.assert_array_equal(full, [8, 8, 8, 8, 8])
    np.testing.assert_array_equal(clock.block_lengths(10), [1, 2, 4, 3])
    np.testing.assert_array_equal(clock.checkpoints(10)[0], [1, 3, 7, 10])
    assert clock.block_start(5) == 32
    assert clock.MAX_HORIZON == 1099511627776


def test_the_decision_thresholds_defaults():
    """The schema's defaults of the ``checks:`` block, as registered before any result."""
    expected = {
        "confidence": 0.95,
        "power_replicates": 40,
        "agreement_z_max": 4,
        "agreement_min_events": 10,
        "horizon_free_ratio_max": 1.05,
        "horizon_free_c": 16,
        "plateau_octaves": 4,
        "rate_form_factor": 1.5,
        "exponent_range": [0.8, 1.2],
    }
    defaults = check_defaults()
    assert {k: defaults[k] for k in expected} == expected
    assert c3_horizon_free.PLATEAU_MARGIN == 256  # T0 <= T_max / 2^8
