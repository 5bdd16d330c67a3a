"""Solving the floor's program (:mod:`.program`) with HiGHS (``scipy.optimize.linprog``): the
value OPT_T, the solver's status and duality gap, and the optimal rule's first decision (the
law of I_2 given the one round of data it reads)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from privdtol.engine.optimal import reductions as red
from privdtol.engine.optimal.program import Program, build
from privdtol.engine.optimal.size import check

#: the solver's tolerances (HiGHS's primal and dual feasibility; the value's error is of
#: their order, far below the 1e-6 relative agreement the tests ask)
TOLERANCE = 1e-10


def solve_program(program: Program):
    """HiGHS's result on ``program`` (interior point, then crossover to a vertex)."""
    ub = {}
    if program.A_ub is not None:
        ub = {"A_ub": program.A_ub, "b_ub": np.zeros(program.A_ub.shape[0])}
    return linprog(
        program.c,
        A_eq=program.A_eq,
        b_eq=program.b_eq,
        bounds=(0, None),
        method="highs-ipm",
        options={
            "primal_feasibility_tolerance": TOLERANCE,
            "dual_feasibility_tolerance": TOLERANCE,
        },
        **ub,
    )


def first_decisions(program: Program, y: np.ndarray) -> list[dict]:
    """P(I_2 = i | round 1's losses) of the solution ``y``, one entry per loss pattern
    (``"="`` for all equal, else a 0/1 string, action 1 first) with the K probabilities."""
    if program.horizon < 2:
        return []
    K, R = program.K, red.n_symbols(program.K)
    x2 = program.full(y, 2).reshape(R, K, K)  # (round-1 symbol, I_1, I_2)
    law = x2.sum(axis=1)
    out = []
    for v in range(R):
        pattern = "=" if v == 0 else "".join(str((v >> i) & 1) for i in range(K))
        total = law[v].sum()
        out.append({"losses": pattern, "p": [float(p / total) for p in law[v]]})
    return out


def optimal(K, mu, gap, epsilon, horizon) -> dict:
    """OPT_T of one instance: the smallest placement-averaged pseudo-regret of any event-level
    ε-DP online algorithm over T rounds (``epsilon = inf``: of any online algorithm), as a
    record with the solver's ``status`` and ``duality_gap``, the program's size and the
    optimal rule's ``first_decisions``.  Bad input raises :class:`~privdtol.errors.InputError`
    before anything is built."""
    K, mu, gap, epsilon, horizon = check(K, mu, gap, epsilon, horizon)
    program = build(K, mu, gap, epsilon, horizon)
    res = solve_program(program)
    record = {"K": K, "mu": mu, "gap": gap, "epsilon": epsilon, "horizon": horizon}
    record["status"] = "optimal" if res.status == 0 else str(res.message)
    if res.status != 0:
        return record | {"optimal": None, "duality_gap": None}
    # the dual objective: b_eq . (equality duals) (the inequality and bound sides are 0)
    dual = float(program.b_eq @ res.eqlin.marginals)
    record["optimal"] = float(res.fun)
    record["duality_gap"] = abs(float(res.fun) - dual)
    record["variables"] = program.n_variables
    record["rows"] = program.A_eq.shape[0] + (0 if program.A_ub is None else program.A_ub.shape[0])
    record["first_decisions"] = first_decisions(program, res.x)
    return record
