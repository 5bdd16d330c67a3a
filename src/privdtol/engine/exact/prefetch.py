"""Laws computed ahead of the exact engine's block loop (:func:`privdtol.engine.exact.
expected_regret`: E[Reg_T] = sum_r #(B_r ∩ [1, T]) sum_j Delta_j P(A_r = j), Section 3 and the
proof of Lemma 4 of Cesari & Colomboni), so that the laws of a fixed-prefix rule (one per block)
get their Binomial windows and pmfs in one batch (:meth:`.spec._Spec.laws`) instead of one
block at a time."""

from __future__ import annotations

from privdtol.engine.exact.numerics import SMALL_M


def prefetch_laws(avg, r, R, tail, level):
    """Before block r of the block loop of :func:`privdtol.engine.exact.expected_regret`, for
    a fixed prefix (one law per block, from m = the prefix of block r' - 1): the laws of every
    block r' >= r the loop is sure to reach, in one :meth:`.spec._Spec.laws` call (their
    Binomial windows and pmfs in a few batches; each law the same, bit for bit, as computed
    alone: tested).  The loop ends at the first block whose tail bound is <= 1e-6 tol times
    the regret so far, and the regret so far never exceeds cum + tail[r] (tail[r] bounds the
    rest; ``level`` is 1e-6 tol times that): a block with a larger tail bound is reached.  (Were
    it not, up to rounding, a law computed ahead would be wasted work, not a different
    result.)  Softmax laws of m <= SMALL_M are left to be computed one at a time, as before:
    their batch path pads a batch's pmfs to one width, which changes the rounding."""
    spec = avg.spec
    if spec.random_prefix or spec.det:
        return
    ms = []
    for rr in range(r, R):
        if tail[rr] <= level:
            break
        m = spec.m_range(rr - 1)[0]
        if m not in avg.cache and rr - 1 >= 1 and not (spec.softmax and m <= SMALL_M):
            ms.append(m)
    if len(ms) > 1:
        avg.laws(ms)
