"""An explicit lower bound on the pseudo-regret of every ε-DP algorithm (the lower side of
Corollary 1), on the two-level instance: K actions with i.i.d. Bernoulli losses, one best
action j with mean loss mu - gap, the K - 1 others at mu (full information, event-level ε-DP).

Let P_j be the law of the data when j is best and P_0 the reference law in which every action
has mean mu; let e_t = (1/K) sum_j P_j(I_t != j), the probability that round t's action is not
the best one under a uniform prior on j.  The pseudo-regret averaged over j is
gap * sum_(t<=T) e_t, and two arguments bound e_t from below.  Both assume i.i.d. rounds with
independent coordinates and an online algorithm (I_t depends on the first t - 1 rounds and on
its own randomness only).

- Statistical (any algorithm; Fano's inequality with the uniform prior on j and P_0 as the
  reference): KL(P_j || P_0) over t - 1 rounds is (t - 1) kl(mu - gap || mu), so
  e_t >= s_t = 1 - ((t - 1) kl(mu - gap || mu) + log 2) / log K (natural logarithms;
  s_t = -inf for t >= 2 if mu = 1, where kl is infinite).
- Privacy (any ε-DP algorithm; group privacy under a coupling): turning each 1 of coordinate j
  under P_0 into 0 with probability gap / mu gives P_j, and a round then differs from the
  reference with probability gap, independently, so the number D of differing rounds among the
  first t - 1 is Bin(t - 1, gap).  Group privacy gives, for every d >= 0,
  P_j(I_t = j) <= e^(ε d) P_0(I_t = j) + P(D > d), and (1/K) sum_j P_0(I_t = j) = 1/K, so
  e_t >= p_t = 1 - min_(d>=0) [e^(ε d)/K + P(Bin(t - 1, gap) > d)].

Hence the average over j of Reg_T is at least LB_T = gap * sum_(t<=T) max(0, s_t, p_t): on the
standard instance with the best action placed at random, so for some placement j; for an
algorithm that treats the actions symmetrically e_t is the instance's own error probability for
every j and the bound holds on every placement.  These are explicit versions of the arguments
behind the lower bound of Hu et al. 2021, with their constants replaced by exact terms.

Both s_t and p_t are non-increasing in t (Bin(t - 1, gap) grows stochastically in t), and so is
f(t) = max(0, s_t, p_t): once f is 0 it stays 0 and the sum is exact (horizon-free).
:func:`lower_bound` sums f round by round up to :data:`EXACT_LIMIT`; beyond it, over ranges
[a, b] growing by the factor 1 + :data:`RANGE_RATIO`, (b - a + 1) f(b) <= sum <= (b - a + 1) f(a):
the certified value is the lower end and the error the width of this sandwich.
"""

from __future__ import annotations

import math

import numpy as np

from privdtol.errors import InputError

#: rounds 1..EXACT_LIMIT are summed one by one
EXACT_LIMIT = 1 << 14
#: beyond EXACT_LIMIT, each range of the sandwich ends about RANGE_RATIO * its start later
RANGE_RATIO = 2.0**-11
#: the sums reported: Fano's term, the group-privacy term, the issue's LB_T = gap sum of
#: max(0, s_t, p_t), the two-point term, and the best bound, gap sum of max(0, s_t, p_t, b_t)
NAMES = ("statistical", "privacy", "combined", "two_point", "best")
#: the largest horizon accepted (the pipeline's largest checkpoint)
MAX_HORIZON = (1 << 40) - 1
#: where a coarse search of the minimizing d looks first (means + Z standard deviations)
_Z = np.array([-1.0, 0, 0.5, 1, 1.5, 2, 2.5, 3, 4, 6])
#: then around the best of these, at a quarter and a sixteenth of a standard deviation
_FINE = np.array([-2.0, -1, 1, 2])
#: at most this many (round, d) cells per numpy call
_CELLS = 1 << 20
#: cost limits of the privacy term, checked before its windows are allocated: values of d in
#: one round's window (each takes ~64 bytes over the copies alive at once: 2^24 ~ 1 GB) and in
#: one call's windows together (~2 million a second: 2^28 ~ 2 minutes); a tiny epsilon (1e-9)
#: widens the window to ~log K / epsilon values
MAX_WINDOW, MAX_WINDOW_CELLS = 1 << 24, 1 << 28


