"""Tests of :mod:`privdtol.engine.exact`: the exact expected regret (Section 3 and the block
accounting of Lemma 4's proof, with equality) and block laws of every exact algorithm against
brute-force enumeration, closed forms and Monte Carlo (the controls here; every exact
algorithm's cells against Monte Carlo's through the pipeline in tests/cli/test_batch.py); the
block loop's stopping rule and error bound; the reuse of a law's last results; the engine's cost
estimate and refusals; the uniform mixture (rps_uniform_mix) against a round-by-round sum and
closed forms; the symmetry of every private exact algorithm in the actions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom
from support.engine_laws import U
from support.exact_k2 import deterministic_regret_k2

from privdtol.algorithms import ALGORITHMS, laplace_noisy_min_law, make_algorithm, softmax_law
from privdtol.algorithms.regret_controls import short_prefix
from privdtol.engine import exact
from privdtol.engine.exact import EXACT_ALGORITHMS, block_law, exact_available, expected_regret
from privdtol.engine.exact.spec import _Spec
from privdtol.environments import instance_means


def brute_block_law(algorithm: str, means, eps: float, r: int) -> np.ndarray:
    """P(A_(r+1) = j) by enumerating every vector of block-r sums (prefix m) with its
    product-Binomial probability and the algorithm's own selection law, averaged over M_r."""
    alg = make_algorithm(algorithm, eps)
    K, n = len(means), 1 << r
    support = [1] if r == 0 else list(range((n >> 1) + 1, n + 1))
    if algorithm in ("rps_full_prefix", "rnm_ftnl", "wu_wang", "wu_wang_gumbel"):
        support = [n]
    if algorithm == "rps_short_prefix":
        support = [short_prefix(r)]
    law = np.zeros(K)
    for m in support:
        pmfs = [binom.pmf(np.arange(m + 1), m, mu) for mu in means]
        for sums in itertools.product(range(m + 1), repeat=K):
            p = np.prod([pmfs[j][s] for j, s in enumerate(sums)])
            s = np.array(sums, dtype=float)[None, :]
            if algorithm in ("rnm_ftnl", "wu_wang"):
                sel = laplace_noisy_min_law(s[0], 2 / eps)
            else:  # softmax: the class's own law (its eta, eta_for(K), or eps/2)
                sel = alg.law(s, r)[0]
            law += p * sel / len(support)
    return law


LAPLACE = ("rnm_ftnl", "wu_wang")  # their reference is a quadrature: slow, blocks up to r = 2


@pytest.mark.parametrize(
    "algorithm, r",
    [
        pytest.param(a, r, marks=[pytest.mark.slow] if (a in LAPLACE and r == 2) else [])
        for a in EXACT_ALGORITHMS
        for r in (0, 2, 3)
        if not (r == 3 and a in LAPLACE)
    ],
)
def test_block_law_matches_brute_force_enumeration(algorithm, r):
    means = np.array([0.3, 0.5, 0.55])
    eps = 0.7
    got, err = block_law(algorithm, means, eps, r)
    want = brute_block_law(algorithm, means, eps, r)
    tol = 1e-9 if algorithm in LAPLACE else 1e-11  # quadrature reference
    np.testing.assert_allclose(got, want, atol=tol + err)
    assert abs(got.sum() - 1) < 1e-12


def test_short_prefix_regret_matches_brute_force_sum():
    """rps_short_prefix: Reg_T = sum_r |B_r ∩ [1, T]| sum_j Delta_j P(A_r = j) with every block
    law enumerated (A_r reads the first ceil(2^(2(r-1)/3)) rounds of block r - 1)."""
    means, eps, k_max = np.array([0.3, 0.5, 0.55]), 0.7, 7
    gaps = means - means.min()
    law = [brute_block_law("rps_short_prefix", means, eps, r - 1) for r in range(1, k_max)]
    per_round = [gaps.mean()] + [gaps @ p for p in law]  # A_0 uniform
    want = np.cumsum([(1 << r) * per_round[r] for r in range(k_max)])  # T = 2^k - 1
    horizons = (1 << np.arange(1, k_max + 1)) - 1
    got, err = expected_regret("rps_short_prefix", means, eps, horizons)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * want.max() + err.max())


