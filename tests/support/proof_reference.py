"""Independent brute-force references for the quantities of Lemmas 4-5 (Cesari & Colomboni,
Sections 5.3-5.4), numpy/scipy only: nothing here imports :mod:`privdtol`.

Notation (means sorted, best first): Delta_j = mu_j - mu_1; S_(m,j) the sum of m losses of
action j (Binomial(m, mu_j); m mu_j for deterministic losses); D_(m,j) = S_(m,j) - S_(m,1);
P_m = softmax(-eta D_m) over all K actions, F_m = E[sum_j Delta_j P_(m,j)]; "small" actions
have Delta_j <= 4 eta, "large" ones Delta_j > 4 eta; Z_m = 1 + sum_large exp(-eta D_(m,j)),
V_m = sum_large Delta_j exp(-eta D_(m,j)) / Z_m (m = 0: D = 0).

- :func:`enumerate_terms`: F_m, E[V_m], E[log Z_m] by summing over every outcome of the K
  independent Binomials (K <= 4, m <= 10).
- :func:`walk_k2`: K = 2, the pmf of D_m (steps Y in {-1, 0, 1}) by repeated convolution.
- :func:`walk_k3`: K = 3, the joint pmf of (D_(m,2), D_(m,3)) by repeated convolution.
  Both run until the Chernoff tail bound (P_(m,j) <= min(1, e^(-eta D)) <= e^(-theta D) for
  theta in [0, eta], so sum_(m' > m) F_m' <= sum_j Delta_j rho_j^(m+1) / (1 - rho_j),
  rho_j = E e^(-theta (X_j - X_1))) is below ``tail_rel`` of each sum; ``err`` adds the pmf
  mass trimmed from the windows (each term's integrand is in [0, 1]).
- :func:`deterministic_sums`: the same sums for deterministic losses (D_(m,j) = m Delta_j);
  :func:`deterministic_sum_f`: sum_m F_m split by action, summed directly.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.stats import binom

# the paper's constants (Lemma 5 and its proof, eqs. (5)-(6))
C_EQ5, C_EQ6, C_GROUP_LOG, C_GROUP_CONST = 200.0, 4.0, 32.0, 18.0


def rps_eta(epsilon: float) -> float:
    """Section 4: eta = min(eps/2, 1/8)."""
    return min(epsilon / 2.0, 1.0 / 8.0)


def sorted_means(means) -> np.ndarray:
    mu = np.sort(np.asarray(means, dtype=float))
    assert mu.size >= 2 and mu[1] > mu[0], "need a unique best action"
    return mu


def split(mu: np.ndarray, eta: float):
    """(Delta, small mask, large mask) over all K actions (the best is in neither)."""
    delta = mu - mu[0]
    pos = np.arange(mu.size) > 0
    return delta, pos & (delta <= 4 * eta), pos & (delta > 4 * eta)


def _weights(D, eta, mask):
    """Softmax weights over the actions in ``mask`` plus the best (D_1 = 0), last axis = K;
    returns (weights of the actions j (0 outside ``mask``), log of the normaliser)."""
    x = np.where(mask, -eta * D, -np.inf)
    x[..., 0] = 0.0
    c = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - c)
    s = e.sum(axis=-1, keepdims=True)
    return e / s, (np.log(s) + c)[..., 0]


def _terms_at(D, prob, delta, small, large, eta):
    """E over outcomes (rows of D with probabilities prob) of F, small part, V, log Z, P_j."""
    allm = np.ones(delta.size, dtype=bool)
    P, _ = _weights(D, eta, allm)
    Q, logz = _weights(D, eta, large)
    F = prob @ (P @ delta)
    Fs = prob @ (P @ np.where(small, delta, 0.0))
    V = prob @ (Q @ np.where(large, delta, 0.0)) if large.any() else 0.0
    LZ = prob @ logz if large.any() else 0.0
    return dict(F=float(F), small=float(Fs), V=float(V), logZ=float(LZ), P=prob @ P)


def enumerate_terms(means, eta: float, m: int, env: str = "bernoulli") -> dict:
    """F_m (m >= 1), its small-gap part, E[V_m], E[log Z_m] and E[P_(m,j)] (m >= 0) by
    summing over every outcome (S_1..S_K) of the independent Binomial(m, mu_j)."""
    mu = sorted_means(means)
    delta, small, large = split(mu, eta)
    if env == "deterministic" or m == 0:
        D = (m * delta)[None, :]
        prob = np.ones(1)
    else:
        assert env == "bernoulli" and mu.size <= 4 and m <= 10
        k = np.arange(m + 1)
        pmf = [binom.pmf(k, m, p) for p in mu]
        S = np.array(list(itertools.product(k, repeat=mu.size)), dtype=float)
        prob = np.prod([pmf[j][S[:, j].astype(int)] for j in range(mu.size)], axis=0)
        D = S - S[:, :1]
    out = _terms_at(D, prob, delta, small, large, eta)
    if m == 0:
        out["F"] = out["small"] = float("nan")  # F_m is defined for m >= 1 only
    return out


def rho(mu1: float, muj: float, eta: float) -> float:
    """min over a grid of theta in [0, eta] of E e^(-theta (X_j - X_1)) (any theta is a valid
    Chernoff bound, so the grid minimum is rigorous)."""
    th = np.linspace(0.0, eta, 4001)
    g = (1 - muj + muj * np.exp(-th)) * (1 - mu1 + mu1 * np.exp(th))
    return float(g.min())


class _Sums:
    """Accumulates, over m, F_m, its small part, per-group parts, V_m and E[P_(m,j)]."""

    def __init__(self, mu, eta):
        self.mu, self.eta = mu, eta
        self.delta, self.small, self.large = split(mu, eta)
        self.F, self.Fs, self.V, self.P = [], [], [], []

        self.run = dict(small=0.0, large=0.0, V=0.0)  # running sums over m >= 1 (V: m >= 0)

    def add(self, t):
        if self.F:  # m >= 1
            self.run["small"] += t["small"]
            self.run["large"] += t["F"] - t["small"]
        self.run["V"] += t["V"]
        self.F.append(t["F"])
        self.Fs.append(t["small"])
        self.V.append(t["V"])
        self.P.append(t["P"])

    def done(self, m, rhos, tail_rel):
        """Whether every sum's Chernoff tail after m is below tail_rel of that sum."""
        self.tails = {}
        for name, mask in (("small", self.small), ("large", self.large)):
            d, r = self.delta[mask], rhos[mask]
            self.tails[name] = float(np.sum(d * r ** (m + 1) / (1 - r)))
        run = self.run
        return (
            all(self.tails[k] <= tail_rel * run[k] for k in ("small", "large") if self.tails[k] > 0)
            and self.tails["large"] <= tail_rel * run["V"]
        )

    def result(self, err_mass):
        F = np.array(self.F[1:])
        Fs = np.array(self.Fs[1:])
        n = F.size
        tail_all = self.tails["small"] + self.tails["large"]
        eps_F = err_mass * n  # each F_m is off by at most the mass trimmed so far
        out = dict(
            eta=self.eta,
            F=F,
            sum_F=float(F.sum()),
            small_gap=float(Fs.sum()),
            large_gap=float((F - Fs).sum()),
            sum_V=float(np.sum(self.V)),
            V=np.array(self.V),
            EP=np.array(self.P[1:]),
            err=dict(
                sum_F=tail_all + eps_F,
                small_gap=self.tails["small"] + eps_F,
                large_gap=self.tails["large"] + eps_F,
                sum_V=self.tails["large"] + eps_F,
            ),
        )
        d = self.delta
        out["regret_limit"] = float(d.mean() + 4 * out["sum_F"] - 2 * F[0])
        out["err"]["regret_limit"] = 4 * out["err"]["sum_F"]
        ratios = [
            out["EP"][:, j] / (2 * np.exp(-np.arange(1, n + 1) * d[j] ** 2 / 8))
            for j in np.flatnonzero(self.small)
        ]
        out["max_ratio_eq4"] = float(np.max(ratios)) if ratios else None
        return out


