"""The worst instance a search finds: Theorem 1 and Lemma 5 of Cesari & Colomboni hold "for
every i.i.d. loss process with a unique best action" (Section 4), so, for fixed K, Delta_min and
eps, the pipeline searches over the means of the K actions, every candidate computed exactly
(:func:`privdtol.engine.exact.expected_regret`, :func:`privdtol.engine.exact.proof.sum_terms`),
for the largest

- ``theorem1``: Reg_T / (1 + 800 log K/Delta_min + 16 log K/eta) (Theorem 1, eq. (1));
- ``lemma5``: sum_m F_m / (200 log K/Delta_min + 4 log K/eta) (Lemma 5);
- ``rate``: Reg_T / (log K/Delta_min + log K/eps) (Corollary 1's rate), and ``rate_min`` its
  smallest value (the lower side of Theta).

Families of instances (:data:`FAMILIES`; the best mean mu_1 and the gaps; at least one action at
exactly Delta_min; every mean in [0, 1]; R = 1 - mu_1 - Delta_min, the room above Delta_min):

- ``free``: mu_1 and each of the K - 2 other gaps (Delta_min + u_j R): K - 1 parameters;
- ``levels``: mu_1 and one second gap level for the K - 2 other actions: 2 parameters;
- ``spread``: mu_1, the number n of actions at Delta_min (1 + round(f (K - 2))), the other
  K - 1 - n gaps spread linearly from Delta_min + u R to Delta_min + v R: 4 parameters (the
  standard instance: n = K - 1; the staircase: n = 1, u = 1/(K - 2), v = 1).

Each family contains the standard instance, which starts the search (so the worst found is
never below it). scipy's ``differential_evolution`` (fixed seed, one worker: deterministic)
then L-BFGS-B polishing share the evaluation ``budget``. A search finds the largest value it
evaluated, never a supremum.

The differential evolution ranks its candidates with regrets computed to :data:`SEARCH_TOL`
(relative; each with its rigorous error bound, about 1e-7 of the regret: 45% less work than the
engine's 1e-10); the polishing, whose finite differences need the accurate values, the standard
instance and the instance reported are computed to the engine's default.
"""

from __future__ import annotations

import math

import numpy as np

from privdtol.core import bounds

OBJECTIVES = ("theorem1", "lemma5", "rate", "rate_min")
#: the regret's relative tolerance while differential evolution ranks candidates
SEARCH_TOL = 1e-6
FAMILIES = ("free", "levels", "spread")
#: the largest K searched with every gap free (family "auto")
FREE_MAX_K = 8
#: the engine's largest checkpoint, the default horizon
DEFAULT_HORIZON = (1 << 40) - 1


def family_for(K: int, family: str = "auto") -> str:
    """The family searched: ``free`` up to :data:`FREE_MAX_K` actions, else ``spread``."""
    if family == "auto":
        return "free" if K <= FREE_MAX_K else "spread"
    if family not in FAMILIES:
        raise ValueError(f"family {family!r} not in {FAMILIES}")
    return family


def n_params(K: int, family: str) -> int:
    return {"free": K - 1, "levels": 2, "spread": 4}[family]


def means_of(x, K: int, gap: float, family: str) -> np.ndarray:
    """The means (best first, sorted) of the family's parameters ``x`` in [0, 1]^d."""
    x = np.clip(np.asarray(x, dtype=float), 0.0, 1.0)
    mu1 = x[0] * (1.0 - gap)
    room = max(0.0, 1.0 - mu1 - gap)
    if family == "free":
        gaps = np.concatenate([[gap], gap + x[1:] * room])
    elif family == "levels":
        gaps = np.concatenate([[gap], np.full(K - 2, gap + x[1] * room)])
    else:
        n = 1 + round(float(x[1]) * (K - 2))
        rest = np.linspace(gap + x[2] * room, gap + x[3] * room, K - 1 - n)
        gaps = np.concatenate([np.full(n, gap), rest])
    means = np.minimum(mu1 + np.sort(gaps), 1.0)
    return np.concatenate([[mu1], means])


def standard_params(K: int, gap: float, family: str) -> np.ndarray:
    """The parameters of the standard instance (mu_1 = 1/2 - gap/2, every gap Delta_min)."""
    x = np.zeros(n_params(K, family))
    x[0] = (0.5 - gap / 2) / (1.0 - gap) if gap < 1 else 0.0
    if family == "spread":
        x[1] = 1.0
    return x


