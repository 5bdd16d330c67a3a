"""The worst-instance search of :mod:`privdtol.engine.worst_case` for one algorithm and one
(K, Delta_min, eps), deterministic for its arguments (:func:`search`):

1. the standard instance, then the best mean swept over 9 values (every gap Delta_min);
2. the structured families of :mod:`.families` (two levels, two levels around 4 eta, three
   levels, geometric spreads) at the standard best mean and at the best mean each objective
   preferred in step 1: at most :data:`SCAN_SHARE` of the budget;
3. until ``budget`` distinct instances have been computed: Nelder-Mead runs, each objective
   in turn, from the best instance so far not yet used as a start, in the free family (every
   gap free) up to ``free_max_k`` actions and in the start's own family beyond (:func:`_refine`:
   a point outside [0, 1]^d is the instance of its projection, ranked a little worse);
4. ``unseen`` instances drawn at random from the families by an independent stream, computed
   after the search and not used by it: none should beat its best by more than ``tolerance``
   (relative); the result says whether one did.

Instances are ranked with regrets computed to :data:`.evaluate.SEARCH_TOL`; the values reported
(the best of each objective, the standard instance, the best unseen) are computed again to the
engine's default tolerance.  Every family contains the standard instance, which is evaluated
first, so no search reports less than the standard instance.  A search finds the most extreme
value it evaluated, a bound on the extreme over instances, not the extreme itself.
"""

from __future__ import annotations

import math

import numpy as np

from privdtol.core import bounds
from privdtol.core.seeding import generator
from privdtol.engine.worst_case import families as fam
from privdtol.engine.worst_case.evaluate import (
    DEFAULT_HORIZON,
    DEFAULT_OBJECTIVES,
    OBJECTIVES,
    BudgetSpent,
    Evaluator,
    better,
    gain,
    value,
)

#: the largest K searched with every gap free
FREE_MAX_K = 8
#: the scan of structured families uses at most this share of the budget
SCAN_SHARE = 0.6
#: best means of step 1 (x_0 = mu_1 / (1 - Delta_min); 1/2 is the standard instance)
SWEEP_X0 = tuple(np.linspace(0.0, 1.0, 9).tolist())
#: each Nelder-Mead run may ask for this many values per parameter (plus one)
RUN_CALLS = 12
#: a Nelder-Mead point outside [0, 1]^d counts as its projection's value made worse by this
#: share of it per unit of L1 distance (a tie-break: see :func:`_refine`)
OUTSIDE = 1e-3


def _extreme(entries, objective):
    best = None
    for e in entries:
        if best is None or better(value(e, objective), value(best, objective), objective):
            best = e
    return best


def _ranked(entries, objective):
    sign = OBJECTIVES[objective][1]
    return sorted(entries, key=lambda e: (-sign * value(e, objective), e["evaluation"]))


def _refine(ev, start, objective, K, gap, eta, free_max_k, step, calls):
    """One Nelder-Mead run for ``objective`` from the instance ``start`` (its candidate, or its
    free-family form up to ``free_max_k`` actions).  A point x outside [0, 1]^d is the instance
    of its projection p onto [0, 1]^d (evaluated and ranked as such), and the run sees its value
    made worse by :data:`OUTSIDE` |value| |x - p|_1: the simplex turns back rather than lying
    on the face.  (Clipping the simplex's points, as scipy's ``bounds`` do, puts a clipped point
    onto a vertex already on the face: the simplex loses that dimension for good, and a run
    started on a bound never leaves it, so that an extreme next to a bound, e.g. the largest
    Reg/LB_T near mu_1 = 0, was missed.)  A face's instances are still reached: the
    projections of the points outside are instances on the face."""
    from scipy import optimize

    cand = start["candidate"]
    if 3 <= K <= free_max_k:
        cand = fam.as_free(start["means"], K, gap)
    sign = OBJECTIVES[objective][1]
    x0 = np.array(cand.x)
    d = x0.size
    simplex = [x0]
    for i in range(d):  # a step towards the interior along each parameter
        x = x0.copy()
        x[i] += step if x0[i] + step <= 1 else -step
        simplex.append(x)

    def f(x):
        inside = np.clip(x, 0.0, 1.0)
        c = fam.Candidate(cand.family, cand.counts, tuple(inside.tolist()))
        e = ev.evaluate(fam.means_of(c, K, gap, eta), "refine", c.label())
        e.setdefault("candidate", c)
        v = value(e, objective)
        return -sign * v + OUTSIDE * abs(v) * float(np.abs(x - inside).sum())

    optimize.minimize(
        f,
        x0,
        method="Nelder-Mead",
        options={
            "maxfev": calls * (d + 1),
            "xatol": 1e-12,
            "fatol": 0.0,
            "initial_simplex": np.array(simplex),
        },
    )


