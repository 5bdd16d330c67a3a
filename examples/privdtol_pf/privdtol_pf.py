"""The randomized-prefix template of Cesari & Colomboni (Section 4) with the permute-and-flip
mechanism of McKenna & Sheldon (NeurIPS 2020) in place of the exponential mechanism: a
privdtol plugin (docs/extending.md).

After block r the selection reads the data-independent random prefix M_r of Section 4 and
permute-and-flips on the losses L = L_r(M_r): visit the actions in a uniformly random order
and accept action j with probability p_j = exp(-eta (L_j - min_i L_i)), stopping at the first
accepted one (the leader has p = 1, so one pass suffices).  eta = min(eps/2, 1/8) as for RPS.

Privacy: with utility -L of sensitivity 1 in every coordinate, permute-and-flip with
p_j = exp(eps' (q_j - q*) / 2) is eps'-DP (McKenna & Sheldon 2020, Theorem 1), so each
selection is 2 eta-DP and, blocks reading disjoint data, the algorithm is eps-DP
(Proposition 1).  McKenna & Sheldon show it never selects worse in expectation than the
exponential mechanism at the same eps'.

Law: with U_i i.i.d. uniform arrival times as the random order, j is selected when it is
accepted and every action arriving before it is rejected, so

    P(j) = p_j  int_0^1  prod_(i != j) (1 - t p_i) dt,

a polynomial of degree K - 1 in t, integrated exactly (to rounding) by Gauss-Legendre
quadrature with ceil(K/2) + 1 nodes.  No exact family of privdtol's engine covers it
(``exact_law = None``): its regret is simulated by Monte Carlo, Rao-Blackwellized by this law;
the privacy audits compute its law through :meth:`PermuteAndFlipPrefix.law`.
"""

from __future__ import annotations

import numpy as np

from privdtol.algorithms import BlockAlgorithm, Privacy
from privdtol.algorithms.declarations import twice_eta
from privdtol.core import bounds


def acceptance(sums: np.ndarray, eta: float) -> np.ndarray:
    """p_j = exp(-eta (L_j - min_i L_i)) per row of an (n, K) matrix of loss sums."""
    sums = np.asarray(sums, dtype=float)
    return np.exp(-eta * (sums - sums.min(axis=1, keepdims=True)))


def permute_and_flip_law(sums: np.ndarray, eta: float) -> np.ndarray:
    """P(permute-and-flip selects j | L) for every row of ``sums`` (n, K), in closed form."""
    p = acceptance(sums, eta)
    n, K = p.shape
    nodes, weights = np.polynomial.legendre.leggauss(K // 2 + 1)
    t, w = (nodes + 1) / 2, weights / 2  # on [0, 1]
    out = np.empty_like(p)
    step = max(1, (1 << 22) // (t.size * K))  # rows at a time: bounded memory at any K
    for i in range(0, n, step):
        q = p[i : i + step]
        logs = np.log1p(-t[:, None, None] * q[None, :, :])  # (G, rows, K); t < 1: finite
        others = np.exp(logs.sum(axis=2, keepdims=True) - logs)  # prod over i != j
        out[i : i + step] = q * np.einsum("g,gnk->nk", w, others)
    return out


def permute_and_flip(rng: np.random.Generator, sums: np.ndarray, eta: float) -> np.ndarray:
    """One permute-and-flip draw per row: the first action, in a uniformly random order, whose
    coin with probability p_j comes up."""
    p = acceptance(sums, eta)
    n, K = p.shape
    order = np.argsort(rng.random((n, K)), axis=1)
    rows = np.arange(n)[:, None]
    accepted = rng.random((n, K)) < p[rows, order]
    return order[np.arange(n), np.argmax(accepted, axis=1)]


class PermuteAndFlipPrefix(BlockAlgorithm):
    """Section 4's randomized-prefix template with permute-and-flip selection."""

    name = "rps_pf"
    display_name = "RP permute-and-flip (plugin)"
    role = "competitor"
    source = "Section 4's template with McKenna & Sheldon 2020's permute-and-flip (plugin)"
    # not in paper/references.bib: the plugin declares its own entry (docs/extending.md)
    reference = "mckenna2020"
    bibtex = """@inproceedings{mckenna2020,
  author    = {McKenna, Ryan and Sheldon, Daniel R.},
  title     = {Permute-and-Flip: A New Mechanism for Differentially Private Selection},
  booktitle = {Advances in Neural Information Processing Systems 33 (NeurIPS 2020)},
  pages     = {193--203},
  year      = {2020},
  eprint    = {2010.12603},
  archivePrefix = {arXiv}
}"""
    privacy = Privacy(
        "permute-and-flip, p = exp(-eta (L - min L)): 2 eta-DP per selection", twice_eta
    )
    exact_law = None  # no family of the exact engine; law() is exact
    prefix_rule = "random"
    symmetric = True

    @property
    def eta(self) -> float:
        return float(bounds.eta(self.epsilon))

    def law(self, sums, r):
        return permute_and_flip_law(sums, self.eta)

    def select(self, rng, sums, r):
        return permute_and_flip(rng, sums, self.eta), self.law(sums, r)
