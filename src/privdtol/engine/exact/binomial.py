"""Binomial block sums for the exact engine: Binomial(m, mu) pmfs by Loader's saddle-point
formula with a per-point relative error bound, their renormalisation, and the integer window
holding all but < 1e-22 of the mass (the block sums S_j of Section 4 of Cesari & Colomboni)."""

from __future__ import annotations

import math

import numpy as np

from privdtol.engine.exact.numerics import SMALL_M, U, _c_sum

_SFE = np.array(
    [
        0,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ]
)


def _stirlerr(n):
    """log(n!) - log(sqrt(2 pi n) (n/e)^n): exact table for n <= 15, else 5 series terms
    (Horner in 1/n^2; truncation < 1e-16 absolute at n = 16, rounding a few U / (12 n))."""
    r = 1 / np.maximum(n, 1.0)
    r2 = r * r
    big = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680 - r2 / 1188))))
    return big if np.min(n) > 15 else np.where(n <= 15, _SFE[np.clip(n, 0, 15).astype(int)], big)


def _terms(vmax: float) -> int:
    """Series length n of :func:`_bd0` for the largest near-branch abs(v), ``vmax``."""
    return 1 + int(-17 / math.log10(max(vmax * vmax, 1e-300)))


def _bd0(x, M, D, part=None):
    """x log(x/M) + M - x given D = x - M accurately (Loader 2000), and an error bound: for
    abs(v) < 0.1, v = D/(x + M), the series D v + 2 x v sum_(j=1..n) v^(2j)/(2j+1) (Horner in
    v^2; n from the largest such abs(v), its next term < 1e-17 relative), else x log(x/M) - D
    (computed on those points only).  ``part`` (integer labels 0..P-1, one per point): n from
    each part's own points, so that every part gets the values, bit for bit, that a call on
    its points alone gives (:func:`_pmf_windows_many` batches calls this way)."""
    x, M, D = np.broadcast_arrays(x, M, D)
    with np.errstate(invalid="ignore", divide="ignore"):
        xm = x + M
        v = np.divide(D, xm, out=np.zeros(xm.shape), where=xm > 0)  # x = M = 0: a point mass
    av = np.abs(v)
    far = av >= 0.1
    nfar = np.count_nonzero(far)
    v2 = v * v
    if part is None:
        vmax = float(np.max(np.where(far, 0.0, av) if nfar else av, initial=0.0))
        n = _terms(vmax)
        q = 1 / (2 * n + 1)
        for j in range(n - 1, 0, -1):  # sum_(j=1..n) v^(2j)/(2j+1) = v^2 (1/3 + v^2 (...))
            q = q * v2 + 1 / (2 * j + 1)
    else:  # the same Horner steps, each point from its own part's n
        part = np.broadcast_to(part, x.shape)
        vmax = np.zeros(int(part.max(initial=-1)) + 1)
        np.maximum.at(vmax, part, np.where(far, 0.0, av))
        ns = np.array([_terms(float(t)) for t in vmax], dtype=np.int64)
        n_at = ns[part]
        q = 1 / (2 * n_at + 1)
        for j in range(int(ns.max(initial=1)) - 1, 0, -1):
            q = np.where(j < n_at, q * v2 + 1 / (2 * j + 1), q)
    s = D * v + (2 * x * v) * (v2 * q)
    err = 8 * U * np.abs(s)
    if nfar:
        i = np.flatnonzero(far)
        xf, Mf, Df = x.ravel()[i], M.ravel()[i], D.ravel()[i]
        with np.errstate(invalid="ignore", divide="ignore"):
            xl = xf * np.log(np.where(xf > 0, xf / Mf, 1.0))
        sf = xl - Df
        s.ravel()[i] = sf
        err.ravel()[i] = 8 * U * np.abs(sf) + 6 * U * (np.abs(xl) + np.abs(Df))
    return s, err


#: points per pass of :func:`_pmf` (its temporaries stay in cache)
PMF_CHUNK = 1 << 14


