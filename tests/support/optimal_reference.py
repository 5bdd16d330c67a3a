"""Plain references for the floor (tests of :mod:`privdtol.engine.optimal`), written apart
from the package: the sequence-form program with no reduction (the full alphabet {0, 1}^K,
one variable per (data, actions), every placement's regret averaged), built with dictionaries
and solved by HiGHS's dual simplex; and the regret of follow-the-leader with uniform ties (the
Bayes rule) by enumerating the data."""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import sparse
from scipy.optimize import linprog


def _round_law(K: int, mu: float, gap: float, j: int) -> dict[tuple[int, ...], float]:
    """P_j(losses of one round) over {0, 1}^K, action j best."""
    law = {}
    for losses in itertools.product((0, 1), repeat=K):
        p = 1.0
        for i, loss in enumerate(losses):
            m = mu - gap if i == j else mu
            p *= m if loss else 1 - m
        law[losses] = p
    return law


def _data_law(K, mu, gap, n) -> dict[tuple, list[float]]:
    """P_j(h) for each data h of n rounds (a tuple of loss tuples), one entry per j."""
    laws = [_round_law(K, mu, gap, j) for j in range(K)]
    return {
        h: [math.prod(laws[j][v] for v in h) for j in range(K)]
        for h in itertools.product(list(laws[0]), repeat=n)
    }


def unreduced_optimum(
    K: int, mu: float, gap: float, epsilon: float | None, T: int, method: str = "highs-ds"
) -> float:
    """The sequence-form program without any reduction; ``epsilon=None``: no privacy rows."""
    var: dict[tuple, int] = {}
    cost: list[float] = []
    for t in range(1, T + 1):
        for h, ph in _data_law(K, mu, gap, t - 1).items():
            for a in itertools.product(range(K), repeat=t):
                var[(h, a)] = len(var)
                cost.append(gap * sum(ph[j] for j in range(K) if a[-1] != j) / K)
    eq_rows, eq_b = [], []
    eq_rows.append({var[((), (a,))]: 1.0 for a in range(K)})
    eq_b.append(1.0)
    values = list(itertools.product((0, 1), repeat=K))
    for t in range(2, T + 1):
        for h in itertools.product(values, repeat=t - 2):
            for v in values:
                for a in itertools.product(range(K), repeat=t - 1):
                    row = {var[((*h, v), (*a, b))]: 1.0 for b in range(K)}
                    row[var[(h, a)]] = -1.0
                    eq_rows.append(row)
                    eq_b.append(0.0)
    ub_rows = []
    if epsilon is not None and T >= 2:
        for h in itertools.product(values, repeat=T - 1):
            for s in range(T - 1):
                for w in values:
                    if w == h[s]:
                        continue
                    other = (*h[:s], w, *h[s + 1 :])
                    for a in itertools.product(range(K), repeat=T):
                        ub_rows.append({var[(h, a)]: 1.0, var[(other, a)]: -math.exp(epsilon)})

    def matrix(rows):
        r = [i for i, row in enumerate(rows) for _ in row]
        c = [k for row in rows for k in row]
        d = [x for row in rows for x in row.values()]
        return sparse.csr_matrix((d, (r, c)), shape=(len(rows), len(var)))

    kw = {}
    if ub_rows:
        kw = {"A_ub": matrix(ub_rows), "b_ub": np.zeros(len(ub_rows))}
    res = linprog(np.array(cost), A_eq=matrix(eq_rows), b_eq=np.array(eq_b), method=method, **kw)
    assert res.status == 0, res.message
    return float(res.fun)


def ftl_regret(K: int, mu: float, gap: float, T: int) -> float:
    """Follow-the-leader with uniform ties, placement-averaged regret, by enumeration."""
    total = 0.0
    for t in range(1, T + 1):
        for h, ph in _data_law(K, mu, gap, t - 1).items():
            sums = [sum(v[i] for v in h) for i in range(K)]
            leaders = [i for i in range(K) if sums[i] == min(sums)]
            for j in range(K):
                miss = 1 - (j in leaders) / len(leaders)
                total += gap * ph[j] * miss / K
    return total
