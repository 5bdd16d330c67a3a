"""The two exact reductions of the floor's linear program (:mod:`.program`), on the two-level
instance of Corollary 1's lower side (one best action at mean loss mu - gap, K - 1 at mu,
independent Bernoulli losses, the best action's place j uniform).

**The tie symbol.**  A round whose K losses are all 0 and one whose K losses are all 1 have the
same likelihood ratio under every placement: P_j(1...1) / P_j(0...0) does not depend on j.  An
algorithm loses nothing by seeing only "all equal": given an algorithm x, the one that replaces
each all-equal round by 0...0 or 1...1 drawn, independently round by round, from their
conditional law given "all equal" (the same under every P_j) is causal (round by round), has the
same regret under every P_j, and is ε-DP (a neighbouring pair of data maps to a mixture of
neighbouring or equal pairs, coupled round by round).  Conversely an algorithm on the merged
alphabet runs on the full one.  So the program is written on R = 2^K - 1 symbols: the bit masks
0 ... 2^K - 2 of the actions that suffered a loss, the mask 0 standing for "all equal".

**Relabelling the actions.**  Permuting the action labels (and the loss coordinates with them)
maps feasible points to feasible points and keeps the placement-averaged regret; the program is
convex, so the average of an optimum over the K! relabellings is an optimum that is invariant
under them.  The program is therefore solved over invariant points: one variable per orbit of
(data, actions) under the symmetric group, each constraint written once per orbit.
"""

from __future__ import annotations

import itertools

import numpy as np


def n_symbols(K: int) -> int:
    """R = 2^K - 1: the loss masks, all-equal rounds merged into the mask 0."""
    return (1 << K) - 1


def symbol_probabilities(K: int, mu: float, gap: float) -> np.ndarray:
    """P_j(symbol) for every placement j of the best action (rows) and every symbol (columns):
    bit i of a mask is 1 when action i suffered a loss; the mask 0 is the probability of all
    K losses equal (all 0 or all 1)."""
    masks = np.arange(1 << K)
    bits = (masks[None, :] >> np.arange(K)[:, None]) & 1  # (K, 2^K)
    means = np.full((K, K), float(mu))
    np.fill_diagonal(means, mu - gap)  # row j: the means when j is best
    # P_j(mask) = prod_i means[j, i]^bit_i (1 - means[j, i])^(1 - bit_i)
    factors = np.where(bits[None, :, :] == 1, means[:, :, None], 1 - means[:, :, None])
    full = factors.prod(axis=1)  # (K, 2^K)
    probs = full[:, :-1].copy()
    probs[:, 0] += full[:, -1]
    return probs


def permutations(K: int) -> np.ndarray:
    """The K! relabellings of the actions, one per row: action i becomes ``row[i]``."""
    return np.array(list(itertools.permutations(range(K))), dtype=np.int64)


def symbol_images(K: int, perms: np.ndarray) -> np.ndarray:
    """The image of each symbol under each relabelling (rows: relabellings): bit i of a mask
    moves to bit ``perm[i]``; the mask 0 ("all equal") is fixed."""
    masks = np.arange(n_symbols(K))
    images = np.zeros((len(perms), len(masks)), dtype=np.int64)
    for i in range(K):
        bit = (masks >> i) & 1
        images |= bit[None, :] << perms[:, i : i + 1]
    return images


def digits(codes: np.ndarray, radix: int, width: int) -> np.ndarray:
    """The ``width`` base-``radix`` digits of each code, most significant first."""
    out = np.empty((len(codes), width), dtype=np.int64)
    rest = np.asarray(codes, dtype=np.int64).copy()
    for col in range(width - 1, -1, -1):
        out[:, col] = rest % radix
        rest //= radix
    return out


def encode(data: np.ndarray, actions: np.ndarray, R: int, K: int) -> np.ndarray:
    """The code of each (data, actions) row: data digits (base R) then action digits
    (base K), most significant first; the enumeration order of the program's items."""
    code = np.zeros(len(actions), dtype=np.int64)
    for col in range(data.shape[1]):
        code = code * R + data[:, col]
    for col in range(actions.shape[1]):
        code = code * K + actions[:, col]
    return code


def canonical(n_data: int, n_actions: int, K: int) -> np.ndarray:
    """For every (data of ``n_data`` rounds, actions of ``n_actions`` rounds), enumerated in
    code order, the smallest code of its orbit under the relabellings of the actions."""
    R = n_symbols(K)
    count = R**n_data * K**n_actions
    codes = np.arange(count, dtype=np.int64)
    data = digits(codes // K**n_actions, R, n_data)
    actions = digits(codes % K**n_actions, K, n_actions)
    perms = permutations(K)
    images = symbol_images(K, perms)
    best = codes.copy()
    for p in range(1, len(perms)):
        np.minimum(best, encode(images[p][data], perms[p][actions], R, K), out=best)
    return best


def orbits(n_data: int, n_actions: int, K: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(orbit index of every item, whether each item is its orbit's representative, number of
    orbits), items in code order."""
    canon = canonical(n_data, n_actions, K)
    _, index = np.unique(canon, return_inverse=True)
    reps = canon == np.arange(len(canon))
    return index.astype(np.int64), reps, int(reps.sum())