def _pmf(k, m, mu, part=None):
    """Binomial(m, mu) pmf at k (broadcast; 0 for k > m) by Loader's formula, M = m mu by an
    exact two-product; and a bound on the relative error of every value (in chunks of
    PMF_CHUNK points; each chunk's series length from its own points, see _bd0; with
    ``part``, at most PMF_CHUNK points, each part's from its own)."""
    k, m, mu = np.broadcast_arrays(np.asarray(k, float), np.asarray(m, float), mu)
    if part is not None:
        if k.size > PMF_CHUNK:
            raise ValueError(f"parts of more than {PMF_CHUNK} points in all")
        return _pmf_chunk(k, m, np.asarray(mu, float), part)
    if k.size <= PMF_CHUNK:
        return _pmf_chunk(k, m, np.asarray(mu, float))
    shape = k.shape
    k, m, mu = k.ravel(), m.ravel(), np.asarray(mu, float).ravel()
    b, e = np.empty(k.size), np.empty(k.size)
    for i in range(0, k.size, PMF_CHUNK):
        sl = slice(i, i + PMF_CHUNK)
        b[sl], e[sl] = _pmf_chunk(k[sl], m[sl], mu[sl])
    return b.reshape(shape), e.reshape(shape)


#: points filled from one Loader value by the ratio recurrence (:func:`_pmf_windows`)
RUN = 64


def _pmf_windows(m, mus, los, lens):
    """Binomial(m, mus[i]) pmfs on the windows {los[i]..los[i] + lens[i] - 1}, concatenated,
    with relative error bounds, as :func:`_pmf` gives them, at a fraction of its cost: the
    windows are cut into runs of RUN points; Loader's formula (:func:`_pmf`) gives each run's
    point nearest the mode floor((m + 1) mu), its largest, and the ratio recurrence
    b(k + 1) = b(k) (m - k)/(k + 1) rho, rho = mu/(1 - mu), walks downhill from it both ways
    (so no product overflows). A factor has relative error <= 4 U (rho: 2 U; then one
    product and one quotient), each step of the cumulative product 1 U more: a point i steps
    from its anchor adds <= (6 i + 4) U to the anchor's bound."""
    return _windows(m, np.asarray(mus, float), los, lens)