def regret_whole_blocks(ref: dict, means, R: int) -> tuple[float, float]:
    """Lemma 4's block accounting at T = 2^R - 1 (R >= 2), with equality:
    E[Delta_(A_0)] + 2 F_1 + 4 sum_(m=2)^(2^(R-2)) F_m; returns (value, error bound)."""
    d = sorted_means(means) - sorted_means(means)[0]
    F = ref["F"]
    hi = 1 << (R - 2)
    val = d.mean() + 2 * F[0] + 4 * F[1:hi].sum()
    err = 4 * ref["err"]["sum_F"]  # covers the trimmed mass and the m beyond the walk
    return float(val), float(err)


def walk_k2(means, eta: float, tail_rel: float = 1e-12, trim: float = 1e-22) -> dict:
    """K = 2: pmf of D_m = sum of Y_s, P(Y = 1) = mu_2 (1 - mu_1), P(Y = -1) = mu_1 (1 - mu_2),
    by repeated convolution; terms of every m until the tail bound is negligible."""
    mu = sorted_means(means)
    assert mu.size == 2
    up, down = mu[1] * (1 - mu[0]), mu[0] * (1 - mu[1])
    step = np.array([down, 1 - up - down, up])  # Y = -1, 0, 1
    acc = _Sums(mu, eta)
    rhos = np.array([1.0, rho(mu[0], mu[1], eta)])
    pmf, lo, lost = np.ones(1), 0, 0.0
    acc.add(_terms_at(np.zeros((1, 2)), np.ones(1), acc.delta, acc.small, acc.large, eta))
    m = 0
    while True:
        m += 1
        pmf, lo = np.convolve(pmf, step), lo - 1
        c = np.cumsum(pmf)
        a = int(np.searchsorted(c, trim))  # drop leading entries with total mass < trim
        b = int(np.searchsorted(np.cumsum(pmf[::-1]), trim))
        lost += float(c[a - 1] if a else 0.0) + float(np.sum(pmf[pmf.size - b :]))
        pmf, lo = pmf[a : pmf.size - b], lo + a
        assert eta * max(0, -lo) < 700.0  # exp(-eta x) cannot overflow
        w = np.exp(-eta * (lo + np.arange(pmf.size, dtype=float)))
        ep2 = float(pmf @ (w / (1.0 + w)))
        F = acc.delta[1] * ep2
        t = dict(F=F, small=F if acc.small[1] else 0.0, V=0.0 if acc.small[1] else F)
        acc.add(dict(t, P=np.array([float(pmf.sum()) - ep2, ep2])))
        if m >= 2 and acc.done(m, rhos, tail_rel):
            return acc.result(lost)


