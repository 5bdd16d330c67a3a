"""One exact evaluation of the worst-instance search: an instance's regret at the horizon
(:func:`privdtol.engine.exact.expected_regret`), over Theorem 1's bound
1 + 800 log K/Delta_min + 16 log K/eta (Cesari & Colomboni, eq. (1)) and over the explicit lower
bound LB_T that every eps-DP algorithm must pay on that very instance
(:func:`privdtol.core.lower_bound_means.lower_bound_means`, its ``best`` column: the bound of
any mean vector, equal to the two-level bound on a two-level instance; deterministic losses
have their own, every other loss model the Bernoulli instance's of the same means).

At the default horizon T = 2^40 - 1 the regret, nondecreasing in T, has reached its limit over
T for every instance a search meets (the engine stops when the rest is below its error bound),
and so has LB_T: both ratios are horizon-free.
"""

from __future__ import annotations

import math

import numpy as np

from privdtol.core import bounds

#: the regret's relative tolerance while a search ranks instances (the values reported are
#: computed again to the engine's default, 1e-10)
SEARCH_TOL = 1e-5
#: the engine's largest checkpoint, the default horizon
DEFAULT_HORIZON = (1 << 40) - 1
#: objective -> (the ratio it reads, +1 to maximise or -1 to minimise); ``eq6``: the large-gap
#: part of sum_m F_m over eq. (6)'s bound 4 log K/eta (Lemma 5's proof), softmax rules only
OBJECTIVES = {
    "theorem1": ("theorem1", 1),
    "lower_max": ("lower", 1),
    "lower_min": ("lower", -1),
    "eq6": ("eq6", 1),
}
#: the objectives a search computes unless told otherwise
DEFAULT_OBJECTIVES = ("theorem1", "lower_max", "lower_min")


class BudgetSpent(Exception):
    """Raised when a search asks for a new instance after its budget of evaluations."""


def _key(means) -> tuple:
    return tuple(np.round(np.asarray(means, dtype=float), 15).tolist())


class Evaluator:
    """Every instance's regret, bounds and ratios, each computed once (by :attr:`count`,
    the number of distinct instances computed for the search) and written to :attr:`trace`."""

    def __init__(
        self,
        algorithm,
        K,
        gap,
        epsilon,
        horizon=DEFAULT_HORIZON,
        env="bernoulli",
        objectives=DEFAULT_OBJECTIVES,
    ):
        self.algorithm, self.K, self.gap, self.epsilon = algorithm, int(K), float(gap), epsilon
        self.horizon, self.env = int(horizon), env
        self.objectives = tuple(objectives)
        self.theorem1 = float(bounds.theorem1(self.K, self.gap, epsilon))
        self.eq6 = float(bounds.eq6(self.K, bounds.eta(epsilon)))
        self.budget: int | None = None
        self.count = 0
        self.cache: dict[tuple, dict] = {}
        self.trace: list[dict] = []
        self._lower: dict[tuple, tuple[float, float]] = {}

    def lower(self, means) -> tuple[float, float]:
        """LB_T (``best``) and its error on the instance ``means`` itself."""
        key = _key(means)
        if key not in self._lower:
            from privdtol.core.lower_bound_means import lower_bound_means_columns
            from privdtol.environments import exact_family

            det = exact_family(self.env) == "deterministic"
            model = "deterministic" if det else "bernoulli"
            row = lower_bound_means_columns(means, self.epsilon, [self.horizon], model)
            self._lower[key] = float(row["best"][0]), float(row["best_error"][0])
        return self._lower[key]

    def _compute(self, means, tol) -> dict:
        from privdtol.engine.exact import expected_regret

        kw = {} if tol is None else {"tol": tol}
        reg, err = expected_regret(
            self.algorithm, means, self.epsilon, [self.horizon], self.env, **kw
        )
        lb, lb_err = self.lower(means)
        regret = float(reg[0])
        entry = {
            "means": np.asarray(means, dtype=float),
            "regret": regret,
            "error_bound": float(err[0]),
            "lower": lb,
            "lower_error": lb_err,
            "ratios": {"theorem1": regret / self.theorem1, "lower": regret / lb},
            "tol": tol,
        }
        if "eq6" in self.objectives:
            from privdtol.engine.exact.proof import REL_TOL, large_gap_part

            big, big_err = large_gap_part(
                self.algorithm, means, self.epsilon, self.env, REL_TOL if tol is None else tol
            )
            entry |= {"large_gap": big, "large_gap_error": big_err}
            entry["ratios"]["eq6"] = big / self.eq6
        return entry

    def evaluate(self, means, phase: str, label: str, counted: bool = True) -> dict:
        """The instance ``means`` at the ranking tolerance; a new instance counts against the
        budget (``counted``) and gets a row of the trace."""
        key = _key(means)
        if key in self.cache:
            return self.cache[key]
        if counted and self.budget is not None and self.count >= self.budget:
            raise BudgetSpent
        entry = self._compute(means, SEARCH_TOL)
        entry.update(phase=phase, family=label)
        if counted:
            self.count += 1
        entry["evaluation"] = len(self.trace) + 1
        self.cache[key] = entry
        self.trace.append(
            {
                "evaluation": entry["evaluation"],
                "phase": phase,
                "family": label,
                "regret": entry["regret"],
                "lower_bound": entry["lower"],
                "theorem1": entry["ratios"]["theorem1"],
                "lower": entry["ratios"]["lower"],
                "means": " ".join(f"{m:.17g}" for m in entry["means"]),
                **({"eq6": entry["ratios"]["eq6"]} if "eq6" in entry["ratios"] else {}),
            }
        )
        return entry

    def accurate(self, entry: dict) -> dict:
        """``entry``'s instance computed again to the engine's default tolerance."""
        out = self._compute(entry["means"], None)
        out.update(phase=entry["phase"], family=entry["family"], evaluation=entry["evaluation"])
        return out


def value(entry: dict, objective: str) -> float:
    """The objective's ratio at ``entry``."""
    return entry["ratios"][OBJECTIVES[objective][0]]


def better(a: float, b: float, objective: str) -> bool:
    """Whether ratio ``a`` is strictly more extreme than ``b`` for ``objective``."""
    return a > b if OBJECTIVES[objective][1] > 0 else a < b


def gain(a, b, objective: str):
    """How much ratio ``a`` is more extreme than ``b`` for ``objective``, relative:
    ``(a/b - 1)`` times +1 (maximised) or -1 (minimised); negative when less extreme.  A
    search beats its standard instance, and an unseen instance beats a search, when this
    exceeds the search's ``tolerance``.  From b = 0 (an eq6 value where no action is
    large-gap) any larger a is an infinite gain."""
    if np.ndim(a) == np.ndim(b) == 0 and b == 0:  # (tables of values: pandas' own division)
        return 0.0 if a == b else math.copysign(math.inf, (a - b) * OBJECTIVES[objective][1])
    return (a / b - 1) * OBJECTIVES[objective][1]
