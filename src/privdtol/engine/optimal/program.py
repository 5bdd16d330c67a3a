"""The floor as a linear program in the sequence form: the smallest placement-averaged
pseudo-regret of any event-level ε-DP online algorithm on the two-level instance (the quantity
the explicit lower bound LB_T of :mod:`privdtol.core.lower_bound` bounds from below; Corollary 1
of Cesari & Colomboni and the lower bound of Hu et al. 2021).

An online algorithm is the law of its actions given the data.  Its sequence form has one
variable x_t(h, a_1 ... a_t) = P(I_1 ... I_t = a_1 ... a_t | data h of rounds 1 ... t - 1) per
round t, so that:

- x >= 0 and sum_(a_1) x_1(a_1) = 1;
- causality: sum_(a_t) x_t(h v, a a_t) = x_(t-1)(h, a) for every round-(t - 1) datum v (the
  action of round t reads only the rounds before t; the data of round T is never read);
- pure ε-DP of the whole output: x_T(h, a) <= e^ε x_T(h', a) for data h, h' that differ in one
  round (on a finite output space, the singleton events suffice, and the marginals x_t, t < T,
  inherit it);
- the objective, the pseudo-regret averaged over the place j of the best action,
  gap * sum_t (1/K) sum_j sum_(h, a) P_j(h) x_t(h, a) [a_t != j], is linear in x.

The program is written on the merged alphabet and over relabelling-invariant points
(:mod:`.reductions`, both exact): one variable per orbit of (data, actions), each constraint
once per orbit.  ``epsilon = inf`` drops the privacy rows (the Bayes rule's regret: follow the
leader).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from privdtol.engine.optimal import reductions as red


@dataclass(frozen=True)
class Program:
    """The reduced program: minimise ``c @ y`` subject to ``A_eq @ y = b_eq``,
    ``A_ub @ y <= 0`` and ``y >= 0``; ``index[t - 1]`` maps round t's items (in code order)
    to their variable (orbit) and ``offsets[t - 1]`` is the first variable of round t."""

    K: int
    horizon: int
    c: np.ndarray
    A_eq: sparse.csr_matrix
    b_eq: np.ndarray
    A_ub: sparse.csr_matrix | None
    index: tuple[np.ndarray, ...]
    offsets: tuple[int, ...]

    @property
    def n_variables(self) -> int:
        return len(self.c)

    def full(self, y: np.ndarray, t: int) -> np.ndarray:
        """x_t on every item of round t (code order) from the reduced solution ``y``."""
        return y[self.offsets[t - 1] + self.index[t - 1]]


def history_probabilities(probs: np.ndarray, n: int) -> np.ndarray:
    """P_j(h) for every placement j (rows) and every data h of ``n`` rounds (columns, in code
    order: round 1 the most significant digit)."""
    out = np.ones((probs.shape[0], 1))
    for _ in range(n):
        out = (out[:, :, None] * probs[:, None, :]).reshape(probs.shape[0], -1)
    return out


def build(K: int, mu: float, gap: float, epsilon: float, horizon: int) -> Program:
    """The reduced program of one instance (inputs already checked by :mod:`.size`)."""
    R = red.n_symbols(K)
    probs = red.symbol_probabilities(K, mu, gap)
    index, offsets, costs, n_total = [], [], [], 0
    for t in range(1, horizon + 1):
        idx, _, n_orbits = red.orbits(t - 1, t, K)
        index.append(idx)
        offsets.append(n_total)
        n_total += n_orbits
        # cost of each item: gap (1/K) sum_j P_j(h) [a_t != j]
        ph = history_probabilities(probs, t - 1)  # (K, R^(t-1))
        items = np.arange(len(idx), dtype=np.int64)
        h, last = items // K**t, items % K
        wrong = ph[:, h].sum(axis=0) - ph[last, h]
        costs.append(np.bincount(idx, weights=gap * wrong / K, minlength=n_orbits))
    c = np.concatenate(costs)

    rows, cols, vals = [], [], []
    n_rows = 0
    # round 1: the first action's law sums to one
    first = offsets[0] + index[0]
    rows.append(np.zeros(K, dtype=np.int64))
    cols.append(first)
    vals.append(np.ones(K))
    n_rows = 1
    for t in range(2, horizon + 1):
        # one row per orbit of (data g of t - 1 rounds, actions a of t - 1 rounds):
        # sum_(a_t) x_t(g, a a_t) - x_(t-1)(g minus its last round, a) = 0
        _, reps, _ = red.orbits(t - 1, t - 1, K)
        pair = np.flatnonzero(reps)
        g, a = pair // K ** (t - 1), pair % K ** (t - 1)
        row = n_rows + np.arange(len(pair), dtype=np.int64)
        for action in range(K):
            child = (g * K**t) + a * K + action
            rows.append(row)
            cols.append(offsets[t - 1] + index[t - 1][child])
            vals.append(np.ones(len(pair)))
        parent = (g // R) * K ** (t - 1) + a
        rows.append(row)
        cols.append(offsets[t - 2] + index[t - 2][parent])
        vals.append(-np.ones(len(pair)))
        n_rows += len(pair)
    A_eq = sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_rows, n_total),
    )
    b_eq = np.zeros(n_rows)
    b_eq[0] = 1.0
    A_ub = None
    if horizon >= 2 and math.isfinite(epsilon):
        A_ub = _privacy_rows(K, epsilon, horizon, index[-1], offsets[-1], n_total)
    return Program(K, horizon, c, A_eq, b_eq, A_ub, tuple(index), tuple(offsets))


def _privacy_rows(K, epsilon, horizon, index, offset, n_total) -> sparse.csr_matrix | None:
    """x_T(h, a) - e^ε x_T(h', a) <= 0 for every orbit representative (h, a) and every h' that
    differs from h in one of the T - 1 rounds read; pairs in one orbit are dropped (the row
    reads (1 - e^ε) y <= 0, true for ε >= 0), repeated pairs kept once."""
    R = red.n_symbols(K)
    _, reps, _ = red.orbits(horizon - 1, horizon, K)
    item = np.flatnonzero(reps)
    h, a = item // K**horizon, item % K**horizon
    data = red.digits(h, R, horizon - 1)
    left, right = [], []
    for s in range(horizon - 1):
        weight = R ** (horizon - 2 - s)
        for shift in range(1, R):
            other = (data[:, s] + shift) % R
            neighbour = (h + (other - data[:, s]) * weight) * K**horizon + a
            left.append(index[item])
            right.append(index[neighbour])
    pairs = np.stack([np.concatenate(left), np.concatenate(right)], axis=1)
    pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    if len(pairs) == 0:
        return None
    n = len(pairs)
    rows = np.repeat(np.arange(n, dtype=np.int64), 2)
    cols = offset + pairs.ravel()
    vals = np.tile([1.0, -math.exp(epsilon)], n)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(n, n_total))
