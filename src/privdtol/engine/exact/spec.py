"""The instance and selection rule of one exact cell: groups of equal means, the rule's
temperature / noise scale, Chernoff bounds on each group's win probability, and the selection
law from m rounds (Section 4 of Cesari & Colomboni; the proof of Lemma 4, Section 5.3)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from privdtol.algorithms import ALGORITHMS, BlockAlgorithm, make_algorithm
from privdtol.algorithms.base import prefix_range
from privdtol.engine.exact.binomial import (
    _normalise,
    _pmf_windows,
    _pmf_windows_many,
    _supports_many,
)
from privdtol.engine.exact.laplace import _laplace
from privdtol.engine.exact.numerics import PRUNE, SMALL_M, TAIL, U
from privdtol.engine.exact.softmax import _softmax
from privdtol.environments import EXACT_MODELS, exact_family

#: the loss models the exact engine computes (derived from their declarations,
#: :attr:`privdtol.environments.LossModel.exact_family`)
EXACT_ENVS = EXACT_MODELS


def why_not_exact(cls) -> str | None:
    """Why the exact engine cannot compute the algorithm class's cells (None: it can): it needs
    a block algorithm that declares its selection law (``exact_law``,
    :class:`privdtol.algorithms.declarations.SelectionLaw`)."""
    if not issubclass(cls, BlockAlgorithm):
        return "a per-round algorithm (the exact engine computes block algorithms)"
    if cls.exact_law is None:
        return "declares no exact selection law (exact_law)"
    return None


#: the algorithms the exact engine computes, derived from their declarations
EXACT_ALGORITHMS = tuple(n for n, c in ALGORITHMS.items() if why_not_exact(c) is None)


def random_prefix(cls) -> bool:
    """Whether the block algorithm class reads the random prefix M_r of Section 4 (its declared
    ``prefix_rule``); otherwise its prefix is deterministic."""
    return cls.prefix_rule == "random"


def uniform_mix(alg) -> float:
    """gamma, the weight of the uniform law in the algorithm's selection
    (1 - gamma) rule + gamma uniform (its declared law's ``uniform_mix``: ``rps_uniform_mix``);
    0 for every pure rule.  The engine computes the rule's laws and mixes linearly afterwards."""
    return float(alg.exact_law.uniform_mix)


def rule(alg, K: int) -> tuple[bool, float]:
    """(softmax?, temperature eta or Laplace scale b) of the algorithm's selection, from its
    declared law (:meth:`~privdtol.algorithms.declarations.SelectionLaw.rule`: Gumbel noise of
    scale b is softmax with eta = 1/b; a mixed law's rule is its component, :func:`uniform_mix`
    its mixture)."""
    if alg.exact_law is None:
        raise ValueError(f"{alg.name!r}: no exact selection rule")
    return alg.exact_law.rule(alg, K)


@lru_cache(maxsize=64)
def law_family(algorithm: str) -> str:
    """The kind, "softmax" or "laplace", of the algorithm's selection rule (:func:`rule`);
    cells whose laws can coincide (:meth:`_Spec.law_key`) share it."""
    return "softmax" if rule(make_algorithm(algorithm, 1.0), 2)[0] else "laplace"


class _Spec:
    """Groups of equal means (sorted; group 0 is the unique best) and the selection rule, all
    facts about the algorithm (temperature, noise, prefix rule, resampling) taken from its class
    (:func:`privdtol.algorithms.make_algorithm`).  ``eta`` overrides a softmax rule's
    temperature (the restricted softmax Q of Lemma 5's proof keeps the full instance's eta,
    which for ``rps_eta_logk`` depends on K).

    ``mix`` is gamma of a selection (1 - gamma) rule + gamma uniform (:func:`uniform_mix`):
    :meth:`laws`, :meth:`law` and :meth:`chernoff` are those of the rule alone (the mixture's
    component), and the callers that need the mixture's law mix linearly (:meth:`mixed`)."""

    def __init__(self, algorithm, means, epsilon, env, eta=None):
        if algorithm not in EXACT_ALGORITHMS or env not in EXACT_ENVS:
            raise ValueError(f"unsupported algorithm/env {algorithm!r}/{env!r}")
        means = np.asarray(means, dtype=float)
        if means.ndim != 1 or means.size < 2 or not (0 <= means.min() <= means.max() <= 1):
            raise ValueError("means: need K >= 2 values in [0, 1]")
        if not (epsilon > 0 and math.isfinite(epsilon)):
            raise ValueError("epsilon must be a finite number > 0")
        self.mu, self.inv, counts = np.unique(means, return_inverse=True, return_counts=True)
        if counts[0] != 1:
            raise ValueError("means: no unique best action")
        self.ns, self.delta, self.K = counts.astype(float), self.mu - self.mu[0], means.size
        self.alg = make_algorithm(algorithm, epsilon)
        self.softmax, scale = rule(self.alg, self.K)
        if eta is not None:
            if not self.softmax:
                raise ValueError(f"{algorithm!r} is not a softmax rule: no eta to override")
            scale = float(eta)
        self.eta, self.b = (scale, None) if self.softmax else (None, scale)
        self.random_prefix = random_prefix(type(self.alg))
        self.mix = uniform_mix(self.alg)
        self.det = exact_family(env) == "deterministic" and not self.alg.resampled
        # theta grid: linear plus geometric (the optimal theta ~ gap / variance can lie far
        # below a linear grid's first step: at gap 2^-16 the bound was then 1 for all m)
        geo = np.geomspace(1e-12, 1.0, 600)
        th = np.unique(
            np.concatenate([np.linspace(0, 1, 801), geo])
            if self.softmax
            else np.concatenate([np.linspace(0, 1, 402)[1:-1], geo[geo < 0.999]])
        ) * (self.eta if self.softmax else 1 / self.b)
        pen = 0 * th if self.softmax else -2 * np.log1p(-((th * self.b) ** 2))
        mu, mb = self.mu[:, None], self.mu[0]
        lm = (
            -th * (mu - mb)
            if self.det
            else np.log1p(mu * np.expm1(-th)) + np.log1p(mb * np.expm1(th))
        )
        if self.softmax:  # no penalty: min_theta m lmgf = m min_theta lmgf, once per group
            lm, pen = np.min(lm, axis=1, keepdims=True), pen[:1]
        self.lmgf, self.pen = lm, pen  # log E e^(-theta (X_g - X_best)) per round

    def law_key(self) -> tuple:
        """Everything the selection laws of every block depend on: the rule (softmax
        temperature or Laplace scale), the prefix rule, atoms or Binomial sums, and the groups.
        Two cells with one key have identical regret (``wu_wang`` and ``rnm_ftnl`` on
        Bernoulli losses, whose resampled losses have the same law; ``rps`` at every
        eps >= 1/4, where eta = 1/8; ``rps_hot`` at every eps and ``rps_uncapped`` at eps = 8),
        computed by identical
        operations.  The uniform mixture is part of it."""
        fn = type(self.alg).prefix_lengths
        return (
            self.softmax,
            self.mix,
            self.eta,
            self.b,
            self.det,
            self.random_prefix,
            f"{fn.__module__}.{fn.__qualname__}",
            self.mu.tobytes(),
            self.ns.tobytes(),
        )

    def mixed(self, P, E):
        """(P, E) of the rule's law per member of each group (any shape, groups last) turned
        into the selection's: (1 - gamma) P + gamma / K, error (1 - gamma) E plus the rounding
        of the two operations; unchanged (the same arrays) when gamma = 0."""
        if not self.mix:
            return P, E
        out = (1 - self.mix) * np.asarray(P) + self.mix / self.K
        return out, (1 - self.mix) * np.asarray(E) + 3 * U * out

    def m_range(self, r: int) -> tuple[int, int]:
        """Support {lo..hi} of the number of rounds of block r the selection of A_(r+1) reads:
        M_r (:func:`privdtol.algorithms.rps.prefix_range`) or the class's fixed prefix."""
        if self.random_prefix:
            return prefix_range(r)
        n = int(self.alg.prefix_lengths(None, r, 1)[0])  # deterministic: reads no rng
        return n, n

    def chernoff(self, m):
        """Per-action bounds on P(A = a member of group g) from m rounds: min over theta of
        E e^(-theta (S_g - S_best)) (softmax: min(1, w_g/w_best) <= e^(-theta D), theta <= eta;
        Laplace: times E e^(theta (Z_g - Z_best)) = (1 - theta^2 b^2)^-2). Nonincreasing in m.
        ``m`` may be an array: the result then has a last axis of groups."""
        m = np.asarray(m, dtype=float)[..., None, None]
        out = np.exp(np.minimum(np.min(m * self.lmgf + self.pen, axis=-1), 0.0))
        out[..., 0] = 1.0
        return out

    def chernoff_sum(self, a, b):
        """Per-group bounds on sum_(m=a..b) P(A = a member of group g | m rounds): the
        exponent of :meth:`chernoff` at one theta (the best at m = a) is affine in m, so the
        sum is geometric; never more than b - a + 1 (each term <= 1)."""
        n = b - a + 1
        v = a * self.lmgf + self.pen
        i = np.argmin(v, axis=1)
        rows = np.arange(v.shape[0])
        lm, va = self.lmgf[rows, i], v[rows, i]
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            geo = np.exp(va) * -np.expm1(n * lm) / -np.expm1(lm)
        out = np.where(lm < -1e-300, np.minimum(geo, n), n * np.exp(np.minimum(va, 0.0)))
        out = np.minimum(out, n)
        out[0] = n
        return out

    def kept(self, m):
        """Groups :meth:`law` computes from m rounds (the others are dropped: their Chernoff
        bound times their size is < PRUNE); ``m`` may be an array (then a last axis of groups).
        Nonincreasing in m (the bounds are), so a group dropped at m is dropped beyond."""
        keep = self.ns * self.chernoff(m) >= PRUNE
        keep[..., 0] = True
        return keep

    def laws(self, ms):
        """(P, err) per m (rows) and group (columns): the selection law from m rounds."""
        ms = np.asarray(ms, dtype=np.int64)
        if self.softmax and self.det:
            x = -self.eta * ms[:, None] * self.delta[None, :]
            w = np.exp(x)
            P = w / (w @ self.ns)[:, None]
            return P, P * U * (20 + self.mu.size + 8 * np.abs(x)) + 1e-300
        if not (self.softmax and ms.max() <= SMALL_M):
            plans = self._plans([int(m) for m in ms])
            pmfs = iter(_pmf_windows_many([p.window for p in plans if p.window is not None]))
            res = [self._finish(p, None if p.window is None else next(pmfs)) for p in plans]
            return np.array([r[0] for r in res]), np.array([r[1] for r in res])
        out = [], []
        step = max(1, int(4e6 // (self.mu.size * (ms.max() + 1) * (1 + 50 / self.eta))))
        for i in range(0, ms.size, step):
            mm = ms[i : i + step]
            B, e = np.zeros((2, mm.size, self.mu.size, mm.max() + 1))
            whole = [
                (int(m), self.mu, np.zeros(self.mu.size), np.full(self.mu.size, m + 1)) for m in mm
            ]
            for q, (m, (b, eb)) in enumerate(zip(mm, _pmf_windows_many(whole), strict=True)):
                B[q, :, : m + 1], e[q, :, : m + 1] = b.reshape(-1, m + 1), eb.reshape(-1, m + 1)
            B, db = _normalise(B, e)
            for o, v in zip(out, _softmax(B, db, self.ns, self.eta), strict=False):
                o.append(v)
        return np.vstack(out[0]), np.vstack(out[1])

    def law(self, m):
        """(P, err) per group of the selection from m rounds, dropping negligible groups."""
        (plan,) = self._plans([int(m)])
        return self._finish(plan, None if plan.window is None else _pmf_windows(*plan.window))

    def _plans(self, ms):
        """What :meth:`law` needs before its Binomial pmfs, for each m of ``ms``: the groups
        kept, the error of the dropped ones, each group's window (:func:`.binomial.
        _supports_many`, all m at once) and the one :func:`.binomial._pmf_windows` call
        (``window``, None without one) whose pmfs :meth:`_finish` places on the lattice, so
        that :meth:`laws` computes the pmfs of many m in one batch."""
        plans = []
        for m in ms:
            cb, keep = self.chernoff(m), self.kept(m)
            P, err = np.zeros(cb.size), cb.copy()
            err[keep] = 2 * (self.ns * cb)[~keep].sum()
            plans.append(_Plan(m, keep, P, err, self.mu[keep], self.ns[keep]))
        todo = [p for p in plans if not (p.mus.size == 1 or self.det)]
        sups = _supports_many([(p.m, p.mus, TAIL / p.ns) for p in todo])
        for plan, sup in zip(todo, sups, strict=True):
            self._place(plan, sup)
        return plans

    def _place(self, plan, sup):
        """``plan``'s windows from the supports ``sup`` (mirrored groups: mirrored windows)."""
        m, mus = plan.m, plan.mus
        idx = {mu: g for g, mu in enumerate(mus)}
        for g, mu in enumerate(mus):  # mirrored groups: mirrored windows
            if 1 - mu in idx:
                (l1, h1, t1), (l2, h2, _) = sup[g], sup[idx[1 - mu]]
                sup[g] = (min(l1, m - h2), max(h1, m - l2), t1)
        lo, hi = np.array([s[:2] for s in sup], dtype=np.int64).T
        n = hi - lo + 1
        mate = np.array([idx.get(1 - mu, g) for g, mu in enumerate(mus)])  # mirrored group
        own = np.flatnonzero(mate >= np.arange(mus.size))  # the others: mirrored copies
        plan.sup, plan.lo, plan.hi, plan.mate, plan.own = sup, lo, hi, mate, own
        plan.window = (m, mus[own], lo[own], n[own])

    def _finish(self, plan, pmfs):
        """The law of :meth:`_plan`'s ``plan`` given its pmfs (``_pmf_windows(*plan.window)``)."""
        m, keep, P, err, mus, ns = plan.m, plan.keep, plan.P, plan.err, plan.mus, plan.ns
        if mus.size == 1:
            P[0] = 1.0
            return P, err
        if self.det:  # Laplace on the atoms m mu_g (rnm_ftnl)
            Pk, ek = _laplace(m * mus, np.eye(mus.size), np.zeros(mus.size), ns, self.b, 8)
            ek += ns.sum() * 8 * U * m / self.b
        else:
            sup, lo, hi, mate, own = plan.sup, plan.lo, plan.hi, plan.mate, plan.own
            kmin, n = lo.min(), hi - lo + 1
            bb, ee = pmfs
            first = np.zeros(mus.size, np.int64)
            first[own] = np.cumsum(n[own]) - n[own]
            # each group's window in bb: its own, or its mate's reversed (Bin(m, 1 - mu) is
            # Bin(m, mu) mirrored; mirrored windows have equal lengths); slices, not a
            # gather: the windows reach millions of points
            B, e = np.zeros((2, mus.size, hi.max() - kmin + 1))
            for g in range(mus.size):
                c, w, a = lo[g] - kmin, n[g], first[min(g, mate[g])]
                step = -1 if mate[g] < g else 1  # a mirrored copy: its mate's window reversed
                B[g, c : c + w], e[g, c : c + w] = bb[a : a + w][::step], ee[a : a + w][::step]
            B, db = _normalise(B, e)
            if self.softmax:
                Pk, ek = _softmax(B, db, ns, self.eta, list(zip(lo - kmin, hi - kmin, strict=True)))
            else:
                ys = kmin + np.arange(B.shape[1], dtype=float)
                Pk, ek = _laplace(ys, B, db, ns, self.b, 2 / -math.expm1(-1 / self.b) + 4)
            ek += ns @ np.array([s[2] for s in sup])
        P[keep], err[keep] = Pk, err[keep] + ek
        return P, err


class _Plan:
    """One law's preparation (:meth:`_Spec._plan`)."""

    def __init__(self, m, keep, P, err, mus, ns):
        self.m, self.keep, self.P, self.err, self.mus, self.ns = m, keep, P, err, mus, ns
        self.window = None
