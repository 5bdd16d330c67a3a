"""Tests of :mod:`privdtol.engine.exact`."""

from __future__ import annotations

import itertools
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import binom
from support.exact_k2 import rps_regret_k2

from privdtol.algorithms import ALGORITHMS, laplace_noisy_min_law, make_algorithm, softmax_law
from privdtol.algorithms.controls import short_prefix
from privdtol.engine import exact
from privdtol.engine.exact import EXACT_ALGORITHMS, block_law, exact_available, expected_regret
from privdtol.engine.exact.spec import _Spec
from privdtol.engine.runner import exact_table_and_averager
from privdtol.environments import (
    instance_means,
)
from privdtol.pipeline import plan
from privdtol.pipeline.proof import (
    cell_terms,
    horizon_regret,
)

# --- from tests/test_exact.py

K2_CASES = [(0.4, 0.6, 1.0), (0.3, 0.55, 0.1), (0.45, 0.5, 4.0)]


@pytest.mark.parametrize("mu1, mu2, eps", K2_CASES)
@pytest.mark.parametrize(
    "algorithm, prefix",
    [("rps", "random"), ("rps_full_prefix", "full"), ("rps_uncapped", "random")],
)
def test_softmax_algorithms_match_the_k2_random_walk(algorithm, prefix, mu1, mu2, eps):
    eta = make_algorithm(algorithm, eps).eta
    k_max = 12  # the reference propagates a pmf: O(T^2)
    want = rps_regret_k2(mu1, mu2, eta, k_max, prefix=prefix)
    horizons = (1 << np.arange(1, k_max + 1)) - 1
    got, err = expected_regret(algorithm, np.array([mu1, mu2]), eps, horizons)
    assert (err >= 0).all() and (err <= 1e-8 * np.maximum(got, 1)).all()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


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


CONTROLS__exact = ("rps_eta_logk", "rps_eta_sq", "rps_short_prefix")


@pytest.mark.parametrize("algorithm", CONTROLS__exact)
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


def test_too_small_eta_is_refused_with_one_clear_line():
    """A temperature below the kernel's reach (rps_eta_sq at eps = 2^-12: eta = 2^-25) is
    refused before any allocation, naming the way out, instead of exhausting memory."""
    from privdtol.engine.exact import expected_regret as regret

    with pytest.raises(ValueError, match=r"too small for the exact engine.*exact: off"):
        regret("rps_eta_sq", [0.25, 0.75], 2.0**-12, [7])


# --- from tests/test_exact_memo.py

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
    ],
)
def test_the_key_separates_different_laws(a, b):
    assert key(*a) != key(*b)


def _fresh(algorithm, eps):
    exact._RECENT.clear()
    reg, err, _ = exact.regret_and_averager(algorithm, MEANS, eps, HORIZONS)
    return reg.tobytes(), err.tobytes()


@pytest.mark.parametrize(
    ("first", "second"),
    [(("rnm_ftnl", 0.5), ("wu_wang", 0.5)), (("rps", 8.0), ("rps", 0.5))],
)
def test_a_reused_result_is_the_fresh_one(first, second):
    want = _fresh(*second)
    exact._RECENT.clear()
    exact.regret_and_averager(first[0], MEANS, first[1], HORIZONS)
    assert len(exact._RECENT) == 1
    reg, err, _ = exact.regret_and_averager(second[0], MEANS, second[1], HORIZONS)
    assert len(exact._RECENT) == 1  # reused, not computed
    assert (reg.tobytes(), err.tobytes()) == want


def test_another_law_is_computed_not_reused():
    near = _fresh("rps", 0.0625)  # eta 1/32
    exact._RECENT.clear()
    exact.regret_and_averager("rps", MEANS, 1.0, HORIZONS)
    reg, err, _ = exact.regret_and_averager("rps", MEANS, 0.0625, HORIZONS)
    assert len(exact._RECENT) == 2
    assert (reg.tobytes(), err.tobytes()) == near
    assert reg[-1] != _fresh("rps", 1.0)[0]  # and the two laws' regrets differ


def _cell(algorithm, eps, gap=0.125):
    return plan.Cell.from_params(
        dict(
            algorithm=algorithm,
            env="bernoulli",
            K=8,
            gap=gap,
            epsilon=eps,
            horizon=(1 << 20) - 1,
            runs=0,
            seed=0,
            instance="standard",
            mu_best=None,
            rho=None,
            kappa=None,
        )
    )


