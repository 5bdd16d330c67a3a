"""Families of instances the worst-instance search runs over (Cesari & Colomboni: Theorem 1 and
Lemma 5 hold "for every i.i.d. loss process with a unique best action", Section 4).

An instance of K actions with product-Bernoulli losses is its means, best first: mu_1 and the
gaps Delta_j = mu_j - mu_1, one of them exactly Delta_min (the searched gap) and the others in
[Delta_min, 1 - mu_1].  A :class:`Candidate` is a family, its integer parameters (``counts``:
how many actions sit at each level) and its continuous parameters ``x`` in [0, 1]^d, the first
always the best mean (mu_1 = x_0 (1 - Delta_min)); ``room`` = 1 - mu_1 - Delta_min is how far
above Delta_min a gap can go.

- ``standard``: every gap Delta_min (x_0 = 1/2 is the pipeline's standard instance).
- ``two_level``: n actions at Delta_min, the K - 1 - n others at Delta_2 = Delta_min + y room.
- ``near_4eta``: the same with Delta_2 = 4 eta 2^(z - 1/2), z in [0, 1] (clipped to the
  allowed gaps): around the threshold of eq. (3) that moves an action from the small-gap part
  (Delta_j <= 4 eta, eqs. (4)-(5)) to the large-gap part (eq. (6)).
- ``three_level``: n_1 at Delta_min, n_2 at Delta_min + y_2 room, the rest at
  Delta_min + y_3 room.
- ``geometric``: c actions per level, level l at Delta_min r^l (l = 0..L - 1, L levels,
  r = (1 - mu_1)/Delta_min)^(s/(L - 1))): s = 1 puts the top level at the largest gap allowed;
  r = 2 puts each level in its own dyadic group H_l of eq. (5).
- ``free``: every gap but Delta_min free, Delta_j = Delta_min + u_j room (K - 1 parameters).

Every family contains the standard instance (n = K - 1, y = 0, s = 0 or u = 0 with x_0 = 1/2),
so a search that evaluates the standard instance never reports less.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the families, in the order the scan visits them
FAMILIES = ("standard", "two_level", "near_4eta", "three_level", "geometric", "free")
#: x_0 of the standard instance: mu_1 = 1/2 - Delta_min/2
STANDARD_X0 = 0.5


@dataclass(frozen=True)
class Candidate:
    """One instance of a family: its integer ``counts`` and continuous ``x`` in [0, 1]^d."""

    family: str
    counts: tuple[int, ...]
    x: tuple[float, ...]

    def label(self) -> str:
        """The family and its counts, e.g. ``two_level(3)``."""
        inner = ",".join(str(c) for c in self.counts)
        return f"{self.family}({inner})" if self.counts else self.family


def dimension(K: int, family: str) -> int:
    """The number of continuous parameters of ``family`` at K actions."""
    sizes = {"standard": 1, "two_level": 2, "near_4eta": 2, "three_level": 3, "geometric": 2}
    if family == "free":
        return K - 1
    if family not in sizes:
        raise ValueError(f"family {family!r} not in {FAMILIES}")
    return sizes[family]


def available(K: int, free_max_k: int) -> tuple[str, ...]:
    """The families that have instances other than the standard one at K actions (``free``
    only up to ``free_max_k`` actions)."""
    out = ["standard"]
    if K >= 3:
        out += ["two_level", "near_4eta", "geometric"]
    if K >= 4:
        out.append("three_level")
    if 3 <= K <= free_max_k:
        out.append("free")
    return tuple(f for f in FAMILIES if f in out)


def mu_best(x0: float, gap: float) -> float:
    return float(np.clip(x0, 0.0, 1.0)) * (1.0 - gap)


def means_of(c: Candidate, K: int, gap: float, eta: float) -> np.ndarray:
    """The means (best first, gaps sorted) of candidate ``c``."""
    x = np.clip(np.asarray(c.x, dtype=float), 0.0, 1.0)
    if x.size != dimension(K, c.family):
        raise ValueError(f"{c.family} at K = {K} takes {dimension(K, c.family)} parameters")
    mu1 = mu_best(x[0], gap)
    top = 1.0 - mu1  # the largest gap allowed
    room = max(0.0, top - gap)
    if c.family == "standard":
        gaps = np.full(K - 1, gap)
    elif c.family in ("two_level", "near_4eta"):
        (n,) = c.counts
        if c.family == "two_level":
            second = gap + x[1] * room
        else:
            second = float(np.clip(4 * eta * 2 ** (x[1] - 0.5), gap, top))
        gaps = np.r_[np.full(n, gap), np.full(K - 1 - n, second)]
    elif c.family == "three_level":
        n1, n2 = c.counts
        levels = (gap, gap + x[1] * room, gap + x[2] * room)
        gaps = np.repeat(levels, (n1, n2, K - 1 - n1 - n2))
    elif c.family == "geometric":
        (per,) = c.counts
        level = np.arange(K - 1) // per
        L = int(level[-1]) + 1
        ratio = (top / gap) ** (x[1] / (L - 1)) if L > 1 else 1.0
        gaps = np.minimum(gap * ratio ** level.astype(float), top)
    else:  # free
        gaps = np.r_[gap, gap + x[1:] * room]
    gaps[0] = gap  # one action at exactly Delta_min
    return np.r_[mu1, np.minimum(mu1 + np.sort(gaps), 1.0)]


def standard(K: int) -> Candidate:
    return Candidate("standard", (), (STANDARD_X0,))


def as_free(means, K: int, gap: float) -> Candidate:
    """The instance ``means`` as a candidate of the ``free`` family (every instance of K
    actions with Delta_min = ``gap`` is one)."""
    mu = np.asarray(means, dtype=float)
    x0 = mu[0] / (1.0 - gap)
    room = 1.0 - mu[0] - gap
    u = (mu[2:] - mu[0] - gap) / room if room > 0 else np.zeros(K - 2)
    return Candidate("free", (), (float(x0), *np.clip(u, 0.0, 1.0).tolist()))


def _unique(values) -> list[int]:
    return sorted({int(v) for v in values})


def scan(K: int, gap: float, eta: float, x0s, free_max_k: int) -> list[Candidate]:
    """The structured candidates the search evaluates first, at each best mean x_0 in
    ``x0s``: two-level instances with 1, about half or all but one of the other actions at
    Delta_min and the second level at 2, 4 and 16 Delta_min and at the largest gap; the same
    around 4 eta; three levels; geometric spreads of 1, 2 and about (K - 1)/4 actions per level,
    from a narrow spread to the widest."""
    fams = available(K, free_max_k)
    out: list[Candidate] = []
    ns = _unique(n for n in (1, (K - 1) // 2, K - 2) if 1 <= n <= K - 2)
    for x0 in x0s:
        mu1 = mu_best(x0, gap)
        room = max(0.0, 1.0 - mu1 - gap)
        if "two_level" in fams and room > 0:
            ys = sorted({min(1.0, (f - 1) * gap / room) for f in (2, 4, 16)} | {1.0})
            out += [Candidate("two_level", (n,), (x0, y)) for n in ns for y in ys]
        if "near_4eta" in fams:
            out += [Candidate("near_4eta", (n,), (x0, z)) for n in ns for z in (0.0, 0.5, 1.0)]
        if "three_level" in fams and room > 0:
            small = min(1.0, max(0.0, 4 * eta - gap) / room)
            pairs = _unique([1, max(1, (K - 1) // 3)])
            for n1 in pairs:
                n2 = max(1, (K - 1 - n1) // 2)
                if n1 + n2 <= K - 2:
                    out += [
                        Candidate("three_level", (n1, n2), (x0, y2, 1.0))
                        for y2 in sorted({small, min(1.0, gap / room)})
                    ]
        if "geometric" in fams:
            pers = _unique(c for c in (1, 2, max(1, (K - 1) // 4)) if c < K - 1)
            out += [Candidate("geometric", (c,), (x0, s)) for c in pers for s in (0.25, 0.5, 1.0)]
    return out


def random_candidate(rng: np.random.Generator, K: int, free_max_k: int) -> Candidate:
    """A candidate drawn at random: a family among those :func:`available` at K (``free`` at
    every K: a random gap vector), its counts and parameters uniform."""
    if K == 2:
        return Candidate("standard", (), (float(rng.random()),))
    fams = tuple(f for f in FAMILIES if f in available(K, free_max_k) or f == "free")
    fam = fams[int(rng.integers(len(fams)))]
    if fam in ("two_level", "near_4eta"):
        counts: tuple[int, ...] = (int(rng.integers(1, K - 1)),)
    elif fam == "three_level":
        n1 = int(rng.integers(1, K - 2))
        counts = (n1, int(rng.integers(1, K - 1 - n1)))
    elif fam == "geometric":
        counts = (int(rng.integers(1, K - 1)),)
    else:
        counts = ()
    x = rng.random(dimension(K, fam))
    return Candidate(fam, counts, tuple(float(v) for v in x))


def describe(means, gap: float) -> str:
    """The instance in words: mu_1 and how many gaps sit at each multiple of Delta_min, e.g.
    ``mu_1 0.492; gaps/Delta_min: 3 at 1, 12 at 4``."""
    mu = np.asarray(means, dtype=float)
    units = (mu[1:] - mu[0]) / gap
    parts, i = [], 0
    while i < units.size:
        j = i
        while j + 1 < units.size and math.isclose(units[j + 1], units[i], rel_tol=1e-9):
            j += 1
        parts.append(f"{j - i + 1} at {units[i]:.3g}")
        i = j + 1
    return f"mu_1 {mu[0]:.3g}; gaps/Delta_min: " + ", ".join(parts)