def _run(ev, K, gap, eta, budget, free_max_k, rng):
    """Steps 1-3 of the module docstring, until ``budget`` instances were computed."""

    def add(c: fam.Candidate, phase: str):
        e = ev.evaluate(fam.means_of(c, K, gap, eta), phase, c.label())
        e.setdefault("candidate", c)
        return e

    standard = add(fam.standard(K), "standard")
    sweep = [add(fam.Candidate("standard", (), (x,)), "sweep") for x in SWEEP_X0]
    x0s = [fam.STANDARD_X0] + [_extreme(sweep, o)["candidate"].x[0] for o in ev.objectives]
    x0s = list(dict.fromkeys(x0s))
    scan = fam.scan(K, gap, eta, x0s, free_max_k)
    room = max(0, int(SCAN_SHARE * budget) - ev.count)
    for c in scan[:room]:
        add(c, "scan")
    starts: dict[str, set] = {o: set() for o in ev.objectives}
    runs, idle = 0, 0
    while ev.count < budget:
        objective = ev.objectives[runs % len(ev.objectives)]
        before = ev.count
        start = next(
            (
                e
                for e in _ranked(ev.cache.values(), objective)
                if e["phase"] != "unseen" and id(e) not in starts[objective]
            ),
            None,
        )
        try:
            if start is None or idle >= len(ev.objectives):  # nothing new near the starts
                add(fam.random_candidate(rng, K, free_max_k), "explore")
                idle = 0
            else:
                starts[objective].add(id(start))
                step = 0.2 * 0.5 ** min(len(starts[objective]) - 1, 6)
                _refine(ev, start, objective, K, gap, eta, free_max_k, step, RUN_CALLS)
        except BudgetSpent:
            break
        idle = idle + 1 if ev.count == before else 0
        runs += 1
    return standard


def _public(entry: dict, gap: float) -> dict:
    means = [float(m) for m in entry["means"]]
    extra = {k: entry[k] for k in ("large_gap", "large_gap_error") if k in entry}
    return extra | {
        "means": means,
        "gaps": [m - means[0] for m in means[1:]],
        "family": entry["family"],
        "description": fam.describe(means, gap),
        "regret": entry["regret"],
        "error_bound": entry["error_bound"],
        "lower_bound": entry["lower"],
        "lower_bound_error": entry["lower_error"],
        "theorem1": entry["ratios"]["theorem1"],
        "lower": entry["ratios"]["lower"],
        "evaluation": entry["evaluation"],
    }


def search(
    algorithm,
    K,
    gap,
    epsilon,
    budget=250,
    seed=0,
    horizon=DEFAULT_HORIZON,
    env="bernoulli",
    unseen=40,
    tolerance=1e-3,
    free_max_k=FREE_MAX_K,
    objectives=DEFAULT_OBJECTIVES,
) -> tuple[dict, list[dict]]:
    """The most extreme instances found for each of ``objectives`` (of :data:`OBJECTIVES`;
    ``eq6`` for softmax rules only) and the trace of every evaluation (module docstring)."""
    K, gap, budget, unseen = int(K), float(gap), int(budget), int(unseen)
    if K < 2 or not 0 < gap < 1 or budget < 12 or unseen < 0 or not tolerance >= 0:
        raise ValueError("need K >= 2, 0 < gap < 1, budget >= 12, unseen >= 0, tolerance >= 0")
    objectives = tuple(objectives)
    if not objectives or not set(objectives) <= set(OBJECTIVES):
        raise ValueError(f"objectives: some of {', '.join(OBJECTIVES)}")
    if "eq6" in objectives:
        from privdtol.engine.exact.proof import PROOF_ALGORITHMS

        if algorithm not in PROOF_ALGORITHMS:
            raise ValueError(f"objective eq6: a softmax rule ({', '.join(PROOF_ALGORITHMS)})")
    eta = float(bounds.eta(epsilon))
    ev = Evaluator(algorithm, K, gap, epsilon, horizon, env, objectives)
    ev.budget = budget
    params = {"algorithm": algorithm, "K": K, "gap": gap, "epsilon": float(epsilon)}
    rng = generator({**params, "seed": int(seed), "stream": "explore"})
    standard = _run(ev, K, gap, eta, budget, free_max_k, rng)
    searched = list(ev.cache.values())
    evaluations = ev.count
    # step 4: instances the search did not see, from an independent stream
    held = generator({**params, "seed": int(seed), "stream": "unseen"})
    fresh = [
        ev.evaluate(fam.means_of(c, K, gap, eta), "unseen", c.label(), counted=False)
        for c in (fam.random_candidate(held, K, free_max_k) for _ in range(unseen))
    ]
    fresh = [e for e in fresh if e["phase"] == "unseen"]
    std = ev.accurate(standard)
    found, checks = {}, {}
    for objective in objectives:
        top = [ev.accurate(e) for e in _ranked(searched, objective)[:3]]
        best = _extreme([std, *top], objective)
        v, s = value(best, objective), value(std, objective)
        found[objective] = {
            **_public(best, gap),
            "value": v,
            "standard_value": s,
            # None where the standard instance's value is 0 (an eq6 value without large gaps)
            "gain": g if math.isfinite(g := gain(v, s, objective)) else None,
            "beats_standard": gain(v, s, objective) > tolerance,
        }
        if fresh:
            rival = ev.accurate(_extreme(fresh, objective))
            r = value(rival, objective)
            margin = gain(r, v, objective)
            checks[objective] = {
                "value": r,
                "means": [float(m) for m in rival["means"]],
                "margin": margin,
                "beaten": margin > tolerance,
            }
    counts: dict[str, int] = {}
    for e in searched:
        name = e["family"].split("(")[0]
        counts[name] = counts.get(name, 0) + 1
    result = {
        "algorithm": algorithm,
        "K": K,
        "gap": gap,
        "epsilon": float(epsilon),
        "eta": eta,
        "env": env,
        "seed": int(seed),
        "budget": budget,
        "horizon": int(horizon),
        "tolerance": float(tolerance),
        "evaluations": evaluations,
        "families": dict(sorted(counts.items())),
        "theorem1_bound": ev.theorem1,
        "eq6_bound": ev.eq6,
        "standard": _public(std, gap),
        "objectives": found,
        "unseen": {"count": len(fresh), "objectives": checks},
        "note": "the most extreme value found by the search, not the extreme over instances",
    }
    return result, ev.trace