def _trim_axis(p, lo, axis, trim):
    """Drop leading/trailing slices of ``p`` along ``axis`` with total mass < trim."""
    other = tuple(i for i in range(p.ndim) if i != axis)
    marg = p.sum(axis=other)
    c, cr = np.cumsum(marg), np.cumsum(marg[::-1])
    a, b = int(np.searchsorted(c, trim)), int(np.searchsorted(cr, trim))
    lost = (c[a - 1] if a else 0.0) + (cr[b - 1] if b else 0.0)
    idx = [slice(None)] * p.ndim
    idx[axis] = slice(a, p.shape[axis] - b)
    lo = lo.copy()
    lo[axis] += a
    return p[tuple(idx)], lo, float(lost)


def walk_k3(means, eta: float, tail_rel: float = 1e-12, trim: float = 1e-20) -> dict:
    """K = 3: joint pmf of (D_(m,2), D_(m,3)) by convolution; each round adds X_2 to the first
    coordinate, X_3 to the second and -X_1 to both (X_j ~ Bernoulli(mu_j), independent)."""
    mu = sorted_means(means)
    assert mu.size == 3
    acc = _Sums(mu, eta)
    rhos = np.array([1.0] + [rho(mu[0], mu[j], eta) for j in (1, 2)])
    p, lo, lost = np.ones((1, 1)), np.zeros(2, dtype=int), 0.0
    acc.add(_terms_at(np.zeros((1, 3)), np.ones(1), acc.delta, acc.small, acc.large, eta))
    m = 0
    while True:
        m += 1
        n2, n3 = p.shape
        q = np.zeros((n2 + 1, n3))
        q[:-1] += (1 - mu[1]) * p
        q[1:] += mu[1] * p
        r = np.zeros((n2 + 1, n3 + 1))
        r[:, :-1] += (1 - mu[2]) * q
        r[:, 1:] += mu[2] * q
        s = np.zeros((n2 + 2, n3 + 2))
        s[1:, 1:] += (1 - mu[0]) * r  # X_1 = 0: stays
        s[:-1, :-1] += mu[0] * r  # X_1 = 1: both coordinates - 1
        lo = lo - 1
        for axis in (0, 1):
            s, lo, dl = _trim_axis(s, lo, axis, trim)
            lost += dl
        p = s
        x2 = lo[0] + np.arange(p.shape[0], dtype=float)
        x3 = lo[1] + np.arange(p.shape[1], dtype=float)
        acc.add(_grid_terms(x2, x3, p, acc, eta))
        if m >= 2 and acc.done(m, rhos, tail_rel):
            return acc.result(lost)


