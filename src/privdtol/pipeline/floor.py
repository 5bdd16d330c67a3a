"""The floor experiment (the config's ``floor:`` block; ``results/agg/floor.parquet``): at every
cell (K, gap, epsilon) of the standard two-level instance (mu = 1/2 + gap/2) and every horizon T
up to the largest the block's budget solves, the true floor OPT_T (:mod:`privdtol.engine.optimal`),
the explicit lower bound LB_T and each of its terms (:mod:`privdtol.core.lower_bound`), and the
exact Reg_T (:mod:`privdtol.engine.exact`) of every registered private algorithm with an exact
law, beside two controls: follow-the-leader (non-private; exact by the binomial laws of the
cumulative losses) and ``rps_hot`` (private in name only).  The lower side of Corollary 1 of
Cesari & Colomboni: LB_T <= OPT_T <= Reg_T of every ε-DP algorithm.

One row per (cell, horizon, algorithm): the columns of the cell and the horizon, ``optimal``,
``duality_gap``, ``lb_<term>`` (statistical, privacy, combined, two_point, best), then
``algorithm``, ``role``, ``private`` (held to ε-DP: a registered private algorithm that is not a
control), ``regret`` and ``error_bound``.  Deterministic: no randomness anywhere."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy.stats import binom

from privdtol.errors import InputError

#: the block's defaults (the schema's)
DEFAULTS = {"max_rows": 20_000}
#: the controls beside the private algorithms: a non-private one and one private in name only
CONTROLS = ("ftl", "rps_hot")
#: the terms of LB_T, as :func:`privdtol.core.lower_bound.lower_bound` names them
TERMS = ("statistical", "privacy", "combined", "two_point", "best")


def floor_algorithms() -> list[str]:
    """The registered private algorithms (controls aside) that the exact engine computes."""
    from privdtol.algorithms import ALGORITHMS
    from privdtol.engine.exact import EXACT_ALGORITHMS

    return [
        name
        for name, cls in ALGORITHMS.items()
        if cls.private and cls.role != "control" and name in EXACT_ALGORITHMS
    ]


def horizons(K: int, max_rows: int) -> list[int]:
    """1 ... the largest T whose program has at most ``max_rows`` privacy rows."""
    from privdtol.engine.optimal.size import privacy_rows

    t = 1
    while privacy_rows(K, t + 1) <= max_rows:
        t += 1
    return list(range(1, t + 1))


def check_floor_block(block) -> dict:
    """The block with its defaults, or an :class:`InputError` naming the ``floor.`` key: the
    config schema's ``floor`` entry, then every cell a valid input of ``privdtol optimal``."""
    from privdtol.engine.optimal.size import MAX_ROWS, check
    from privdtol.pipeline.config import check_values, load_schema, validate_schema

    if not isinstance(block, dict):
        raise InputError("floor", f"got {type(block).__name__}", "a mapping")
    schema = load_schema()
    sub = {
        "$defs": schema["$defs"],
        "type": "object",
        "properties": {"floor": schema["properties"]["floor"]},
    }
    check_values(block, ["floor"])
    validate_schema({"floor": block}, sub, set_default=False)
    block = DEFAULTS | dict(block)
    rows = block["max_rows"]
    if not (isinstance(rows, int) and 1 <= rows <= MAX_ROWS):
        raise InputError("floor.max_rows", f"got {rows!r}", f"integers from 1 to {MAX_ROWS}")
    for key in ("K", "gap", "epsilon"):
        if not block.get(key):
            raise InputError(f"floor.{key}", "missing or empty", "a non-empty list")
    for K, gap, eps in itertools.product(block["K"], block["gap"], block["epsilon"]):
        try:
            check(K, 0.5 + gap / 2, gap, eps, horizons(K, rows)[-1])
        except InputError as err:
            raise InputError(f"floor.{err.field}", err.problem, err.allowed) from None
    return block


def leader_regret(K: int, mu: float, gap: float, T: int) -> float:
    """Follow-the-leader (ties uniform), the pseudo-regret over T rounds on the two-level
    instance, exactly: the cumulative losses of the actions are independent binomials, and
    round t misses the best action with probability 1 - E[1{best leads} / #leaders]."""
    total = 0.0
    for t in range(1, T + 1):
        n = t - 1
        counts = np.arange(n + 1)
        best, other = binom.pmf(counts, n, mu - gap), binom.pmf(counts, n, mu)
        hit = 0.0
        for b in range(n + 1):
            # the K - 1 others: each above b (prob q) or tied at b (prob r)
            q, r = binom.sf(b, n, mu), other[b]
            # E[1 / (1 + ties)] over ties ~ Bin(K - 1, r / (q + r)) given none below b
            hit += best[b] * sum(
                math.comb(K - 1, k) * r**k * q ** (K - 1 - k) / (1 + k) for k in range(K)
            )
        total += gap * (1 - hit)
    return total


def _cell(K: int, gap: float, eps: float, hs: list[int], algorithms: list[str]) -> list[dict]:
    from privdtol.algorithms import ALGORITHMS
    from privdtol.core.lower_bound import lower_bound
    from privdtol.engine.exact import expected_regret
    from privdtol.engine.optimal import optimal

    mu = 0.5 + gap / 2
    means = (mu - gap,) + (mu,) * (K - 1)
    bounds = lower_bound(K, mu, gap, eps, hs).set_index("horizon")
    regrets = {}
    for name in [*algorithms, "rps_hot"]:
        reg, err = expected_regret(name, means, eps, hs)
        regrets[name] = list(zip(reg, err, strict=True))
    regrets["ftl"] = [(leader_regret(K, mu, gap, T), 0.0) for T in hs]
    rows = []
    for i, T in enumerate(hs):
        opt = optimal(K, mu, gap, eps, T)
        if opt["status"] != "optimal":
            raise RuntimeError(f"HiGHS: {opt['status']} at K={K} gap={gap} eps={eps} T={T}")
        base = {"K": K, "mu": mu, "gap": gap, "epsilon": eps, "horizon": T}
        base |= {"optimal": opt["optimal"], "duality_gap": opt["duality_gap"]}
        base |= {f"lb_{term}": float(bounds.at[T, term]) for term in TERMS}
        for name in [*algorithms, *CONTROLS]:
            cls = ALGORITHMS[name]
            reg, err = regrets[name][i]
            rows.append(
                base
                | {
                    "algorithm": name,
                    "role": cls.role,
                    "private": bool(cls.private and cls.role != "control"),
                    "regret": float(reg),
                    "error_bound": float(err),
                }
            )
    return rows


def floor_table(block: dict) -> pd.DataFrame:
    """The floor table of a ``floor:`` block (checked first)."""
    block = check_floor_block(block)
    algorithms = floor_algorithms()
    rows = []
    for K, gap, eps in itertools.product(block["K"], block["gap"], block["epsilon"]):
        rows += _cell(
            int(K), float(gap), float(eps), horizons(int(K), block["max_rows"]), algorithms
        )
    return pd.DataFrame(rows)