def _terms(cell):
    table, avg = exact_table_and_averager(cell.spec())
    terms = cell_terms(cell, horizon_regret(table, cell), avg)
    return table.to_json(), json.dumps(terms, sort_keys=True)


@pytest.mark.parametrize(
    "order",
    [
        (("rps", 2.0), ("rps", 4.0)),  # one law
        (("rps", 4.0), ("rps", 2.0)),
        (("rps", 8.0), ("rps_short_prefix", 8.0)),  # one temperature, two prefix rules
        (("rps_short_prefix", 8.0), ("rps", 8.0)),
    ],
)
def test_proof_terms_do_not_depend_on_the_cell_before(order, monkeypatch):
    from privdtol.pipeline import proof

    alone = {}
    for cell in order:
        exact._RECENT.clear()
        monkeypatch.setattr(proof, "_SUMS", {})
        alone[cell] = _terms(_cell(*cell))
    exact._RECENT.clear()
    monkeypatch.setattr(proof, "_SUMS", {})
    together = {cell: _terms(_cell(*cell)) for cell in order}
    assert together == alone
    assert alone[order[0]][1] != alone[order[1]][1]  # eps or the prefix rule matters


# --- from tests/test_mutants_engine.py


def test_check_exact_lists_what_it_accepts():
    from privdtol.engine.exact import check_exact
    from privdtol.errors import InputError

    with pytest.raises(InputError) as err:
        check_exact("rps", "beta")
    assert str(err.value) == "env: 'beta' has no exact engine (allowed: bernoulli, deterministic)"
    with pytest.raises(InputError) as err:
        check_exact("ftl_egreedy", "bernoulli")
    assert str(err.value) == (
        "algorithm: 'ftl_egreedy' has no exact engine (allowed: rps, rps_full_prefix, "
        "rps_uncapped, rnm_ftnl, wu_wang, wu_wang_gumbel, rps_eta_logk, rps_eta_sq, "
        "rps_short_prefix)"
    )


# --- from tests/test_mutants_engine_bounds.py

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


# --- from tests/test_mutants_engine_fresh.py


def _fake_regret__mutants_engine_fresh(
    algorithm, means, epsilon, horizons, env="bernoulli", tol=None
):
    """An exact engine by hand: Reg = 10 mu_2 (fast, and different on every instance)."""
    return np.array([10.0 * float(means[1])]), np.array([0.0])


def test_search_draws_its_initial_population_from_its_seed(monkeypatch):
    """K = 2 ('free' family: the one parameter x_0, population 5): after the standard
    instance (1/4, 3/4), differential evolution evaluates its initial population, the standard
    parameters and the 4 draws of default_rng(seed).random((4, 1)), in order, mapped to means
    by hand: mu_1 = x_0 (1 - gap), mu_2 = mu_1 + gap."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret__mutants_engine_fresh)
    gap = 0.5
    _, trace = search("rps", 2, gap, 1.0, budget=8, seed=7, horizon=1000, env="deterministic")
    mu1 = np.random.default_rng(7).random((4, 1))[:, 0] * (1 - gap)
    seen = np.array([[float(v) for v in t["means"].split()] for t in trace])  # %.17g: exact
    assert seen[:2].tolist() == [[0.25, 0.75]] * 2  # the standard instance, then x0
    np.testing.assert_allclose(seen[2:6], np.stack([mu1, mu1 + gap], axis=1), rtol=0, atol=2e-16)


# --- from tests/test_mutants_engine_r3a_timeouts.py


def _uncapped_regret(T: int, gap: float = 0.5, eta: float = 8.0):
    """(Reg_T, [g_r]) of rps_uncapped (eta = eps/2) on deterministic losses, K = 2: A_0 uniform
    (g_0 = gap/2); A_r (r >= 1) averaged over M_(r-1) uniform on {2^(r-2)+1..2^(r-1)} (M_0 = 1)
    of gap / (1 + e^(eta m gap)); Reg_T = sum_r #(B_r cap [1, T]) g_r."""
    gs, r = [gap / 2], 1
    while (1 << r) <= T:
        lo, hi = (1, 1) if r == 1 else ((1 << (r - 2)) + 1, 1 << (r - 1))
        gs.append(math.fsum(gap / (1 + math.exp(eta * m * gap)) for m in range(lo, hi + 1)))
        gs[-1] /= hi - lo + 1
        r += 1
    n = [min((2 << r) - 1, T) - (1 << r) + 1 for r in range(len(gs))]
    return math.fsum(k * g for k, g in zip(n, gs, strict=True)), gs