CONTROLS = ("rps_eta_logk", "rps_eta_sq", "rps_short_prefix")


@pytest.mark.parametrize("algorithm", CONTROLS)
def test_controls_take_eta_and_prefix_from_their_class(algorithm):
    """rps_eta_logk / rps_eta_sq differ from rps only by eta, rps_short_prefix only by its
    deterministic prefix: with K = 2 and eta equal to rps's, their regret is rps's."""
    means = np.array([0.4, 0.6])
    horizons = (1 << np.arange(1, 11)) - 1
    if algorithm == "rps_short_prefix":  # n_0 = 1, n_1 = 2: the full prefix up to T = 7 ...
        got, _ = expected_regret(algorithm, means, 1.0, horizons[:3])
        want, _ = expected_regret("rps_full_prefix", means, 1.0, horizons[:3])
        assert expected_regret(algorithm, means, 1.0, [15])[0] > want[-1] + 1e-3  # n_2 = 3 < 4
    else:  # eta = min(eps/2, 1/8)/log2 2 = rps's; eps = 0.5: eps^2/2 = 1/8 = rps's
        eps = 0.5
        got, _ = expected_regret(algorithm, means, eps, horizons)
        want, _ = expected_regret("rps", means, eps, horizons)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("algorithm", CONTROLS)
def test_rps_family_controls_match_monte_carlo(algorithm):
    """The negative controls against the fast Monte Carlo engine (4 standard errors)."""
    from support.stats import assert_mean_close

    from privdtol.engine.fast import simulate
    from privdtol.environments import BernoulliProduct

    means, eps, k_max = np.array([0.35, 0.5, 0.55, 0.9]), 0.3, 12
    res = simulate(
        make_algorithm(algorithm, eps),
        BernoulliProduct(means),
        (1 << k_max) - 1,
        4000,
        {"test": "exact-controls", "algorithm": algorithm},
        mode="fast",
    )
    got, err = expected_regret(algorithm, means, eps, res.checkpoints)
    assert (err <= 1e-8 * got).all()
    for k in (3, 8, 12):
        assert_mean_close(res.regret[:, k - 1], got[k - 1], z=4.0)


@pytest.mark.parametrize("algorithm", ["rps_uniform_mix", "rps_hot"])
def test_mixed_and_hot_controls_match_monte_carlo(algorithm):
    """rps_uniform_mix (its regret from the linear formula) and rps_hot (rps's law at every
    eps) against the fast Monte Carlo engine (4 standard errors), at eps = 0.05, where
    rps_hot's eta = 4 is 160 times rps's."""
    from support.stats import assert_mean_close

    from privdtol.engine.fast import simulate
    from privdtol.environments import BernoulliProduct

    means, eps, k_max = np.array([0.35, 0.5, 0.55, 0.9]), 0.05, 12
    res = simulate(
        make_algorithm(algorithm, eps),
        BernoulliProduct(means),
        (1 << k_max) - 1,
        4000,
        {"test": "exact-controls", "algorithm": algorithm},
        mode="fast",
    )
    got, err = expected_regret(algorithm, means, eps, res.checkpoints)
    assert (err <= 1e-8 * got).all()
    for k in (3, 8, 12):
        assert_mean_close(res.regret[:, k - 1], got[k - 1], z=4.0)


CONTROL_ALGORITHMS = [n for n, c in ALGORITHMS.items() if c.role == "control"]
#: the controls of the RPS family: the exact engine computes them
RPS_FAMILY_CONTROLS = (
    "rps_eta_logk",
    "rps_eta_sq",
    "rps_short_prefix",
    "rps_uniform_mix",
    "rps_hot",
)


@pytest.mark.parametrize("name", CONTROL_ALGORITHMS)
def test_only_the_rps_family_controls_have_an_exact_engine(name):
    # uniform and ftl_egreedy are simulated; the RPS-family ones are exact
    assert exact_available(name, "bernoulli") == (name in RPS_FAMILY_CONTROLS)


