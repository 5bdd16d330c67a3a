"""Tests of :mod:`privdtol.engine.exact.numerics`: the blocked prefix sum and its rounding
constant, the log-products of the softmax and Laplace laws (``_powers``) against their
documented formula in exact rationals, and the best group's probability 1 - sum."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from support.engine_laws import U


def test_cumsum_is_exact_on_integers_across_blocks_and_rows():
    """_cumsum sums along the last axis in blocks of 256 (nb = ceil(N / 256) blocks, each
    carried by the running total of the earlier blocks' last sums): on integers (every partial
    sum exact in binary) it is the exact inclusive prefix sum, row by row, for N = 257 (one
    value past the first block) and N = 600 (three blocks, the last partial)."""
    from privdtol.engine.exact.numerics import _cumsum

    rng = np.random.default_rng(24)
    for N in (257, 600):
        x = rng.integers(0, 1000, size=(2, N)).astype(float)
        assert _cumsum(x).tolist() == np.cumsum(x, axis=-1).tolist()


@pytest.mark.parametrize("N", [1, 256, 257, 3000, 1 << 16, 344064, 1 << 20])
def test_c_sum_covers_the_blocked_cumsums_tree_height(N):
    """_cumsum sums in blocks of 256 (<= 255 additions), then adds the running sum of the
    nb = ceil(N / 256) earlier block totals (<= nb - 1 additions, and 1 more): an output's
    relative error is <= gamma_n, n = 255 + nb (Higham, Sec. 4.2); _c_sum(N) U must cover it
    (N = 344064: the window 2 (10.5 sd + 30) of Binomial(2^30, 1/2); lattices spanning several
    groups are wider). At N = 3000, against exact rationals."""
    from privdtol.engine.exact.numerics import _c_sum, _cumsum

    n = 255 + -(-N // 256)
    assert _c_sum(N) * U >= n * U / (1 - n * U)
    if N == 3000:
        x = np.random.default_rng(3000).random(N) * 10.0 ** np.linspace(-3, 3, N)
        run, worst = Fraction(0), 0.0
        for xi, yi in zip(x, _cumsum(x), strict=True):
            run += Fraction(float(xi))
            worst = max(worst, float(abs(Fraction(float(yi)) - run) / run))
        assert 0 < worst <= _c_sum(N) * U


E80 = Fraction(math.exp(-80.0))  # the kernel cut e^-A of numerics, A = 80


def _powers_by_hand(lf, ratio, ns, db, c_r):
    """numerics._powers' documented formula in exact rationals: lf clamped at -1e4, tot =
    sum_h n_h lf_h, eps_h = 2 (db_h + c_r U) ratio_h + 2 e^-A + 4 U, Lg_g = tot - lf_g and
    rel_g = sum_h n_h eps_h - eps_g + 4 U (|tot| + |lf_g| + 2) + db_g + c_r U, g >= 1."""
    u = Fraction(U)
    lf = [[max(Fraction(v), Fraction(-10000)) for v in row] for row in lf]
    G, K = len(lf), len(lf[0])
    fns = [Fraction(v) for v in ns]
    tot = [sum(fns[h] * lf[h][k] for h in range(G)) for k in range(K)]
    eps = [
        [
            2 * (Fraction(db[h]) + c_r * u) * Fraction(ratio[h][k]) + 2 * E80 + 4 * u
            for k in range(K)
        ]
        for h in range(G)
    ]
    etot = [sum(fns[h] * eps[h][k] for h in range(G)) for k in range(K)]
    Lg = [[tot[k] - lf[g][k] for k in range(K)] for g in range(1, G)]
    rel = [
        [
            etot[k]
            - eps[g][k]
            + 4 * u * (abs(tot[k]) + abs(lf[g][k]) + 2)
            + Fraction(db[g])
            + c_r * u
            for k in range(K)
        ]
        for g in range(1, G)
    ]
    return Lg, rel


@pytest.mark.parametrize(
    ("lf", "ratio", "ns", "db", "c_r"),
    [
        # three groups of 1, 2 and 3 actions at two nodes, every input term of the bound alive
        (
            [[-0.25, -1.5], [-2.0, -0.125], [-0.5, -3.0]],
            [[0.5, 1.0], [0.25, 0.75], [1.0, 0.0625]],
            [1.0, 2.0, 3.0],
            [3e-12, 1e-12, 2e-12],
            100.0,
        ),
        # exact inputs (db = 0, c_r = 0): the bound is the rounding terms alone; a log below
        # -1e4 counts as -1e4 (lf_1 = -10000.5: |tot| = 10002, |lf_1| = 1e4)
        ([[-1.0, -2.0], [-2.0, -10000.5]], [[0.0, 0.0], [0.0, 0.0]], [1.0, 1.0], [0.0, 0.0], 0.0),
    ],
)
def test_powers_values_and_bound_follow_the_documented_formula(lf, ratio, ns, db, c_r):
    """_powers' log-products and relative error bound against its documented formula worked
    out in exact rationals (_powers_by_hand). The outputs are a few float sums and products of
    the inputs: within 1e-14 relative (Lg) and 1e-13 relative (rel, about ten roundings of
    terms of one sign)."""
    from privdtol.engine.exact.numerics import _powers

    Lg, rel = _powers(np.array(lf), np.array(ratio), np.array(ns), np.array(db), c_r)
    want_lg, want_rel = _powers_by_hand(lf, ratio, ns, db, c_r)
    assert Lg.shape == rel.shape == (len(ns) - 1, 2)
    for g in range(len(ns) - 1):
        for k in range(2):
            assert abs(Fraction(float(Lg[g, k])) - want_lg[g][k]) <= abs(want_lg[g][k]) * Fraction(
                1, 10**14
            )
            assert abs(Fraction(float(rel[g, k])) - want_rel[g][k]) <= want_rel[g][k] * Fraction(
                1, 10**13
            )


def test_powers_sets_products_below_e_to_the_minus_650_to_zero():
    """A log-product Lg_g = tot - lf_g below -650 becomes -inf (its exponential, < 1e-282, is
    set to 0); -650 itself is kept. Groups of one action each: Lg_1 = lf_0, exact here."""
    from privdtol.engine.exact.numerics import _powers

    lf = np.array([[-650.0, -650.5, -649.75], [-1.0, -1.0, -1.0]])
    Lg, _ = _powers(lf, np.zeros((2, 3)), np.array([1.0, 1.0]), np.zeros(2), 0.0)
    assert Lg.tolist() == [[-650.0, -np.inf, -649.75]]


def test_powers_kernel_cut_term_is_two_e_to_the_minus_a():
    """eps_h = 2 (db_h + c_r U) ratio_h + 2 e^-A + 4 U, summed left to right. With db = 0,
    c_r = 1 the first term is X = 2 U ratio (exact); half an ulp of 4 U = 2^-51 is 2^-104.
    Node 0: X = 2^-104 - 4.5e-35, so X + 2 e^-A (e^-80 = 1.8e-35) stays below the half ulp and
    eps = 4 U exactly (3 e^-A would cross it). Node 1: X = 2^-104 - 3e-35, X + 2 e^-A is above
    it and eps = 4 U + 2^-103 (- 2 e^-A would stay below). The best group of n_0 = 2^20
    actions scales the difference to one ulp of rel_1 = n_0 eps_0 + n_1 eps_1 - eps_1 + 4 U
    (0 + 0 + 2) + U, all exact in floats for lf = 0 and ratio_1 = 0."""
    from privdtol.engine.exact.numerics import _powers

    x = np.array([2.0**-104 - 4.5e-35, 2.0**-104 - 3e-35])
    assert (x / (2 * U) * (2 * U) == x).all()
    ratio = np.array([x / (2 * U), [0.0, 0.0]])
    _, rel = _powers(np.zeros((2, 2)), ratio, np.array([2.0**20, 1.0]), np.zeros(2), 1.0)
    eps0 = np.array([4 * U, 4 * U + 2.0**-103])
    assert rel[0].tolist() == (2.0**20 * eps0 + 9 * U).tolist()


@pytest.mark.parametrize("om", [0.0, 1e-3, 0.25])
def test_powers_bound_covers_its_rounding_when_the_inputs_are_exact(om):
    """_powers for K = 2 (ns = 1, 1) with exact inputs (db = 0, c_r = 0: the F_h = e^(lf_h)
    are the given floats, taken as exact): Lg_1 = (lf_0 + lf_1) - lf_1, and rel must bound
    the relative error of e^(Lg_1) against e^(lf_0) in 50-digit decimals: the input term
    (n_tot - 1) 4 U = 4 U plus the rounding 4 U (|tot| + |lf_1| + 2) >= 8 U of the sums and
    of exp; a bound is never negative (exact inputs: in the package c_r >= 268 would cover a
    missing 16 U)."""
    from privdtol.engine.exact.numerics import _powers

    ns = np.array([1.0, 1.0])
    F = np.array([[1 - om, 0.5], [0.9, 1 - om / 2], [0.3, 0.7]])  # 3 nodes x 2 groups
    lf = np.log(F).T.copy()  # groups x nodes
    ratio = np.minimum(1.0, (1 - F.T) / F.T)
    Lg, rel = _powers(lf, ratio, ns, np.zeros(2), 0.0)
    assert Lg.shape == rel.shape == (1, 3)
    assert (rel >= 0).all()
    with localcontext() as ctx:
        ctx.prec = 50
        for k in range(3):
            true = Decimal(float(lf[0, k])).exp()
            got = Decimal(float(np.exp(Lg[0, k])))
            assert abs(got - true) / true <= Decimal(float(rel[0, k])), k
    assert rel.max() < 30 * U


def test_with_best_covers_the_rounding_of_one_minus_a_tiny_sum():
    """The best group's probability 1 - sum_(g >= 1) n_g P_g: with one other group at
    P = 1e-30 (error 1e-46) the float result is 1.0, 1e-30 from the exact 1 - 1e-30; the
    bound (its 4 U for the rounding of 1 - s) covers that and is never negative."""
    from privdtol.engine.exact.numerics import _with_best

    P, E = _with_best(np.array([[1e-30]]), np.array([[1e-46]]), np.array([1.0, 1.0]))
    assert P[0, 0] == 1.0 and P[0, 1] == 1e-30
    true = abs(Fraction(float(P[0, 0])) - (1 - Fraction(1e-30)))
    assert float(true) > 0.9e-30
    assert true <= Fraction(float(E[0, 0])) <= 8 * U
    assert E[0, 1] >= 1e-46