class Objective:
    """The objective of a search, counting and caching its exact evaluations."""

    def __init__(self, algorithm, K, gap, epsilon, objective, family, horizon, env):
        if objective not in OBJECTIVES:
            raise ValueError(f"objective {objective!r} not in {OBJECTIVES}")
        self.args = algorithm, K, gap, epsilon, family, int(horizon), env
        self.objective = objective
        self.sign = 1.0 if objective == "rate_min" else -1.0  # minimise sign * ratio
        self.cache: dict[tuple, dict] = {}
        self.trace: list[dict] = []
        #: the regret's relative tolerance of the next evaluations (None: the engine's default)
        self.tol: float | None = None

    def denominator(self) -> float:
        _, K, gap, eps, *_ = self.args
        if self.objective == "theorem1":
            return float(bounds.theorem1(K, gap, eps))
        if self.objective == "lemma5":
            return float(bounds.lemma5(K, gap, bounds.eta(eps)))
        return float(bounds.rate(K, gap, eps))

    def evaluate(self, x) -> dict:
        """The objective at parameters ``x`` (one evaluation of the trace)."""
        _, K, gap, _, family, _, _ = self.args
        out = self.at(means_of(x, K, gap, family))
        self.trace.append(
            {
                "evaluation": len(self.trace) + 1,
                "ratio": out["ratio"],
                "means": " ".join(f"{m:.17g}" for m in out["means"]),
            }
        )
        return out

    def at(self, means) -> dict:
        """The objective at ``means``, from the cache unless it holds a value computed to a
        looser tolerance than :attr:`tol` asks for."""
        from privdtol.engine.exact import expected_regret
        from privdtol.engine.exact.proof import sum_terms

        algorithm, _, _, eps, _, T, env = self.args
        key = tuple(np.round(means, 15))
        cached = self.cache.get(key)
        if cached is None or (cached["tol"] is not None and self.tol is None):
            tol = self.tol if self.objective != "lemma5" else None
            if self.objective == "lemma5":
                t = sum_terms(algorithm, means, eps, env)
                value, err = t["sum_F"], t["error_bound"]["sum_F"]
            else:
                kw = {} if tol is None else {"tol": tol}
                reg, reg_e = expected_regret(algorithm, means, eps, [T], env, **kw)
                value, err = float(reg[0]), float(reg_e[0])
            bound = self.denominator()
            self.cache[key] = {
                "means": means,
                "value": value,
                "error_bound": err,
                "bound": bound,
                "ratio": value / bound,
                "tol": tol,
            }
        return self.cache[key]

    def __call__(self, x) -> float:
        return self.sign * self.evaluate(x)["ratio"]


def _accurate(f: Objective, entry: dict) -> dict:
    """``entry``'s instance computed again to the engine's default tolerance (not a new
    evaluation of the trace: the search ranked it already)."""
    f.tol = None
    return f.at(entry["means"])


def search(
    algorithm,
    K,
    gap,
    epsilon,
    objective="theorem1",
    family="auto",
    budget=200,
    seed=0,
    horizon=DEFAULT_HORIZON,
    env="bernoulli",
) -> tuple[dict, list[dict]]:
    """The worst instance found and the trace of every evaluation (see the module docstring).
    ``budget``: about this many exact evaluations (differential evolution, then polishing)."""
    K, gap, budget = int(K), float(gap), int(budget)
    if K < 2 or not 0 < gap < 1 or budget < 4:
        raise ValueError("need K >= 2, 0 < gap < 1 and budget >= 4")
    fam = family_for(K, family)
    d = n_params(K, fam)
    f = Objective(algorithm, K, gap, epsilon, objective, fam, horizon, env)
    from scipy import optimize

    x0 = standard_params(K, gap, fam)
    standard = f.evaluate(x0)
    pop = max(5, d + 1)
    de_budget = max(pop, int(0.75 * budget) - 1)
    maxiter = max(0, de_budget // pop - 1)
    rng = np.random.default_rng(seed)
    init = np.vstack([x0, rng.random((pop - 1, d))])
    f.tol = SEARCH_TOL
    res = optimize.differential_evolution(
        f,
        [(0.0, 1.0)] * d,
        init=init,
        maxiter=maxiter,
        seed=seed,
        polish=False,
        tol=0,
        updating="immediate",
        workers=1,
    )
    f.tol = None
    left = max(0, budget - len(f.trace))
    if left >= 2 * (d + 1):
        pol = optimize.minimize(
            f,
            res.x,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * d,
            options={"maxfun": left, "eps": 1e-6},
        )
        best_x = pol.x if pol.fun < res.fun else res.x
    else:
        best_x = res.x
    f.evaluate(best_x)
    best = max(f.cache.values(), key=lambda r: -f.sign * r["ratio"])  # extremal evaluated
    if best["tol"] is not None:  # ranked at the search tolerance: computed again, accurately
        best = _accurate(f, best)
        best = max(best, standard, key=lambda r: -f.sign * r["ratio"])
    result = {
        "algorithm": algorithm,
        "K": K,
        "gap": gap,
        "epsilon": float(epsilon),
        "env": env,
        "objective": objective,
        "family": fam,
        "seed": int(seed),
        "budget": budget,
        "horizon": int(horizon),
        "means": [float(m) for m in best["means"]],
        "gaps": [float(m - best["means"][0]) for m in best["means"][1:]],
        "value": best["ratio"],
        "bound": best["bound"],
        "standard": {"means": [float(m) for m in standard["means"]], "value": standard["ratio"]},
        "evaluations": len(f.trace),
        "distinct_instances": len(f.cache),
        "note": "the largest value found by the search, not a supremum",
    }
    if objective == "lemma5":  # the ratio's numerator is sum_m F_m; Reg_T is reported too
        from privdtol.engine.exact import expected_regret

        reg, reg_e = expected_regret(algorithm, best["means"], epsilon, [int(horizon)], env)
        result.update(sum_F=best["value"], sum_F_error_bound=best["error_bound"])
        result.update(regret=float(reg[0]), error_bound=float(reg_e[0]))
    else:
        result.update(regret=best["value"], error_bound=best["error_bound"])
    if math.isnan(result["value"]):
        raise ValueError("the search produced no finite objective")
    return result, f.trace