def _uniform_mix_per_round_k2(mu1, mu2, eta, T, gamma=1 / 16):
    """Reg_T of rps_uniform_mix on Bernoulli (mu1, mu2), summed round by round: round t of
    block r = floor(log2 t) plays A_r; A_0 uniform; for r >= 1, P(A_r = 2) =
    (1 - gamma) E[P_(M_(r-1), 2)] + gamma/2, the softmax weight's expectation E[1/(1 +
    e^(eta D_m))] propagated exactly by support.exact_k2's random walk of D_m = L_(m,2) - L_(m,1),
    averaged over M_(r-1) ~ Unif{2^(r-2)+1..2^(r-1)} (M_0 = 1)."""
    from scipy.special import expit
    from support.exact_k2 import _walk_expectations

    gap = mu2 - mu1
    (p2,) = _walk_expectations(mu1, mu2, (T + 1) // 4, [lambda d, m: expit(-eta * d)])
    total = []
    for t in range(1, T + 1):
        r = t.bit_length() - 1
        if r == 0:
            p = 0.5
        else:
            lo, hi = (1, 1) if r == 1 else ((1 << (r - 2)) + 1, 1 << (r - 1))
            p = (1 - gamma) * math.fsum(p2[lo : hi + 1]) / (hi - lo + 1) + gamma / 2
        total.append(gap * p)
    return np.cumsum(total)


def test_uniform_mix_regret_matches_a_round_by_round_sum():
    """rps_uniform_mix on Bernoulli (0.4, 0.65), eps = 0.1 (eta = 0.05): the engine's
    Reg_T, (1 - gamma) Reg_T(rps) + gamma T Delta/2, against the round-by-round sum of
    :func:`_uniform_mix_per_round_k2` at every checkpoint up to 2^12 - 1; and it is not rps's."""
    T = (1 << 12) - 1
    want = _uniform_mix_per_round_k2(0.4, 0.65, 0.05, T)
    horizons = (1 << np.arange(1, 13)) - 1
    got, err = expected_regret("rps_uniform_mix", [0.4, 0.65], 0.1, horizons)
    np.testing.assert_allclose(got, want[horizons - 1], rtol=0, atol=1e-10 * want[-1] + err.max())
    rps, _ = expected_regret("rps", [0.4, 0.65], 0.1, horizons)
    # the uniform term gamma (T Delta/2 - Reg_T(rps)): 28.4 at T = 4095
    assert (got[1:] > rps[1:]).all() and got[-1] - rps[-1] > 25


def test_uniform_mix_deterministic_regret_by_hand():
    """rps_uniform_mix on deterministic (1/4, 3/4), eps = 1 (eta = 1/8), T = 7: blocks 0, 1, 2
    (1, 2, 4 rounds). A_0 uniform: 1/4; A_1 from m = 1: (15/16) (1/2)/(1 + e^(1/16)) + 1/64;
    A_2 from m = 2: (15/16) (1/2)/(1 + e^(1/8)) + 1/64 (Delta = 1/2, mean gap 1/4)."""
    a1 = (15 / 16) * 0.5 / (1 + math.exp(1 / 16)) + 1 / 64
    a2 = (15 / 16) * 0.5 / (1 + math.exp(1 / 8)) + 1 / 64
    got, err = expected_regret("rps_uniform_mix", [0.25, 0.75], 1.0, [1, 3, 7], "deterministic")
    want = [0.25, 0.25 + 2 * a1, 0.25 + 2 * a1 + 4 * a2]
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert (err > 0).all() and (err < 1e-14).all()
    P, e = block_law("rps_uniform_mix", [0.25, 0.75], 1.0, 0, "deterministic")
    np.testing.assert_allclose(P, [1 - a1 * 2, a1 * 2], rtol=1e-14)
    assert e < 1e-14


def test_rps_hot_is_the_uncapped_ablation_at_eight_whatever_eps():
    """rps_hot's eta is 4 at every eps: its regret is rps_uncapped's at eps = 8 (one law key,
    one computation), smaller than rps's at eps = 1/32 (eta 1/64) by a factor above 10."""
    means = instance_means(8, 1 / 8, None, "standard")
    hs = [(1 << 16) - 1]
    hot, _ = expected_regret("rps_hot", means, 1 / 32, hs)
    np.testing.assert_array_equal(hot, expected_regret("rps_uncapped", means, 8.0, hs)[0])
    assert key("rps_hot", 1 / 32, means=means) == key("rps_uncapped", 8.0, means=means)
    assert expected_regret("rps", means, 1 / 32, hs)[0][0] > 10 * hot[0]


def test_deterministic_losses_full_prefix_closed_form():
    """Deterministic losses, full prefix: block r+1 plays softmax(−η 2^r μ) exactly."""
    means = np.array([0.2, 0.5, 0.9])
    eps, r = 0.5, 5
    got, _ = block_law("rps_full_prefix", means, eps, r, env="deterministic")
    want = softmax_law((1 << r) * means[None, :], min(eps / 2, 1 / 8))[0]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.slow
def test_equal_means_cost_one_factor_and_huge_k_is_finite():
    from privdtol.environments import standard_means

    horizons = (1 << np.arange(1, 61, dtype=np.int64)) - 1  # T up to 2^60
    reg, err = expected_regret("rps", standard_means(1 << 16, 1 / 1024), 0.001, horizons)
    assert np.isfinite(reg).all() and np.isfinite(err).all()
    assert (np.diff(reg) >= -err[1:] - err[:-1]).all()  # regret never decreases
    assert reg[-1] == pytest.approx(reg[-2], rel=1e-9)  # horizon-free at 2^60


def test_regret_bound_adds_one_rounding_per_block_of_the_horizon():
    """rps_uncapped at eps = 200 (eta = 100), deterministic (1/4, 3/4): the Chernoff bound of
    A_1 is e^(-eta m Delta) = e^-50 (m = 1), so the tail of blocks r >= 1, ~2 (1/2) e^-50, is
    below 1e-16 of the regret so far (A_0's Delta/2 = 1/4) and the loop stops at once:
    Reg_T = 1/4 exactly. At T = 2^20 - 1 (R = 20 blocks) the bound is A_0's rounding 4 U (1/4)
    + the rounding of the sum over the R blocks 4 R U Reg_T + the skipped blocks' Chernoff
    bounds sum_r 2^r (1/2) e^(-50 min M_(r-1)) = e^-50 + ~e^-100: 21 U + e^-50."""
    from privdtol.engine import exact

    exact._RECENT.clear()
    reg, eb = exact.expected_regret(
        "rps_uncapped", [0.25, 0.75], 200.0, [(1 << 20) - 1], "deterministic"
    )
    exact._RECENT.clear()
    assert reg[0] == 0.25
    assert eb[0] == pytest.approx(21 * U + math.exp(-50.0), rel=1e-13, abs=0)


def _uncapped_block_tail():
    """rps_uncapped at eps = 16 (eta = 8), deterministic (1/4, 3/4), T = 511 (blocks 0..8):
    the closed form (Reg_511, [g_r]) of support.exact_k2; the Chernoff bound of A_r,
    gb_r = Delta e^(-eta min M_(r-1) Delta) = e^(-4 m) / 2, m = 2^(r-2) + 1 (r = 5..8); the
    tail sum_(r >= 5) 2^r gb_r; cum = g_0 + sum_(r < 5) 2^r g_r, the regret accumulated over
    blocks 0..4 (each g_r played 2^r times)."""
    reg, gs = deterministic_regret_k2(511, 0.5, 8.0)
    gb = {r: 0.5 * math.exp(-4 * ((1 << (r - 2)) + 1)) for r in range(5, 9)}
    tail = math.fsum(2**r * b for r, b in gb.items())
    cum = math.fsum([gs[0], *(g * 2**r for r, g in enumerate(gs) if 1 <= r < 5)])
    return reg, gs, gb, tail, cum


def test_regret_loop_bounds_a_block_against_the_regret_accumulated_so_far():
    """rps_uncapped at eps = 16 (eta = 8), deterministic (1/4, 3/4), T = 511 (_uncapped_block_tail):
    the loop bounds block 5 by its Chernoff bound (without
    computing it) iff its tail sum_(r >= 5) 2^r gb_r <= 1e-6 tol cum, cum = g_0 + sum_(r < 5)
    2^r g_r the regret accumulated over blocks 0..4 (each g_r played 2^r times). tol is set
    between that edge and the edge of A_0's g_0 = 1/4 alone (cum / g_0 = 1.08): block 5 is
    bounded, so its bound 32 gb_5 enters the error bound, which covers the closed form; the
    tolerance passed is the one used (at the default 1e-10 block 5 is computed)."""

    from privdtol.engine import exact

    reg, gs, gb, tail, cum = _uncapped_block_tail()
    assert gs[0] == 0.25 and 1.07 < cum / gs[0] < 1.09
    tol = tail / (1e-6 * math.sqrt(cum * gs[0]))
    exact._RECENT.clear()
    got, eb = exact.expected_regret("rps_uncapped", [0.25, 0.75], 16.0, [511], "deterministic", tol)
    exact._RECENT.clear()
    assert abs(got[0] - reg) <= eb[0] + 16 * U * reg
    assert eb[0] >= 32 * gb[5]


def test_regret_loop_stops_against_the_regret_accumulated_so_far():
    """rps_uncapped at eps = 16 (eta = 8), deterministic (1/4, 3/4), T = 511 (blocks 0..8):
    the Chernoff bound of A_r is e^(-eta min M_(r-1) Delta) = e^(-4 m), m = 9 at r = 5. The
    loop ends at block 5 iff its tail sum_(r >= 5) 2^r gb_r <= 1e-6 tol sum_(r < 5) 2^r g_r;
    tol is set between that edge and the edge of twice the accumulated sum (A_r is played
    2^r times, not 2^(r+1)): block 5 is then computed, so its Chernoff bound 32 gb_5 does not
    enter the error bound, which still covers the closed form."""
    from privdtol.engine import exact

    reg, gs, gb, tail, cum = _uncapped_block_tail()
    cum2 = math.fsum([gs[0], *(g * 2 ** (r + 1) for r, g in enumerate(gs) if 1 <= r < 5)])
    tol = tail / (1e-6 * math.sqrt(cum * cum2))  # between the two edges (cum2 / cum = 1.07)
    exact._RECENT.clear()
    got, eb = exact.expected_regret("rps_uncapped", [0.25, 0.75], 16.0, [511], "deterministic", tol)
    assert abs(got[0] - reg) <= eb[0] + 16 * U * reg
    assert eb[0] < 32 * gb[5]  # 3.7e-15: block 5 computed, not bounded
    exact._RECENT.clear()


def test_regret_error_bound_is_positive_at_a_subnormal_scale_regret():
    """Means (0, 1e-300), T = 1: only A_0 (uniform) is played, so Reg_1 = Delta / 2 = 5e-301
    exactly; the relative terms of the bound are ~1e-315 and the floor 1e-300 keeps it a
    nonnegative bound that covers any rounding at this scale."""
    from privdtol.engine import exact

    exact._RECENT.clear()
    reg, eb = exact.expected_regret("rps", [0.0, 1e-300], 1.0, [1], "deterministic")
    assert reg[0] == 5e-301
    assert 1e-300 <= eb[0] <= 1.01e-300
    exact._RECENT.clear()


MEANS = instance_means(8, 1 / 8, None, "standard")


HORIZONS = [(1 << k) - 1 for k in range(1, 21)]


def key(algorithm, eps, env="bernoulli", means=MEANS):
    return _Spec(algorithm, means, eps, env).law_key()


def test_the_key_joins_the_same_law():
    # resampled Bernoulli losses have the law of the observed ones (Wu & Wang)
    assert key("wu_wang", 0.5) == key("rnm_ftnl", 0.5)
    # eta = min(eps/2, 1/8) (Section 4): 1/8 from eps = 1/4 on
    assert key("rps", 0.25) == key("rps", 8.0)
    # rps_uncapped: eta = eps/2, which is rps's below eps = 1/4
    assert key("rps_uncapped", 0.125) == key("rps", 0.125)
    # rps_hot: eta = 1/8 at every eps
    assert key("rps_hot", 0.01) == key("rps_uncapped", 8.0)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("wu_wang", 0.5, "deterministic"), ("rnm_ftnl", 0.5, "deterministic")),  # atoms
        (("rnm_ftnl", 0.5), ("rnm_ftnl", 0.25)),  # Laplace scale 2/eps
        (("rps", 0.125), ("rps", 0.0625)),  # eta = eps/2
        (("rps_uncapped", 8.0), ("rps", 8.0)),  # eta 4 against 1/8
        (("rps", 1.0), ("rps_full_prefix", 1.0)),  # prefix rule
        (("rps", 1.0), ("rps_short_prefix", 1.0)),  # prefix rule
        (("rps", 1.0), ("rps_eta_logk", 1.0)),  # eta / log K
        (("rps", 1.0), ("wu_wang_gumbel", 0.25)),  # eta 1/8 both, another prefix rule
        (("rps", 1.0), ("rps_uniform_mix", 1.0)),  # mixed with the uniform law
        (("rps", 0.01), ("rps_hot", 0.01)),  # eta 1/200 against 1/8
    ],
)
def test_the_key_separates_different_laws(a, b):
    assert key(*a) != key(*b)


