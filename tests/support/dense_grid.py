"""A reference for the worst-instance search (:mod:`privdtol.engine.worst_case`) at K = 2 and
K = 3, written without its code: a dense grid over every instance, then zooms.

With Delta_min = ``gap`` fixed, an instance of K = 2 actions is its best mean alone and one of
K = 3 actions its best mean and its third mean; both are points of [0, 1]^(K - 1):

- x_0: mu_1 = x_0 (1 - gap), so that mu_2 = mu_1 + gap runs over [gap, 1];
- (K = 3) t: mu_3 = mu_2 + t (1 - mu_2), anywhere from mu_2 (t = 0) to 1 (t = 1).

The three ratios at a point are the exact regret at the horizon
(:func:`privdtol.engine.exact.expected_regret`, its default tolerance) over Theorem 1's bound
1 + 800 log K / gap + 16 log K / eta, eta = min(eps/2, 1/8) (eq. (1), written out here) and
over LB_T of the instance itself (:func:`privdtol.core.lower_bound_means.lower_bound_means`, its
``best`` column).

:func:`grid_extreme` evaluates ``coarse`` points per parameter over [0, 1]^d, then zooms until
the step is below ``min_step``: each zoom a grid of ``fine`` points per parameter over the box
of one step of the previous grid on each side of the best point so far (clipped to [0, 1]),
which divides the step by (fine - 1) / 2.  LB_T has kinks (a sum over rounds of
max(0, s_t, p_t, b_t)), so a ratio's extreme may sit on a kink, where a grid
is off by up to a slope times half its step: hence the small default ``min_step``.  Every point
is computed once (a cache shared by the objectives).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from privdtol.core.lower_bound_means import lower_bound_means
from privdtol.engine.exact import expected_regret

#: objective -> (the ratio it reads, +1 to maximise or -1 to minimise)
OBJECTIVES = {"theorem1": ("theorem1", 1), "lower_max": ("lower", 1), "lower_min": ("lower", -1)}


def grid_means(K: int, gap: float, point) -> list[float]:
    """The means of the point ``(x_0,)`` (K = 2) or ``(x_0, t)`` (K = 3)."""
    mu1 = point[0] * (1 - gap)
    means = [mu1, mu1 + gap]
    if K == 3:
        means.append(means[1] + point[1] * (1 - means[1]))
    elif K != 2:
        raise ValueError("the dense grid is for K = 2 or 3")
    return means


class GridRatios:
    """The ratios of one algorithm and (K, gap, eps, T) at points of [0, 1]^(K - 1), each
    point computed once (``evaluations``: how many were)."""

    def __init__(self, algorithm: str, K: int, gap: float, epsilon: float, horizon: int):
        self.algorithm, self.K, self.gap, self.epsilon, self.horizon = (
            algorithm,
            K,
            gap,
            epsilon,
            horizon,
        )
        eta = min(epsilon / 2, 1 / 8)
        self.theorem1_bound = 1 + 800 * math.log(K) / gap + 16 * math.log(K) / eta
        self._points: dict[tuple, dict] = {}
        self._lower: dict[tuple, float] = {}

    @property
    def evaluations(self) -> int:
        return len(self._points)

    def lower(self, means) -> float:
        key = tuple(means)
        if key not in self._lower:
            table = lower_bound_means(means, self.epsilon, [self.horizon])
            self._lower[key] = float(table["best"].iloc[0])
        return self._lower[key]

    def __call__(self, point) -> dict:
        key = tuple(float(v) for v in point)
        if key not in self._points:
            means = grid_means(self.K, self.gap, key)
            (regret,), _ = expected_regret(self.algorithm, means, self.epsilon, [self.horizon])
            self._points[key] = {
                "means": means,
                "theorem1": regret / self.theorem1_bound,
                "lower": regret / self.lower(means),
            }
        return self._points[key]


def _axis(centre: float, half: float, n: int) -> np.ndarray:
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return np.unique(np.r_[np.linspace(lo, hi, n), centre])


def grid_extreme(
    ratios: GridRatios, objective: str, coarse: int = 11, fine: int = 5, min_step: float = 1e-6
) -> tuple[float, tuple]:
    """The most extreme ``objective`` found by the coarse grid and its zooms, and its point."""
    ratio, sign = OBJECTIVES[objective]
    d = ratios.K - 1
    best_value, best_point = -math.inf, None

    def visit(axes):
        nonlocal best_value, best_point
        for point in itertools.product(*axes):
            v = sign * ratios(point)[ratio]
            if v > best_value:
                best_value, best_point = v, point

    step = 1.0 / (coarse - 1)
    visit([np.linspace(0.0, 1.0, coarse)] * d)
    while step > min_step:
        visit([_axis(c, step, fine) for c in best_point])
        step = 2 * step / (fine - 1)
    return sign * best_value, tuple(float(v) for v in best_point)