U = 2.0**-53


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


def test_regret_loop_bounds_a_block_against_the_regret_accumulated_so_far():
    """rps_uncapped at eps = 16 (eta = 8), deterministic (1/4, 3/4), T = 511, as in
    tests/test_mutants_exact_fresh.py: the loop bounds block 5 by its Chernoff bound (without
    computing it) iff its tail sum_(r >= 5) 2^r gb_r <= 1e-6 tol cum, cum = g_0 + sum_(r < 5)
    2^r g_r the regret accumulated over blocks 0..4 (each g_r played 2^r times). tol is set
    between that edge and the edge of A_0's g_0 = 1/4 alone (cum / g_0 = 1.08): block 5 is
    bounded, so its bound 32 gb_5 enters the error bound, which covers the closed form; the
    tolerance passed is the one used (at the default 1e-10 block 5 is computed)."""

    from privdtol.engine import exact

    reg, gs = _uncapped_regret(511)
    gb = {r: 0.5 * math.exp(-4 * ((1 << (r - 2)) + 1)) for r in range(5, 9)}
    tail = math.fsum(2**r * b for r, b in gb.items())
    cum = math.fsum([gs[0], *(g * 2**r for r, g in enumerate(gs) if 1 <= r < 5)])
    assert gs[0] == 0.25 and 1.07 < cum / gs[0] < 1.09
    tol = tail / (1e-6 * math.sqrt(cum * gs[0]))
    exact._RECENT.clear()
    got, eb = exact.expected_regret("rps_uncapped", [0.25, 0.75], 16.0, [511], "deterministic", tol)
    exact._RECENT.clear()
    assert abs(got[0] - reg) <= eb[0] + 16 * U * reg
    assert eb[0] >= 32 * gb[5]


# --- from tests/test_mutants_engine_round2.py


def _fake_regret__mutants_engine_round2(
    algorithm, means, epsilon, horizons, env="bernoulli", tol=None
):
    """An exact engine by hand: Reg = 10 mu_2 (fast, and different on every instance)."""
    return np.array([10.0 * float(means[1])]), np.array([0.0])


def test_search_record_names_its_budget(monkeypatch):
    """The search's record carries the budget it was given (the findings read it)."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret__mutants_engine_round2)
    res, _ = search("rps", 2, 0.5, 1.0, budget=8, seed=7, horizon=1000, env="deterministic")
    assert res["budget"] == 8 and res["seed"] == 7 and res["horizon"] == 1000


# --- from tests/test_mutants_engine_search.py

ETA = 0.125  # rps at eps = 1: eta = min(eps/2, 1/8)


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


def _fake_regret__mutants_engine_search(accurate: float):
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

    monkeypatch.setattr(exact, "expected_regret", _fake_regret__mutants_engine_search(accurate))
    res, trace = search("rps", 2, 0.5, 1.0, budget=4, horizon=1000, env="deterministic")
    bound = 1 + 1728 * math.log(2)
    assert res["bound"] == pytest.approx(bound, rel=1e-15)
    assert res["standard"] == {"means": [0.25, 0.75], "value": 2.0 / res["bound"]}
    assert max(t["ratio"] for t in trace) == 3.0 / res["bound"]  # ranked at the search tol
    want = 2.0 if standard_wins else accurate
    assert res["regret"] == want and res["value"] == want / res["bound"]
    assert (res["means"] == [0.25, 0.75]) is standard_wins


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


# --- from tests/test_mutants_exact_fresh.py


def test_regret_loop_stops_against_the_regret_accumulated_so_far():
    """rps_uncapped at eps = 16 (eta = 8), deterministic (1/4, 3/4), T = 511 (blocks 0..8):
    the Chernoff bound of A_r is e^(-eta min M_(r-1) Delta) = e^(-4 m), m = 9 at r = 5. The
    loop ends at block 5 iff its tail sum_(r >= 5) 2^r gb_r <= 1e-6 tol sum_(r < 5) 2^r g_r;
    tol is set between that edge and the edge of twice the accumulated sum (A_r is played
    2^r times, not 2^(r+1)): block 5 is then computed, so its Chernoff bound 32 gb_5 does not
    enter the error bound, which still covers the closed form."""
    from privdtol.engine import exact

    reg, gs = _uncapped_regret(511)
    gb = {r: 0.5 * math.exp(-4 * ((1 << (r - 2)) + 1)) for r in range(5, 9)}
    tail = math.fsum(2**r * b for r, b in gb.items())
    cum = math.fsum([gs[0], *(g * 2**r for r, g in enumerate(gs) if 1 <= r < 5)])
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


def _stub_averager(logp):
    """An _Averager over a stub law: one group of weight 1 whose law at m is exp(logp(m)),
    exact (zero error), with a zero Chernoff sum; the tolerance so loose that only the
    coefficients' decay can refuse a panel."""
    from privdtol.engine.exact.averaging import _Averager

    def laws(ms):
        v = np.array([[math.exp(logp(m))] for m in ms])
        return v, np.zeros_like(v)

    spec = SimpleNamespace(laws=laws, chernoff_sum=lambda a, b: np.zeros(1))
    avg = _Averager(spec, 1 << 20, np.ones(1))
    avg.tol = 1e9
    return avg