def _computed_alone(algorithm, eps):
    exact._RECENT.clear()
    reg, err, _ = exact.regret_and_averager(algorithm, MEANS, eps, HORIZONS)
    return reg.tobytes(), err.tobytes()


@pytest.mark.parametrize(
    ("first", "second"),
    [(("rnm_ftnl", 0.5), ("wu_wang", 0.5)), (("rps", 8.0), ("rps", 0.5))],
)
def test_a_reused_result_is_the_one_computed_alone(first, second):
    want = _computed_alone(*second)
    exact._RECENT.clear()
    exact.regret_and_averager(first[0], MEANS, first[1], HORIZONS)
    assert len(exact._RECENT) == 1
    reg, err, _ = exact.regret_and_averager(second[0], MEANS, second[1], HORIZONS)
    assert len(exact._RECENT) == 1  # reused, not computed
    assert (reg.tobytes(), err.tobytes()) == want


def test_another_law_is_computed_not_reused():
    near = _computed_alone("rps", 0.0625)  # eta 1/32
    exact._RECENT.clear()
    exact.regret_and_averager("rps", MEANS, 1.0, HORIZONS)
    reg, err, _ = exact.regret_and_averager("rps", MEANS, 0.0625, HORIZONS)
    assert len(exact._RECENT) == 2
    assert (reg.tobytes(), err.tobytes()) == near
    assert reg[-1] != _computed_alone("rps", 1.0)[0]  # and the two laws' regrets differ