def _windows(m, mus, los, lens, part=None):
    """:func:`_pmf_windows` with ``m`` a scalar or one value per window and, if given, a
    ``part`` label per window (the call it comes from, for :func:`_bd0`'s series length)."""
    los, lens = np.asarray(los, np.int64), np.asarray(lens, np.int64)
    runs = -(-lens // RUN)
    g = np.repeat(np.arange(lens.size), runs)  # the group of each run
    start = los[g] + RUN * (np.arange(runs.sum()) - np.repeat(np.cumsum(runs) - runs, runs))
    mg = m[g] if np.ndim(m) else m  # each run's m
    mode = np.floor((mg + 1) * mus[g]).astype(np.int64)
    a = np.clip(mode - start, 0, np.minimum(RUN, los[g] + lens[g] - start) - 1)
    ba, ea = _pmf((start + a).astype(float), mg, mus[g], None if part is None else part[g])
    j = np.arange(RUN)[None, :]
    walk = np.ones((g.size, RUN))
    # most runs lie wholly above the mode (anchor a = 0: only steps up) or wholly below it
    # (a = RUN - 1: only steps down); each class gets only its own walk
    for rows, ups, downs in _walk_classes(a):
        ar = a[rows][:, None]
        k = (start[rows][:, None] + j[:, :-1]).astype(float)
        mk = mg[rows][:, None] if np.ndim(m) else m
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            rho = (mus / (1 - mus))[g[rows]][:, None]  # mu = 1: inf (every step down is 0)
            if ups:  # points above the anchor
                up = np.where(j[:, :-1] >= ar, (mk - k) / (k + 1) * rho, 1.0)
                walk[rows, 1:] = np.cumprod(up, axis=1)
            if downs:  # points below it
                down = np.where(j[:, :-1] < ar, (k + 1) / ((mk - k) * rho), 1.0)
                below = np.cumprod(down[:, ::-1], axis=1)[:, ::-1]
                walk[rows, :-1] = np.where(j[:, :-1] < ar, below, walk[rows, :-1])
    b = walk * ba[:, None]
    e = ea[:, None] + _STEP_ERRORS[a]
    # keep each group's first lens points (its last run may overshoot the window)
    cut = j < (los[g] + lens[g] - start)[:, None]
    return b[cut], e[cut]


#: (6 |j - a| + 4) U, the walk's error bound at point j of a run anchored at a
_STEP_ERRORS = (6 * np.abs(np.arange(RUN)[None, :] - np.arange(RUN)[:, None]) + 4) * U


def _walk_classes(a):
    """The runs of anchors ``a`` by the walks they need, as (rows, up, down): anchored at
    their first point (up only), at their last (a = RUN - 1, down only), the others (both)."""
    first, last = a == 0, a == RUN - 1
    mixed = ~(first | last)
    classes = [(first, True, False), (last, False, True), (mixed, True, True)]
    return [(np.flatnonzero(c), u, d) for c, u, d in classes if c.any()]


def _pmf_windows_many(calls):
    """``[_pmf_windows(m, mus, los, lens) for (m, mus, los, lens) in calls]``, bit for bit,
    computed in a few vectorised passes instead of one per call (the laws of many prefixes m
    of one instance, :meth:`privdtol.engine.exact.spec._Spec.laws`): the calls are packed into
    passes of at most :data:`PMF_CHUNK` Loader points (a call with more, which
    :func:`_pmf` would cut into chunks, is computed alone), every point labelled with its call
    so that :func:`_bd0` takes each call's series length from that call's points."""
    calls = [
        (int(m), np.asarray(mus, float), np.asarray(los, np.int64), np.asarray(lens, np.int64))
        for m, mus, los, lens in calls
    ]
    anchors = [int((-(-c[3] // RUN)).sum()) for c in calls]
    out: list = [None] * len(calls)
    batch: list[int] = []

    def flush():
        if not batch:
            return
        m = np.concatenate([np.full(calls[i][1].size, float(calls[i][0])) for i in batch])
        part = np.concatenate([np.full(calls[i][1].size, p) for p, i in enumerate(batch)])
        mus, los, lens = (np.concatenate([calls[i][f] for i in batch]) for f in (1, 2, 3))
        b, e = _windows(m, mus, los, lens, part)
        cuts = np.cumsum([int(calls[i][3].sum()) for i in batch])[:-1]
        for i, bi, ei in zip(batch, np.split(b, cuts), np.split(e, cuts), strict=True):
            out[i] = bi, ei
        batch.clear()

    size = 0
    for i, c in enumerate(calls):
        if anchors[i] > PMF_CHUNK:
            out[i] = _pmf_windows(*c)
            continue
        if size + anchors[i] > PMF_CHUNK:
            flush()
            size = 0
        batch.append(i)
        size += anchors[i]
    flush()
    return out


def _pmf_chunk(k, m, mu, part=None):
    with np.errstate(all="ignore"):
        Mh = m * mu
        sm, su = 134217729.0 * m, 134217729.0 * mu
        ah, bh = sm - (sm - m), su - (su - mu)
        Ml = ((ah * bh - Mh) + ah * (mu - bh) + (m - ah) * bh) + (m - ah) * (mu - bh)
        D = (k - Mh) - Ml
        mk = m - k
        b1, e1 = _bd0(k, Mh, D, part)
        b2, e2 = _bd0(mk, (m - Mh) - Ml, -D, part)
        inner = (k > 0) & (mk > 0)
        allin = bool(inner.all())
        half = 0.5 * np.log(m / (2 * np.pi * (k * mk if allin else np.where(inner, k * mk, 1.0))))
        st = _stirlerr(m) - _stirlerr(k) - _stirlerr(mk)
        logb = st - b1 - b2 + half
        # + the means' rounding: M = Mh (Ml dropped) and (m - Mh) - Ml are within 2 U M of
        # m mu and m (1 - mu). Near branch of _bd0 (|D| < 0.1 (x + M)): D is exact to 2 U and
        # M enters through x + M only, inside its 8 U |s|. Far branch: x log(x/M) moves by
        # 2 U x <= 20 U |D| (x <= 10 |D|), for each of the two terms
        far = np.abs(D) >= 0.1 * np.minimum(k + Mh, mk + (m - Mh))
        err = e1 + e2 + 8 * U * (np.abs(half) + np.abs(st) + np.abs(b1) + np.abs(b2) + 1)
        err = err + np.where(far, 40 * U * np.abs(D), 0.0)
        if not allin:
            edge = np.where(k == 0, m * np.log1p(-mu), np.where(mk == 0, m * np.log(mu), -np.inf))
            logb = np.where(inner, logb, edge)
            logb = np.where(mk < 0, -np.inf, logb)
            err = np.where(inner, err, 6 * U * (np.abs(edge) + 1))
        logb = np.where(np.isnan(logb), -np.inf, logb)
    return np.exp(logb), 2 * np.where(np.isfinite(logb), err, 0.0) + 4 * U


def _normalise(b, e):
    """Renormalise pmfs (last axis) to sum 1, after zeroing values < 1e-150 (no subnormal
    arithmetic later; their mass, < N 1e-150, is added to the truncated tail); relative error
    bound per row (after it sum_k b_k err_k ~ 0, which keeps errors of 1 - phi relative)."""
    b = np.where(b < 1e-150, 0.0, b)
    s = b.sum(axis=-1, keepdims=True)  # pairwise on a fresh array: tree height << _c_sum
    return b / s, 2 * np.max(np.where(b > 0, e, 0), axis=-1) + 2 * _c_sum(b.shape[-1]) * U


def _outside(lo, hi, m, mu):
    """P(S < lo) + P(S > hi) for S ~ Binomial(m, mu), 0 < mu < 1, 0 <= lo <= hi <= m (arrays):
    scipy.stats' binomial cdf and sf (boost), accurate for every m the engine reaches
    (scipy.special's bdtr is NaN from m = 2^31 on and 1e-6 off in the far tail).  Called
    through the ufuncs behind ``scipy.stats.binom.cdf`` and ``.sf``, which on these arguments
    return exactly their values (clipped to [0, 1]) without their argument checks (which cost
    more than the values at a few points) and without importing scipy.stats (slow to import:
    docs/performance.md)."""
    try:
        from scipy.special import _ufuncs as scu

        cdf, sf = scu._binom_cdf, scu._binom_sf
    except (ImportError, AttributeError):  # pragma: no cover - another scipy layout
        from scipy.stats import binom

        cdf, sf = binom.cdf, binom.sf
    lo, hi, m, mu = np.broadcast_arrays(lo, hi, m, mu)
    left = np.where(lo > 0, np.clip(cdf(np.maximum(lo - 1, 0).astype(float), m, mu), 0, 1), 0.0)
    right = np.where(hi < m, np.clip(sf(hi.astype(float), m, mu), 0, 1), 0.0)
    return left + right


def _supports(m, mus, tail_max):
    """Integer windows [lo, hi] of Binomial(m, mu) for each mu (all groups at once) and their
    exact outside masses (< tail_max, per group): +-(z sd + 30) around m mu, z = 10.5 x 1.05^i."""
    return _supports_many([(m, mus, tail_max)])[0]


def _supports_many(calls):
    """``[_supports(m, mus, tail_max) for (m, mus, tail_max) in calls]``, every window widened
    in the same steps, all calls at once (the same values: each window's arithmetic is its
    own)."""
    out, todo, ms, mus_all, tmax = [], [], [], [], []
    for c, (m, mus, tail_max) in enumerate(calls):
        mus = np.asarray(mus, float)
        tail_max = np.broadcast_to(tail_max, np.shape(mus))
        row = [(0, m, 0.0)] * mus.size
        for g, mu in enumerate(mus):
            if mu in (0.0, 1.0):
                row[g] = (int(m * mu), int(m * mu), 0.0)
            elif m > SMALL_M:
                todo.append((c, g))
                ms.append(m)
                mus_all.append(mu)
                tmax.append(tail_max[g])
        out.append(row)
    idx = np.arange(len(todo))
    z = np.full(len(todo), 10.5)
    m_all, mu_all, tmax = np.array(ms, float), np.array(mus_all, float), np.array(tmax, float)
    while idx.size:
        m, mu = m_all[idx], mu_all[idx]
        sd = np.sqrt(m * mu * (1 - mu))
        lo = np.maximum(0, np.floor(m * mu - z * sd - 30)).astype(np.int64)
        hi = np.minimum(m, np.ceil(m * mu + z * sd + 30)).astype(np.int64)
        tail = _outside(lo, hi, m, mu)
        ok = tail < tmax[idx]
        for i, a, b, t in zip(idx[ok], lo[ok], hi[ok], tail[ok], strict=True):
            c, g = todo[i]
            out[c][g] = (int(a), int(b), float(t))
        idx, z = idx[~ok], z[~ok] * 1.05
    return out
