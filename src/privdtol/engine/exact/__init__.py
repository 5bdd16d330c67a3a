"""Exact expected pseudo-regret of the block algorithms of privdtol (no Monte Carlo).

Cesari & Colomboni, "Optimal Gap-Dependent Regret for Private Stochastic DTOL": Section 3
(Reg_T = sum_t E[Delta_(I_t)]), Section 4 (blocks B_r = {2^r..2^(r+1)-1}, A_0 uniform, M_0 = 1,
M_r ~ Unif{2^(r-1)+1..2^r}, A_(r+1) ~ softmax(-eta L_r(M_r)), eta = min(eps/2, 1/8)) and the proof
of Lemma 4 (Section 5.3): A_(r+1) depends on block r only, so, with equality,

    E[Reg_T] = sum_r #(B_r ∩ [1, T]) sum_j Delta_j P(A_r = j).

Each rule is a noisy argmin of independent block sums S_j (Binomial(m, mu_j); m mu_j for
deterministic losses): softmax(-eta S) = argmin_j (eta S_j + log E_j), E_j ~ Exp(1) (Gumbel-max),
report-noisy-min = argmin_j (S_j + Z_j), Z_j ~ Laplace(2/eps); so

    P(j wins) = ∫ f_j(y) prod_(i != j) P(Y_i > y) dy,

and equal means share one factor raised to a power (K = 2^16 costs what K = 2 costs).

- Softmax: in s = log t this is E[w_j/sum w] = ∫ E[w_j t e^(-t w_j)] prod_i E[e^(-t w_i)] ds, each
  factor a lattice convolution of a pmf with exp(-e^u) or e^u exp(-e^u). The trapezoid rule with
  step h <= 0.4 has relative error <= 2/(cos a (e^(2 pi a/h) - 1)) <= 2e-9 (the integrand is
  analytic and bounded by P_j/cos a in abs(Im s) < a < pi/2: Trefethen & Weideman 2014, Thm 5.1).
- Laplace: between atoms every factor is c0 + c1 e^(y/b) + c2 e^(-y/b) (exact exponential
  recursions); adaptive Gauss-Kronrod (7,15) per piece; closed form beyond the last atom.
- Binomial pmfs by Loader's saddle-point formula at one point in 64 and the ratio recurrence
  b(k+1)/b(k) = (m-k) mu/((k+1)(1-mu)) between, with a per-point error bound; truncated where
  the tails are < 1e-22 (total-variation term in the bound) and renormalised, so that the error of
  1 - P(Y_i > y) is relative and the K-fold power does not multiply it by K.
- Groups with a Chernoff bound < 1e-40 on their win probability are dropped (L1 change <= 2 bound).
- Average over M_r: exact sums for <= 64 values; else panels with a Chebyshev interpolant of
  log P_g in log m of degree 8, 16 or 32 (nested nodes at integers), summed exactly over the
  integers (discrete Gauss rule of the uniform measure), error from the last Chebyshev
  coefficients, shrunk when too large, and ended before a group that matters is predicted (by
  its Chernoff bound) to lose its value; from the m on which the (monotone) Chernoff bounds
  make every weighted group negligible, the bounds alone (:mod:`.averaging`).
- Blocks whose (monotone in m) Chernoff bound sum is < 1e-16 of the regret so far are skipped and
  the bound added. All error terms are rigorous round-off/truncation bounds except the
  Gauss-Kronrod and Chebyshev a-posteriori estimates (standard, conservative).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from privdtol.engine.exact.averaging import _Averager
from privdtol.engine.exact.heap import retain_freed_heap
from privdtol.engine.exact.numerics import U
from privdtol.engine.exact.prefetch import prefetch_laws
from privdtol.engine.exact.spec import (
    EXACT_ALGORITHMS,
    EXACT_ENVS,
    _Spec,
    law_family,
    why_not_exact,
)

__all__ = [
    "EXACT_ALGORITHMS",
    "EXACT_ENVS",
    "block_law",
    "check_exact",
    "cost_units",
    "exact_available",
    "expected_regret",
    "law_family",
    "regret_and_averager",
    "why_not_exact",
]


def _group_law(avg, r):
    """Law of A_(r+1) per group (and error bound) from block r; r = -1: A_0 (uniform)."""
    spec = avg.spec
    if r < 0:
        return np.full(spec.mu.size, 1.0 / spec.K), np.zeros(spec.mu.size)
    lo, hi = spec.m_range(r)
    if r == 0 or not spec.random_prefix:
        P, E = avg.laws([lo])
        return P[0], E[0]
    S, E = avg.sum(lo, hi)
    return S / (hi - lo + 1), E / (hi - lo + 1)


def block_law(
    algorithm: str, means: np.ndarray, epsilon: float, r: int, env: str = "bernoulli"
) -> tuple[np.ndarray, float]:
    """Law of A_(r+1) (played on B_(r+1)) given block r's data (Section 4); r = -1 gives A_0.

    Returns (P(A_(r+1) = j) for j = 0..K-1, bound on sum_j abs(error_j)).  A selection mixed
    with the uniform law (``rps_uniform_mix``) is its rule's law mixed (:meth:`_Spec.mixed`;
    A_0 is uniform either way)."""
    spec = _Spec(algorithm, means, epsilon, env)
    avg = _Averager(spec, spec.m_range(max(0, int(r)))[1], spec.ns)
    avg.tol = 1e-12
    P, err = _group_law(avg, int(r))
    if r >= 0:
        P, err = spec.mixed(P, err)
    return P[spec.inv], float(spec.ns @ err)


def _block_bounds(spec, R):
    """Per block r < R: the smallest prefix m that A_r reads (of block r - 1), the Chernoff
    bound gb_r on its weighted gap sum_j Delta_j P(A_r = j) (gb_0 = 0: A_0 is exact) and
    tail_r = sum_(r' >= r) 2^r' gb_r', which ends :func:`expected_regret`'s block loop."""
    mmin = np.array([1] + [spec.m_range(r - 1)[0] for r in range(1, R)], dtype=float)
    gb = spec.chernoff(mmin) @ (spec.ns * spec.delta)
    gb[0] = 0.0
    tail = np.cumsum((gb * np.exp2(np.arange(R)))[::-1])[::-1]
    return mmin, gb, tail


#: the error wanted of the regret, relative to it (the bound returned is rigorous whatever it
#: is: it is the error actually incurred, computed, not assumed)
REGRET_TOL = 1e-10


def expected_regret(algorithm, means, epsilon, horizons, env="bernoulli", tol=REGRET_TOL):
    """E[Reg_T] = sum_r #(B_r ∩ [1, T]) sum_j Delta_j P(A_r = j) for each T (Section 3 and the
    block accounting of Lemma 4's proof, with equality); returns (regret, error_bound).  ``tol``:
    the relative error wanted (a search that only ranks instances can afford 1e-5).

    A selection (1 - gamma) rule + gamma uniform (``rps_uniform_mix``) is linear in its
    rule's law: block r >= 1 costs (1 - gamma) g_r + gamma g_0 per round, g_r the rule's
    weighted gap and g_0 = sum_j Delta_j / K that of the uniform A_0, which block 0 (one round,
    T >= 1) plays anyway; so Reg_T = (1 - gamma) Reg_T(rule) + gamma g_0 T exactly."""
    regret, error, _ = regret_and_averager(algorithm, means, epsilon, horizons, env, tol)
    return regret, error


#: the last results of :func:`regret_and_averager` in this process, by law key, horizons and
#: tolerance (the pipeline sorts a batch's cells so that cells of one law are neighbours)
_RECENT: OrderedDict = OrderedDict()
RECENT_MAX = 4


def regret_and_averager(algorithm, means, epsilon, horizons, env="bernoulli", tol=REGRET_TOL):
    """:func:`expected_regret` and the M-averager that computed it (its selection laws and
    panels, which the proof terms of :mod:`.proof` reuse instead of computing them again).
    A cell whose laws equal those of one of the last :data:`RECENT_MAX` cells computed
    (:meth:`.spec._Spec.law_key`: e.g. ``wu_wang`` after ``rnm_ftnl``) gets that cell's
    numbers, which the same operations would give again, and its averager."""
    spec = _Spec(algorithm, means, epsilon, env)
    hs = [int(T) for T in np.atleast_1d(horizons)]
    if min(hs) < 1:
        raise ValueError("horizons must be positive integers")
    key = (spec.law_key(), tuple(hs), float(tol))
    if key in _RECENT:
        _RECENT.move_to_end(key)
        reg, eb, avg = _RECENT[key]
        return reg.copy(), eb.copy(), avg
    reg, eb, avg = _regret_and_averager(spec, hs, tol)
    _RECENT[key] = reg.copy(), eb.copy(), avg
    while len(_RECENT) > RECENT_MAX:
        _RECENT.popitem(last=False)
    return reg, eb, avg


def _regret_and_averager(spec, hs, tol):
    retain_freed_heap()
    R = max(hs).bit_length()  # blocks 0..R-1 meet [1, max T]
    w = spec.ns * spec.delta
    g, ge = np.zeros(R), np.zeros(R)
    g[0] = float(w.sum()) / spec.K
    ge[0] = 4 * U * g[0]
    _, gb, tail = _block_bounds(spec, R)
    cum, avg = g[0], _Averager(spec, spec.m_range(max(0, R - 2))[1], w)
    for r in range(1, R):
        if tail[r] <= 1e-6 * tol * cum:
            ge[r:] = gb[r:]
            break
        prefetch_laws(avg, r, R, tail, 1e-6 * tol * (cum + tail[r]))
        avg.tol = tol * cum / (1 << r)
        P, err = _group_law(avg, r - 1)
        g[r] = float(w @ P)
        ge[r] = float(w @ err) + 4 * U * g[r]
        cum += g[r] * (1 << r)
    reg, eb = np.empty(len(hs)), np.empty(len(hs))
    for i, T in enumerate(hs):
        n = np.array([max(0, min((2 << r) - 1, T) - (1 << r) + 1) for r in range(R)], float)
        reg[i] = float(n @ g)
        eb[i] = float(n @ ge) + 4 * R * U * reg[i] + 1e-300
    if spec.mix:  # expected_regret's docstring: (1 - gamma) Reg_T(rule) + gamma g_0 T
        uni = spec.mix * g[0] * np.array(hs, dtype=float)
        reg = (1 - spec.mix) * reg + uni
        eb = (1 - spec.mix) * eb + uni * (w.size + 4) * U + 4 * U * reg
    return reg, eb, avg


def cost_units(algorithm, means, epsilon, horizon, env="bernoulli") -> float:
    """A rough work estimate of :func:`expected_regret` (for batching only, :mod:`privdtol.
    pipeline.plan`): over the blocks it computes (up to the first whose Chernoff bounds make
    the rest negligible, as :func:`expected_regret` stops), laws per block (about 6 for a random
    prefix, 1 for a fixed one) x groups x lattice points (pmf window ~21 sd + kernel width)."""
    spec = _Spec(algorithm, means, epsilon, env)
    w = spec.ns * spec.delta
    # kernel: its lattice points (86 / eta) up to ~300, beyond which nodes are every 0.3 / eta
    # points (polyphase) and the kernel's width costs ~1% of a pmf point (measured)
    width = 86.0 / spec.eta if spec.softmax else 40.0 * spec.b
    kernel = width if width <= 300 else 300 + 0.01 * width
    R = max(2, int(horizon).bit_length())
    m, gb, tail = _block_bounds(spec, R)
    # the regret so far, bounded as expected_regret's loop accumulates it; the loop stops at
    # the first block whose tail is negligible against it
    cum = float(w.sum()) / spec.K + np.cumsum(gb * np.exp2(np.arange(R)))
    run = np.cumprod(np.r_[True, tail[2:] > 1e-16 * cum[1:-1]]).astype(bool)
    groups = (spec.ns * spec.chernoff(m[1:]) >= 1e-40).sum(axis=1)
    laws = 6.0 if spec.random_prefix else 1.0
    sd = float(np.sqrt(spec.mu * (1 - spec.mu)).max())
    work = laws * groups * (21 * sd * np.sqrt(m[1:]) + 60 + kernel) + 2e3
    return float(work[run].sum())


def exact_available(algorithm: str, env: str) -> bool:
    """Whether :func:`expected_regret` covers this algorithm on this loss model (read from its
    declarations now, as ``privdtol check-config`` reports it)."""
    from privdtol.algorithms import ALGORITHMS

    cls = ALGORITHMS.get(algorithm)
    return cls is not None and why_not_exact(cls) is None and env in EXACT_ENVS


def check_exact(algorithm: str, env: str) -> None:
    """One-line InputError unless the cell can be computed exactly."""
    from privdtol.errors import InputError

    if algorithm not in EXACT_ALGORITHMS:
        raise InputError(
            "algorithm", f"{algorithm!r} has no exact engine", ", ".join(EXACT_ALGORITHMS)
        )
    if env not in EXACT_ENVS:
        raise InputError("env", f"{env!r} has no exact engine", ", ".join(EXACT_ENVS))