#: rps on deterministic losses (1/4, 3/4) at eps = 1: eta = 1/8, Delta = 1/2, kernel 86/eta =
#: 688 lattice points > 300, so 300 + 0.01 x 688; sd = sqrt(1/4 x 3/4); 6 laws per block
_KERNEL, _SD = 300 + 0.01 * 688, math.sqrt(3) / 4


def _block_work(r: int) -> float:
    """The planner's work of block r >= 1: A_r reads at least m = min M_(r-1) rounds (1 for
    r = 1, 2^(r-2) + 1 after), 2 groups (e^(-m/16) >= 1e-40 up to m = 1473): 6 laws x 2 groups
    x (21 sd sqrt(m) + 60 + kernel) + 2000."""
    m = 1 if r == 1 else (1 << (r - 2)) + 1
    return 6 * 2 * (21 * _SD * math.sqrt(m) + 60 + _KERNEL) + 2000


@pytest.mark.parametrize(
    ("horizon", "blocks"), [(40, 5), (2**10, 10), (2**11, 11), (2**12, 11), (2**20, 11)]
)
def test_cost_units_sums_the_work_of_the_blocks_computed(horizon, blocks):
    """Blocks 1..R-1 (R = bit length of T) up to the first r whose Chernoff tail
    sum_(r' >= r) 2^r' Delta e^(-min M_(r'-1)/16) is below 1e-16 of the regret bounded so far
    (>= Delta/2 = 1/4): r = 12 (tail ~2^11 e^-64 = 3e-25), not r = 11 (2^10 e^-32 = 1e-11):
    so T = 2^12 and T = 2^20 cost what T = 2^11 costs (blocks 1..11)."""
    from privdtol.engine.exact import cost_units

    want = math.fsum(_block_work(r) for r in range(1, blocks + 1))
    got = cost_units("rps", [0.25, 0.75], 1.0, horizon, "deterministic")
    assert got == pytest.approx(want, rel=1e-13)


