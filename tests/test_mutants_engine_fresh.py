"""Guards found by a fresh mutation sample of ``privdtol.engine`` (``make mutation
GROUPS=engine``, docs/testing.md): the exact engine's Laplace law and Chernoff sums, the fast
engine's windows, the worst-instance search's seeding and the run tables, each against values
written out by hand (closed forms, scipy.stats quadrature, literals)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from privdtol.algorithms import make_algorithm


def test_laplace_law_on_unequally_spaced_atoms_matches_quadrature():
    """rnm_ftnl (Laplace(2/eps) noise, eps = 1: b = 2) on deterministic losses (0.2, 0.5, 0.6)
    after m = 4 rounds: atoms 0.8, 2.0, 2.4, spaced 1.2 and 0.4 (the engine's general
    recursion, each step with its own e^(-gap/b)). P(g wins) = int f(w) prod_(h != g)
    SF(y_g - y_h + w) dw, W ~ Laplace(b) (scipy.stats), by quadrature between the kinks."""
    from scipy import integrate, stats

    from privdtol.engine.exact.spec import _Spec

    means, m, b = [0.2, 0.5, 0.6], 4, 2.0
    y = [m * u for u in means]
    lap = stats.laplace(scale=b)

    def win(g):
        def f(w):
            return lap.pdf(w) * math.prod(lap.sf(y[g] - y[h] + w) for h in range(3) if h != g)

        pts = sorted({0.0} | {y[h] - y[g] for h in range(3)})
        edges = zip([-np.inf, *pts], [*pts, np.inf], strict=True)
        return math.fsum(integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-13)[0] for lo, hi in edges)

    spec = _Spec("rnm_ftnl", means, 1.0, "deterministic")
    assert spec.b == b
    P, err = spec.law(m)
    for g in range(3):
        want = win(g)
        assert abs(P[g] - want) <= err[g] + 1e-14  # 1e-14: the quadrature's own error
        assert err[g] <= 1e-12
    assert 0.5 < P[0] < 0.52 and 0.26 < P[1] < 0.28 and 0.21 < P[2] < 0.22


def test_chernoff_sum_is_a_geometric_sum_computed_without_warnings():
    """rps at eps = 1 (eta = 1/8) on deterministic losses (1/4, 3/4): group 1's Chernoff bound
    at m rounds is e^(-m/16), so its sum over m = a..b is e^(-a/16) (1 - e^(-n/16)) /
    (1 - e^(-1/16)), n = b - a + 1; the best group's is n. The best group's exponent is 0,
    whose geometric ratio 0/0 is replaced: no floating-point warning may escape."""
    from privdtol.engine.exact.spec import _Spec

    spec = _Spec("rps", [0.25, 0.75], 1.0, "deterministic")
    for a, b in ((3, 10), (1, 1), (100, 400)):
        n = b - a + 1
        want = math.exp(-a / 16) * -math.expm1(-n / 16) / -math.expm1(-1 / 16)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = spec.chernoff_sum(a, b)
        assert got[0] == n
        assert got[1] == pytest.approx(min(want, n), rel=1e-13)


def test_fast_engine_reads_each_window_from_round_one_of_the_loss_file():
    """rps at eps = 1 (eta = 1/8) replaying the 3 x 2 loss matrix [[0, 1], [0, 1], [1, 0]]
    (means (1/3, 2/3), gap 1/3) to T = 3: A_0 uniform on B_0 = {1} (regret 1/6), A_1 drawn from
    softmax(-eta S) of the first M_0 = 1 round's losses, row 1 = (0, 1), on B_1 = {2, 3}:
    Reg_3 = 1/6 + 2 (1/3) e^(-1/8) / (1 + e^(-1/8)), exactly (Rao-Blackwellised charges)."""
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses

    env = ReplayLosses(np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]))
    res = simulate(make_algorithm("rps", 1.0), env, 3, 2, {"test": "window"}, mode="fast")
    x = math.exp(-0.125)
    want = 1 / 6 + 2 * (1 / 3) * x / (1 + x)
    assert res.checkpoints.tolist() == [1, 3]
    np.testing.assert_allclose(res.regret, [[1 / 6, want]] * 2, rtol=1e-14)


def test_simulate_names_the_rounds_of_a_short_loss_file():
    from privdtol.engine.fast import simulate
    from privdtol.environments.replay import ReplayLosses
    from privdtol.errors import InputError

    env = ReplayLosses(np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(InputError) as err:
        simulate(make_algorithm("rps", 1.0), env, 4, 1, {"test": "short"}, mode="fast")
    assert str(err.value) == (
        "horizon: 4 exceeds the 3 rounds of the loss file (allowed: horizon <= 3)"
    )


def test_progress_bar_counts_blocks_and_is_off_unless_asked():
    from privdtol.engine.fast import _progress

    assert _progress(4, False) is None
    bar = _progress(4, True)
    try:
        assert (bar.unit, bar.total, bar.leave) == ("block", 4, False)
    finally:
        bar.close()


def test_actions_table_has_one_row_per_run_and_block():
    from privdtol.engine.fast import SimResult
    from privdtol.engine.run_tables import actions_table

    acts = np.array([[0, 1, 1], [1, 0, 2]])
    res = SimResult(np.array([1, 3]), np.zeros((2, 2)), np.zeros((2, 2)), "block_rb", acts)
    tab = actions_table(res)
    assert list(tab.columns) == ["run", "block", "action"]
    assert tab["run"].tolist() == [0, 0, 0, 1, 1, 1]
    assert tab["block"].tolist() == [0, 1, 2, 0, 1, 2]
    assert tab["action"].tolist() == [0, 1, 1, 1, 0, 2]


def test_seed_params_keep_only_the_law_of_the_data():
    """The seed key of a Bernoulli cell has no Beta kappa (nor rho): changing a parameter the
    loss model ignores must not change the random stream; a Beta cell's kappa enters through
    its law."""
    from privdtol.engine.runner import CellSpec

    spec = CellSpec("rps", 1.0, 3, 1, means=(0.25, 0.5))
    assert spec.seed_params(spec.build_env()) == {
        "algorithm": "rps",
        "epsilon": 1.0,
        "horizon": 3,
        "runs": 1,
        "seed": 0,
        "mode": "auto",
        "env": "bernoulli",
        "means": [0.25, 0.5],
    }
    beta = CellSpec("rps", 1.0, 3, 1, env="beta", means=(0.25, 0.5), kappa=5.0)
    assert beta.seed_params(beta.build_env())["kappa"] == 5.0


def _fake_regret(algorithm, means, epsilon, horizons, env="bernoulli", tol=None):
    """An exact engine by hand: Reg = 10 mu_2 (fast, and different on every instance)."""
    return np.array([10.0 * float(means[1])]), np.array([0.0])


def test_search_draws_its_initial_population_from_its_seed(monkeypatch):
    """K = 2 ('free' family: the one parameter x_0, population 5): after the standard
    instance (1/4, 3/4), differential evolution evaluates its initial population, the standard
    parameters and the 4 draws of default_rng(seed).random((4, 1)), in order, mapped to means
    by hand: mu_1 = x_0 (1 - gap), mu_2 = mu_1 + gap."""
    from privdtol.engine import exact
    from privdtol.engine.worst_case import search

    monkeypatch.setattr(exact, "expected_regret", _fake_regret)
    gap = 0.5
    _, trace = search("rps", 2, gap, 1.0, budget=8, seed=7, horizon=1000, env="deterministic")
    mu1 = np.random.default_rng(7).random((4, 1))[:, 0] * (1 - gap)
    seen = np.array([[float(v) for v in t["means"].split()] for t in trace])  # %.17g: exact
    assert seen[:2].tolist() == [[0.25, 0.75]] * 2  # the standard instance, then x0
    np.testing.assert_allclose(seen[2:6], np.stack([mu1, mu1 + gap], axis=1), rtol=0, atol=2e-16)


@pytest.mark.parametrize(
    ("epsilon", "m"),
    [
        (8.0, 20),  # eta = 4: 10 node offsets, no cached dense matrix (one built per offset)
        (4.0, 2000),  # eta = 2: 727 > 600 lattice points kept, short kernel: per-row np.convolve
        (2.0, 2000),  # eta = 1: 727 points, block-Toeplitz GEMM over 3 offsets x 3 kernels
        (0.25, 2000),  # eta = 1/8: polyphase (nodes every 3 points), block-Toeplitz GEMM
    ],
)
def test_softmax_law_on_a_binomial_lattice_matches_brute_force(epsilon, m):
    """rps_uncapped (eta = eps/2) after m Bernoulli rounds, means (0.4, 0.5): P(A = 1) =
    sum_d P(S_1 - S_0 = d) / (1 + e^(eta d)), S_0 ~ Bin(m, 0.4), S_1 ~ Bin(m, 0.5) (scipy.stats
    pmfs, the law of the difference by direct convolution); the engine's value is within its
    error bound of it (plus 64 U of the brute force's own rounding)."""
    from scipy import stats

    from privdtol.engine.exact.spec import _Spec

    eta, k = epsilon / 2, np.arange(m + 1)
    p0, p1 = stats.binom.pmf(k, m, 0.4), stats.binom.pmf(k, m, 0.5)
    pd = np.convolve(p1, p0[::-1])  # P(S1 - S0 = d), d = -m..m
    d = np.arange(-m, m + 1)
    want = math.fsum(pd * np.exp(-np.logaddexp(0.0, eta * d)))
    spec = _Spec("rps_uncapped", [0.4, 0.5], epsilon, "bernoulli")
    assert spec.eta == eta
    P, err = spec.law(m)
    for g, v in ((0, 1 - want), (1, want)):
        assert abs(P[g] - v) <= err[g] + 64 * 2.0**-53
        assert err[g] <= 1e-9
