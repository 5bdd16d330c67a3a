"""Reference laws and stand-in generators shared by the tests of the algorithms, environments
and privacy audits: the two-action Laplace noisy-min law, the pooled Binomial law of window
sums, draws of one selection, and a generator whose draws are fixed."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from support.stats import ALPHA_FW, chisquare_against

#: per-action mean losses of the environment tests (a tie between actions 1 and 2)
MEANS = np.array([0.3, 0.45, 0.45, 0.8])


def noisy_min_pair_law(d: float, b: float) -> list[float]:
    """(P(0), P(1)) of argmin_j (S_j - Z_j), S_1 - S_0 = d >= 0, Z_j i.i.d. Laplace(b):
    P(1) = P(Z_1 - Z_0 > d); the difference has density (1 + |x|/b) e^(-|x|/b) / (4b), whose
    tail is (1 + d/(2b)) e^(-d/b) / 2 = e^(-d/b) (2 + d/b) / 4."""
    p1 = math.exp(-d / b) * (2 + d / b) / 4
    return [1 - p1, p1]


#: prefix sums of five actions at which the selection tests draw, and how many runs draw
SUMS = np.array([3.0, 4.0, 5.0, 9.0, 4.5])
N_DRAWS = 40_000


def draws(alg, sums, r=3, n=N_DRAWS, seed=1):
    """``n`` selections of a block algorithm after block ``r``, every run with the same sums:
    the actions and the law (None when it has no closed form)."""
    rng = np.random.default_rng(seed)
    return alg.select(rng, np.tile(sums, (n, 1)), r)


def explicit_window_sums(env, rng, start, lengths, resample=False):
    """The environment's window sums by drawing every round (its reference implementation)."""
    return env._explicit_window_sums(rng, start, lengths, resample=resample)


def window_lengths(n, rng):
    """A different window length per run, in 3..8, as the random prefix M_r gives."""
    return rng.integers(3, 9, size=n)


def binomial_mixture_pmf(lengths, p):
    """Law of one draw of Binomial(L, p) with L drawn uniformly from ``lengths``: the pooled law
    of draws i ~ Binomial(lengths[i], p).  (A chi-square test of such draws against the pooled
    law is conservative: their counts vary less than multinomial counts.)"""
    values, counts = np.unique(np.asarray(lengths), return_counts=True)
    k = np.arange(values.max() + 1)
    pmf = sum(c * stats.binom.pmf(k, v, p) for v, c in zip(values, counts, strict=True))
    return pmf / counts.sum()


def assert_fits_binomial(sums, lengths, p, m, what):
    """Integer window sums against their exact law Binomial(lengths[i], p) (level ALPHA_FW / m)."""
    values = np.asarray(sums)
    assert np.array_equal(values, np.round(values)), f"{what}: sums are not integers"
    pmf = binomial_mixture_pmf(lengths, p)
    pvalue = chisquare_against(values.astype(np.int64), pmf, pmf.size)
    assert pvalue > ALPHA_FW / m, f"{what}: p = {pvalue:.3g} against the exact Binomial law"


class ConstantRng:
    """A stand-in for a numpy Generator whose every uniform draw is ``u``, every integer the
    lowest allowed and every beta draw 0.3: the coins of the audits are read at one value."""

    def __init__(self, u):
        self.u = u

    def random(self, size=None):
        return self.u if size is None else np.full(size, self.u)

    def integers(self, low, high=None, size=None):
        return low if size is None else np.full(size, low)

    def beta(self, a, b, size=None):
        return np.full(size, 0.3)