def test_check_exact_lists_what_it_accepts():
    from privdtol.engine.exact import check_exact
    from privdtol.errors import InputError

    with pytest.raises(InputError) as err:
        check_exact("rps", "beta")
    assert str(err.value) == "env: 'beta' has no exact engine (allowed: bernoulli, deterministic)"
    with pytest.raises(InputError) as err:
        check_exact("ftl_egreedy", "bernoulli")
    assert str(err.value) == (
        "algorithm: 'ftl_egreedy' has no exact engine (allowed: rps, rnm_ftnl, wu_wang, "
        "wu_wang_gumbel, rps_full_prefix, rps_uncapped, rps_eta_logk, rps_eta_sq, "
        "rps_short_prefix, rps_uniform_mix, rps_hot)"
    )


#: every registered private algorithm that the exact engine computes, controls included
PRIVATE_EXACT = [n for n, c in ALGORITHMS.items() if c.private and n in EXACT_ALGORITHMS]


def test_every_private_exact_algorithm_is_symmetric_in_the_actions():
    """Relabelling the actions changes nothing: on the K = 3 instance (0.3, 0.45, 0.7), in each
    of its 3! orders (the best action at each position, the other two both ways), every
    registered private algorithm of the exact engine has the same exact regret (within its
    error bound, or 1e-12 relative), the block law of A_3 is the relabelled law, and the
    algorithm's own selection law (its quadrature for the Laplace ones) is equivariant:
    law(L relabelled) = law(L) relabelled.  The lower bound of Corollary 1 averages over
    which action is best; this is what lets the report hold an instance's own regret
    against it."""
    from privdtol.algorithms.rnm_ftnl import ReportNoisyMin

    assert {"rps", "rnm_ftnl", "rps_uniform_mix", "rps_hot"} <= set(PRIVATE_EXACT)
    means = np.array([0.3, 0.45, 0.7])
    sums = np.array([[3.0, 5.0, 4.0], [0.0, 2.5, 9.0]])
    hs = [(1 << 8) - 1, 7]
    for name in PRIVATE_EXACT:
        alg = make_algorithm(name, 0.5)
        exact._RECENT.clear()
        reg0, err0 = expected_regret(name, means, 0.5, hs)
        law0, _ = block_law(name, means, 0.5, 2)
        for perm in itertools.permutations(range(3)):
            p = list(perm)
            exact._RECENT.clear()  # computed again, not reused
            reg, err = expected_regret(name, means[p], 0.5, hs)
            tol = np.maximum(err + err0, 1e-12 * reg0)
            assert (np.abs(reg - reg0) <= tol).all(), (name, perm)
            law, e = block_law(name, means[p], 0.5, 2)
            np.testing.assert_allclose(law, law0[p], rtol=0, atol=2 * e + 1e-15)
            if isinstance(alg, ReportNoisyMin):
                own = np.array([laplace_noisy_min_law(x, alg.noise_scale) for x in sums])
                moved = np.array([laplace_noisy_min_law(x[p], alg.noise_scale) for x in sums])
            else:
                own, moved = alg.law(sums, 3), alg.law(sums[:, p], 3)
            np.testing.assert_allclose(moved, own[:, p], rtol=1e-12, atol=1e-15)
    exact._RECENT.clear()