@pytest.mark.parametrize(("degree", "accepted"), [(1, True), (8, False)])
def test_try_refuses_a_panel_whose_coefficients_do_not_decay(degree, accepted):
    """log P(m) = -1 + 0.01 T_d(x), x the panel's map of log m onto [-1, 1], at the rounded
    Chebyshev-Lobatto nodes of degree 8 on [100, 800]: for d = 8 the last two coefficients sum
    to 0.01 and the two before them to 0 (not decaying: refused, however loose the tolerance);
    d = 1 decays (accepted, and its sum matches the law's)."""
    lo, hi, deg = 100, 800, 8
    u0, u1 = math.log(lo), math.log(hi)

    def logp(m):
        x = 2 * (math.log(m) - u0) / (u1 - u0) - 1
        return -1 + 0.01 * math.cos(degree * math.acos(max(-1.0, min(1.0, x))))

    avg = _stub_averager(logp)
    t = np.cos(np.pi * np.arange(deg, -1, -1) / deg)
    ms = np.unique(np.rint(np.exp(u0 + (t + 1) / 2 * (u1 - u0))).astype(np.int64))
    assert ms.size == deg + 1
    p = avg._try(lo, hi, u0, u1, ms, deg)
    assert (p is not None) is accepted
    if accepted:  # and the sum it gives is the sum of the law over [lo, hi]
        S, E = avg._psum(p, lo, hi)
        want = math.fsum(math.exp(logp(m)) for m in range(lo, hi + 1))
        assert abs(S[0] - want) <= E[0] <= 1e-6 * want


# --- from tests/test_proof_checks.py


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


# --- from tests/test_simulate.py

# --------------------------------------------------------------------------- negative controls
CONTROLS__simulate = [n for n, c in ALGORITHMS.items() if c.role == "control"]


@pytest.mark.parametrize("name", CONTROLS__simulate)
def test_only_the_rps_family_controls_have_an_exact_engine(name):
    # uniform and ftl_egreedy are simulated; the RPS-family ones are exact (tests/test_exact.py)
    rps_family = name in ("rps_eta_logk", "rps_eta_sq", "rps_short_prefix")
    assert exact_available(name, "bernoulli") == rps_family


# --- from tests/test_tolerances.py


def test_the_search_ranks_at_1e_6_and_reports_its_best_accurately(monkeypatch):
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    calls, real = [], exact.expected_regret

    def spy(*args, **kw):
        calls.append(kw.get("tol"))
        return real(*args, **kw)

    monkeypatch.setattr(exact, "expected_regret", spy)
    res, _ = search("rps", 2, 0.5, 1.0, budget=4, horizon=1000, env="deterministic")
    assert calls[0] is None  # the standard instance, at the engine's default accuracy
    ranked = [t for t in calls[1:] if t is not None]
    assert ranked and set(ranked) == {1e-6}
    assert calls[-1] is None  # the best one, computed again accurately
    assert np.isfinite(res["value"])


# --- from tests/test_worst_case.py


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