def _grid_terms(x2, x3, p, acc, eta):
    """_terms_at on the product grid x2 x x3 (pmf p) with 1-D weights only: w_j = e^(-eta x_j)
    (x >= -m and eta m < 700 here, so no overflow), E[P_2] = w_2 . sum_k p / s and so on."""
    d, small, large = acc.delta, acc.small, acc.large
    assert eta * max(0.0, -x2[0], -x3[0]) < 700.0
    w2, w3 = np.exp(-eta * x2), np.exp(-eta * x3)
    R = p / (1.0 + w2[:, None] + w3[None, :])
    r2, r3 = R.sum(axis=1), R.sum(axis=0)
    EP = np.array([float(r2.sum()), float(w2 @ r2), float(r3 @ w3)])
    F = d[1] * EP[1] + d[2] * EP[2]
    Fs = sum(d[j] * EP[j] for j in (1, 2) if small[j])
    V = 0.0
    if large[1] and large[2]:
        V = F
    elif large.any():  # one large action j: Z = 1 + w_j depends on one coordinate only
        j, x, axis = (1, w2, 1) if large[1] else (2, w3, 0)
        V = float(p.sum(axis=axis) @ (d[j] * x / (1.0 + x)))
    return dict(F=float(F), small=float(Fs), V=V, logZ=float("nan"), P=EP)


def deterministic_sums(means, eta: float, tail_rel: float = 1e-14) -> dict:
    """The same sums for deterministic losses: D_(m,j) = m Delta_j (geometric tails)."""
    mu = sorted_means(means)
    acc = _Sums(mu, eta)
    rhos = np.where(acc.delta > 0, np.exp(-eta * acc.delta), 0.0)
    m = -1
    while True:
        m += 1
        acc.add(
            _terms_at((m * acc.delta)[None, :], np.ones(1), acc.delta, acc.small, acc.large, eta)
        )
        if m >= 2 and acc.done(m, rhos, tail_rel):
            return acc.result(0.0)


def deterministic_sum_f(deltas, eta: float, upto: int = 40000) -> np.ndarray:
    """sum_(m >= 1) Delta_j P(A = j | m rounds) per action j on deterministic losses (P the
    softmax of -eta m Delta), summed directly to m = ``upto`` (for eta = 1/8 and Delta_min = 0.1
    the rest is below e^(-40000 eta Delta_min) = e^-500)."""
    ms = np.arange(1, upto + 1, dtype=float)[:, None]
    d = np.asarray(deltas, dtype=float)[None, :]
    w = np.exp(-eta * ms * d)
    terms = d * w / w.sum(axis=1, keepdims=True)
    return np.array([math.fsum(terms[:, j]) for j in range(terms.shape[1])])


def lemma5_bounds(means, eta: float) -> dict:
    """eq. (5) = 200 log K / Delta_min, eq. (6) = 4 log K / eta, Lemma 5 = their sum, and the
    groups H_l = {small j : 2^(l-1) Delta_min <= Delta_j < 2^l Delta_min} with the bound
    (32 log(|H_l| + 1) + 18) / (2^(l-1) Delta_min) of the proof."""
    mu = sorted_means(means)
    delta, small, _ = split(mu, eta)
    K = mu.size
    dmin = float(delta[delta > 0].min())
    eq5, eq6 = C_EQ5 * math.log(K) / dmin, C_EQ6 * math.log(K) / eta
    groups = {}
    for j in np.flatnonzero(small):
        lvl = math.floor(math.log2(delta[j] / dmin)) + 1
        while delta[j] < 2 ** (lvl - 1) * dmin:  # guard floating error in log2
            lvl -= 1
        while delta[j] >= 2**lvl * dmin:
            lvl += 1
        groups.setdefault(lvl, []).append(int(j))
    out = []
    for lvl, js in sorted(groups.items()):
        bound = (C_GROUP_LOG * math.log(len(js) + 1) + C_GROUP_CONST) / (2 ** (lvl - 1) * dmin)
        out.append(dict(level=lvl, size=len(js), members=js, bound=bound))
    return dict(eq5=eq5, eq6=eq6, lemma5=eq5 + eq6, groups=out)


def monte_carlo_F(means, eta: float, m: int, n: int, seed: int) -> tuple[float, float]:
    """F_m from n draws of the K Binomial(m, mu_j) sums: (mean, standard error)."""
    mu = sorted_means(means)
    rng = np.random.default_rng(seed)
    S = rng.binomial(m, mu, size=(n, mu.size)).astype(float)
    P, _ = _weights(S - S[:, :1], eta, np.ones(mu.size, dtype=bool))
    g = P @ (mu - mu[0])
    return float(g.mean()), float(g.std(ddof=1) / math.sqrt(n))