# ------------------------------------------------------------------------------- validation
def _number(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def _integer(x) -> int | None:
    """``x`` as an int when it is an integral number (not a bool), else None."""
    if isinstance(x, bool | np.bool_):
        return None
    try:
        return int(x) if int(x) == x else None
    except (TypeError, ValueError, OverflowError):
        return None


def _check(K, mu, gap, epsilon=None) -> tuple[int, float, float, float | None]:
    k = _integer(K)
    if k is None or k < 2:
        raise InputError("K", f"got {K!r}", "integers >= 2")
    g, m = _number(gap), _number(mu)
    if not 0 < g <= 1:
        raise InputError("gap", f"got {gap!r}", "0 < gap <= 1")
    if not g <= m <= 1:
        raise InputError("mu", f"got {mu!r} with gap {g}", "gap <= mu <= 1, so that mu - gap >= 0")
    if epsilon is None:
        return k, m, g, None
    e = _number(epsilon)
    if not (math.isfinite(e) and e > 0):
        raise InputError("epsilon", f"got {epsilon!r}", "a finite number > 0")
    return k, m, g, e


def _rounds(values, field: str, top: int) -> np.ndarray:
    """``values`` as a 1-d int64 array of integers in [1, top], else an :class:`InputError`."""
    raw = np.atleast_1d(np.asarray(values, dtype=object)).ravel().tolist()
    ints = [_integer(v) for v in raw]
    bad = [v for v, i in zip(raw, ints, strict=True) if i is None or not 1 <= i <= top]
    if bad or not ints:
        got = f"got {bad[0]!r}" if bad else "got no value"
        raise InputError(field, got, f"integers from 1 to {top}")
    return np.array(ints, dtype=np.int64)


# ------------------------------------------------------------------------------ the two terms
def _log1pmx(x: float) -> float:
    """log(1 + x) - x, accurate also for small |x|."""
    if abs(x) > 0.125:
        return math.log1p(x) - x
    total, power, k = 0.0, x, 1
    while True:
        k += 1
        power *= -x
        term = power / k  # (-1)^(k+1) x^k / k
        total += term
        if abs(term) <= 1e-18 * abs(total):
            return total


def kl_gap(mu: float, gap: float) -> float:
    """kl(mu - gap || mu) of Bernoulli laws (natural log; inf when mu = 1), without the
    cancellation of the direct formula when the gap is small."""
    if mu >= 1:
        return math.inf
    q = mu - gap
    if q <= 0:
        return -math.log1p(-mu)
    a, b = gap / mu, gap / (1 - mu)  # q/mu = 1 - a, (1 - q)/(1 - mu) = 1 + b
    return q * _log1pmx(-a) + (1 - q) * _log1pmx(b) + gap * gap / (mu * (1 - mu))


def _s(K: int, kl: float, t: np.ndarray) -> np.ndarray:
    n = np.asarray(t, dtype=float) - 1
    with np.errstate(invalid="ignore"):
        info = np.where(n == 0, 0.0, n * kl)  # 0 * inf is 0: no data before round 1
    return 1 - (info + math.log(2)) / math.log(K)


def _d_cap(K: int, epsilon: float) -> int:
    """A d beyond which no term of p_t's minimum is smallest: past it e^(ε d)/K exceeds
    e^ε + 1 >= the term at d* = ceil(log K / ε) (and for d >= t - 1 the terms increase)."""
    return math.ceil((math.log(K) + np.logaddexp(epsilon, 0.0)) / epsilon) + 1


def _weight(d, K: int, epsilon: float):
    """e^(ε d)/K elementwise (inf where it overflows)."""
    with np.errstate(over="ignore"):
        return np.exp(epsilon * d - math.log(K))


def _min_term(n: np.ndarray, K: int, gap: float, epsilon: float) -> np.ndarray:
    """min_(d>=0) [e^(ε d)/K + P(Bin(n, gap) > d)] for each n, over the d that can matter.

    A search over a few d gives an upper bound B on the minimum; every d with a smaller term has
    P(Bin > d) < B and e^(ε d)/K < B, which confines it to a window [lo, hi], summed exactly."""
    # imported here: scipy.stats is slow to import, and every job that imports
    # the claims registry (each `privdtol check`) imports this module but few compute p_t
    from scipy import stats

    n = np.asarray(n, dtype=np.int64)
    out = np.empty(n.size)
    if n.size == 0:
        return out
    top = np.minimum(n, _d_cap(K, epsilon))[:, None]
    mean = n[:, None] * gap
    sd = np.sqrt(mean * (1 - gap))
    ends = [np.zeros_like(top), top - 1, top, np.rint(mean) - 1]  # (all of them if gap = 1)
    cand = np.concatenate([*ends, np.rint(mean + sd * _Z)], axis=1)
    rows = np.arange(n.size)
    cands, tails, bound, d0 = [], [], np.full(n.size, np.inf), np.zeros(n.size, dtype=np.int64)
    for spacing in (None, 1 / 4, 1 / 16):  # a coarse search, then two finer ones around its best
        if spacing is not None:
            cand = d0[:, None] + np.rint(sd * spacing * _FINE)
        cand = np.clip(cand, 0, top).astype(np.int64)
        tail = stats.binom.sf(cand, n[:, None], gap)
        values = _weight(cand, K, epsilon) + tail
        pick = np.argmin(values, axis=1)
        better = values[rows, pick] < bound
        bound[better], d0[better] = values[rows, pick][better], cand[rows, pick][better]
        cands.append(cand)
        tails.append(tail)
    cand, tail = np.concatenate(cands, axis=1), np.concatenate(tails, axis=1)
    lo = np.minimum(np.where(tail > bound[:, None], cand, -1).max(axis=1) + 1, d0)
    with np.errstate(divide="ignore"):
        hi = np.floor((np.log(bound) + math.log(K)) / epsilon) + 1
    hi = np.maximum(np.minimum(hi, top[:, 0]), d0).astype(np.int64)
    width = hi - lo + 1
    _check_cost(width, K, gap, epsilon)
    klass = np.ceil(np.log2(width)).astype(int)  # windows within a factor 2 of each other
    for c in np.unique(klass):
        group = np.flatnonzero(klass == c)
        W = int(width[group].max())
        chunk = max(1, _CELLS // W)
        for i in range(0, group.size, chunk):
            idx = group[i : i + chunk]
            d = lo[idx, None] + np.arange(W)
            inside = d <= hi[idx, None]
            pmf = np.where(inside, stats.binom.pmf(d, n[idx, None], gap), 0.0)
            # P(Bin > d) = P(Bin > hi) + sum of the pmf over (d, hi]: sums of positive terms
            above = np.cumsum(pmf[:, :0:-1], axis=1)[:, ::-1]
            tail = stats.binom.sf(hi[idx], n[idx], gap)[:, None] + np.pad(above, ((0, 0), (0, 1)))
            values = np.where(inside, _weight(d, K, epsilon) + tail, np.inf)
            out[idx] = values.min(axis=1)
    return out


def _check_cost(width: np.ndarray, K: int, gap: float, epsilon: float) -> None:
    """One InputError, before anything is allocated, when the windows of :func:`_min_term`
    exceed :data:`MAX_WINDOW` values in one round or :data:`MAX_WINDOW_CELLS` in all."""
    cells, widest = float(width.sum()), float(width.max())
    if widest > MAX_WINDOW or cells > MAX_WINDOW_CELLS:
        raise InputError(
            "epsilon",
            f"the privacy term at K={K}, gap={gap:g}, epsilon={epsilon:g} sums {cells:.3g} "
            f"values of d (one round's window {widest:.3g}: about {64 * widest / 1e9:.3g} GB, "
            f"{cells / 2e6:.3g} s), past the limits of {MAX_WINDOW:.3g} per round and "
            f"{MAX_WINDOW_CELLS:.3g} in all",
            "a larger epsilon or a smaller horizon; the limits are "
            "privdtol.core.lower_bound.MAX_WINDOW and MAX_WINDOW_CELLS",
        )


#: :func:`_min_term`'s values already computed, per (K, gap, epsilon) and n: the privacy term
#: does not depend on mu, so lower bounds of instances that differ only in mu (a worst-case
#: search's) share it.  Each n's value is computed from its own row alone, so a value read
#: here is the one a fresh computation gives, bit for bit.
_MIN_TERMS: dict[tuple[int, float, float], dict[int, float]] = {}
#: the values kept at most (about 100 MB); beyond it the store starts again empty
MIN_TERMS_MAX = 1 << 20


def _min_term_shared(n: np.ndarray, K: int, gap: float, epsilon: float) -> np.ndarray:
    """:func:`_min_term`, each (K, gap, epsilon, n) computed once per process."""
    if sum(map(len, _MIN_TERMS.values())) > MIN_TERMS_MAX:
        _MIN_TERMS.clear()
    store = _MIN_TERMS.setdefault((K, gap, epsilon), {})
    ns = np.asarray(n, dtype=np.int64).ravel().tolist()
    todo = np.array(sorted({v for v in ns if v not in store}), dtype=np.int64)
    if todo.size:
        store.update(zip(todo.tolist(), _min_term(todo, K, gap, epsilon).tolist(), strict=True))
    return np.array([store[v] for v in ns], dtype=float)


def statistical_term(K, mu, gap, t) -> np.ndarray:
    """s_t = 1 - ((t - 1) kl(mu - gap || mu) + log 2) / log K for each round t >= 1: Fano's
    lower bound on e_t for any algorithm (may be negative, -inf for t >= 2 when mu = 1)."""
    K, mu, gap, _ = _check(K, mu, gap)
    t = _rounds(t, "t", MAX_HORIZON + 1)
    return _s(K, kl_gap(mu, gap), t)


def privacy_term(K, mu, gap, epsilon, t) -> np.ndarray:
    """p_t = 1 - min_(d>=0) [e^(ε d)/K + P(Bin(t - 1, gap) > d)] for each round t >= 1: the
    group-privacy lower bound on e_t for any ε-DP algorithm (may be negative)."""
    K, mu, gap, epsilon = _check(K, mu, gap, epsilon)
    t = _rounds(t, "t", MAX_HORIZON + 1)
    return 1 - _min_term(t - 1, K, gap, epsilon)


# ----------------------------------------------------------------------------- the lower bound
def _first_zero_s(K: int, kl: float, top: int) -> int:
    """The first round t with s_t <= 0 (top + 1 if none up to top)."""
    if K == 2:
        return 1
    if math.isinf(kl):
        return 2
    guess = 1 + math.log(K / 2) / kl if kl > 0 else math.inf  # kl underflows for gap ~ 1e-160
    if guess > top + 1:
        return top + 1
    t = max(2, math.ceil(guess) - 2)
    while _s(K, kl, np.array([t]))[0] > 0 and t <= top:
        t += 1
    while t > 2 and _s(K, kl, np.array([t - 1]))[0] <= 0:
        t -= 1
    return t


#: rounds :func:`_first_zero_p` tries at once (one vectorised :func:`_min_term` each)
ZERO_GRID = 16


def _first_zero_p(K: int, gap: float, epsilon: float, top: int) -> int:
    """The first round t with p_t <= 0 (top + 1 if none up to top).  p_1 = 1 - 1/K > 0 and p_t
    is nonincreasing in t (P(Bin(t - 1, gap) > d) grows with t), so the first zero is
    bracketed, [lo, hi] with p_lo > 0 and p_hi <= 0, and each step tries up to ZERO_GRID
    rounds inside it at once (geometrically spaced) and keeps the two around the first zero."""
    lo, hi = 1, top + 1
    while hi - lo > 1:
        if hi - lo - 1 <= ZERO_GRID:
            ts = np.arange(lo + 1, hi, dtype=np.int64)
        else:
            ts = np.unique(np.rint(np.geomspace(lo + 1, hi - 1, ZERO_GRID)).astype(np.int64))
        positive = _min_term_shared(ts - 1, K, gap, epsilon) < 1
        first = int(np.argmin(positive)) if not positive.all() else ts.size
        lo = int(ts[first - 1]) if first > 0 else lo
        hi = int(ts[first]) if first < ts.size else hi
    return hi


def kl_pair(mu: float, gap: float) -> float:
    """kl(mu - gap || mu) + kl(mu || mu - gap): the divergence per round between the instance
    whose best action is j and the one whose best action is j' (inf when mu = 1 or mu = gap)."""
    if mu >= 1 or mu <= gap:
        return math.inf
    q = mu - gap
    return kl_gap(mu, gap) + (mu * math.log(mu / q) + (1 - mu) * math.log((1 - mu) / (1 - q)))


def _b(klp: float, t: np.ndarray) -> np.ndarray:
    n = np.asarray(t, dtype=float) - 1
    with np.errstate(invalid="ignore"):
        info = np.where(n == 0, 0.0, n * klp)
    return 0.25 * np.exp(-info)


def two_point_term(K, mu, gap, t) -> np.ndarray:
    """b_t = (1/4) exp(-(t - 1) (kl(mu - gap || mu) + kl(mu || mu - gap))) for each round t >= 1:
    the two-point (Bretagnolle-Huber) lower bound on e_t for any algorithm, which unlike Fano's
    does not vanish at small K (at K = 2, s_t <= 0 for every t)."""
    K, mu, gap, _ = _check(K, mu, gap)
    t = _rounds(t, "t", MAX_HORIZON + 1)
    return _b(kl_pair(mu, gap), t)


def _per_round(t: np.ndarray, K, kl, gap, epsilon, t0_p, klp) -> tuple[np.ndarray, ...]:
    """max(0, s_t), max(0, p_t), max(0, s_t, p_t), b_t and max(0, s_t, p_t, b_t) at the rounds t
    (p only before t0_p)."""
    s = np.maximum(_s(K, kl, t), 0.0)
    p = np.zeros(t.size)
    early = t < t0_p
    p[early] = np.maximum(1 - _min_term_shared(t[early] - 1, K, gap, epsilon), 0.0)
    b = _b(klp, t)
    combined = np.maximum(s, p)
    return s, p, combined, b, np.maximum(combined, b)


def lower_bound(K, mu, gap, epsilon, horizons, exact_limit: int = EXACT_LIMIT):
    """LB_T (``combined``) and its statistical and privacy parts for each horizon T (sorted,
    without repeats), as certified lower values with the width of their sandwich (``_error``;
    0 when every round was summed or the rest is provably 0, then ``exact`` is True)."""
    import pandas as pd  # the returned table only

    return pd.DataFrame(lower_bound_columns(K, mu, gap, epsilon, horizons, exact_limit))


def lower_bound_columns(K, mu, gap, epsilon, horizons, exact_limit: int = EXACT_LIMIT) -> dict:
    """:func:`lower_bound`'s table as a dict of columns (lists), without building the
    DataFrame (a few milliseconds: the worst-instance search reads one row per instance)."""
    K, mu, gap, epsilon = _check(K, mu, gap, epsilon)
    H = np.unique(_rounds(horizons, "horizon", MAX_HORIZON))
    limit = _exact_limit(exact_limit)
    top = int(H[-1])
    # before any work: a round's window of d is at most min(t - 1, the d cap) + 1 values
    _check_cost(np.array([min(top - 1, _d_cap(K, epsilon)) + 1]), K, gap, epsilon)
    kl, klp = kl_gap(mu, gap), kl_pair(mu, gap)
    t0_s = _first_zero_s(K, kl, top)
    t0_p = _first_zero_p(K, gap, epsilon, top)
    # b_t > 0 for every t unless klp is infinite; below 1e-300 it no longer counts in float
    t0_b = _first_zero_b(klp, top)
    return sandwich_columns(
        H,
        limit,
        (t0_s, t0_p, t0_b),
        lambda t: _per_round(t, K, kl, gap, epsilon, t0_p, klp),
        gap,
    )


def _exact_limit(exact_limit) -> int:
    limit = _integer(exact_limit)
    if limit is None or limit < 1:
        raise InputError("exact_limit", f"got {exact_limit!r}", "integers >= 1")
    return limit


def _first_zero_b(klp: float, top: int) -> int:
    """The first round from which b_t no longer counts (below 1e-300; 2 when klp is inf)."""
    return 2 if math.isinf(klp) else min(top + 1, 2 + math.ceil(700 / max(klp, 1e-300)))


def sandwich_columns(H: np.ndarray, limit: int, zeros: tuple, per_round, scale: float) -> dict:
    """``scale`` times the sums over rounds t <= T (for each horizon T of the sorted array
    ``H``) of the five non-increasing per-round terms ``per_round(t)`` returns (in the order of
    :data:`NAMES`), with ``zeros`` = (t0_s, t0_p, t0_b) the rounds from which the statistical,
    privacy and two-point terms are 0: rounds 1..``limit`` summed one by one, the rest by the
    monotone sandwich over geometric ranges (certified lower value and width, ``_error``)."""
    top = int(H[-1])
    t0_s, t0_p, t0_b = zeros
    end = max(t0_s, t0_p, t0_b)  # f(t) = 0 from round `end` on (when end <= top)
    last = min(end, top + 1) - 1  # the last round that may count
    E = min(limit, last)
    rounds = np.arange(1, E + 1, dtype=np.int64)
    exact_cum = [np.concatenate([[0.0], np.cumsum(f)]) for f in per_round(rounds)]

    # ranges [starts[i], ends[i]] covering rounds E + 1 .. last; f is evaluated at their starts
    # and at the last round before each zero crossing, and each range's lower value is f at
    # the first of these points from its end on (f(ends[i]) or f(starts[i + 1]) <= it)
    if last > E:
        count = math.ceil(math.log((last + 1) / (E + 1)) / math.log1p(RANGE_RATIO)) + 1
        geo = np.floor((E + 1) * np.exp(np.arange(count) * math.log1p(RANGE_RATIO)))
        marks = np.concatenate([geo, H + 1, [t0_s, t0_p, t0_b, E + 1, last + 1]])
        marks = np.unique(marks[(marks >= E + 1) & (marks <= last + 1)].astype(np.int64))
        starts, ends = marks[:-1], marks[1:] - 1
    else:
        starts = ends = np.zeros(0, dtype=np.int64)
    points = np.union1d(starts, [t for t in (t0_s - 1, t0_p - 1, last) if E < t <= last])
    f_points = per_round(points.astype(np.int64))
    first, low = np.searchsorted(points, starts), np.searchsorted(points, ends)
    size = (ends - starts + 1).astype(float)
    low_cum = [np.concatenate([[0.0], np.cumsum(size * f[low])]) for f in f_points]
    err_cum = [
        np.concatenate([[0.0], np.cumsum(size * np.maximum(f[first] - f[low], 0))])
        for f in f_points
    ]

    cols: dict[str, list] = {"horizon": H.tolist()}
    used = np.minimum(H, E)  # rounds summed exactly for each horizon
    ranges = np.searchsorted(ends, H, side="right")  # ranges inside [1, T]
    for i, name in enumerate(NAMES):
        cols[name] = (scale * (exact_cum[i][used] + low_cum[i][ranges])).tolist()
        cols[f"{name}_error"] = (scale * err_cum[i][ranges]).tolist()
    cols["exact"] = (np.minimum(H, last) <= E).tolist()
    order = ["horizon", *NAMES]
    order += [f"{c}_error" for c in order[1:]] + ["exact"]
    return {c: cols[c] for c in order}
