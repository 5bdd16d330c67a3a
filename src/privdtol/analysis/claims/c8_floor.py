"""Diagnostics C8a and C8b, the lower side of Corollary 1 where the truth is known: on small
instances (K = 2, 3; a few rounds) the true floor OPT_T, the smallest placement-averaged regret
of any event-level ε-DP online algorithm, is computed exactly by a linear program
(:mod:`privdtol.engine.optimal`; the floor table of :mod:`privdtol.pipeline.floor`), so

    LB_T <= OPT_T <= Reg_T(A)  for every ε-DP algorithm A

is a theorem (LB_T bounds every ε-DP algorithm, OPT_T is the best of them), and a FAIL means
a computation is wrong: C8a, LB_T <= OPT_T at every cell and horizon (the explicit bound of
:mod:`privdtol.core.lower_bound`, its best term, or the program, is wrong); C8b, OPT_T <=
Reg_T for every registered private algorithm (one is not ε-DP, as C1 audits, or the exact
engine or the program is wrong).  Both are diagnostics of the pipeline, not statements of the
paper: C8b is implied by C1 (the algorithms are ε-DP) and the definition of OPT_T.

The numbers they carry are the report's: OPT_T / LB_T, how loose the explicit bound is where
the truth is known, and Reg_T / OPT_T, how far each algorithm is from the best ε-DP one.

Tolerance: a pair passes when the smaller side exceeds the larger by at most the solver's
duality gap, the exact engine's error bound and :data:`TOLERANCE` relative (HiGHS's
feasibility tolerances are 1e-10).  Negative controls: follow-the-leader (non-private) and
``rps_hot`` (η = 4 whatever ε, private in name only) put in the place of an ε-DP algorithm:
both fall below OPT_T (and below LB_T) in the privacy regime.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import FAIL, PASS

#: relative slack of a comparison beyond the solver's and the engine's stated errors
TOLERANCE = 1e-7
#: the cell columns of the floor table
CELL = ["K", "mu", "gap", "epsilon"]
_WHY = (
    "a theorem where the truth is known (LB_T bounds every ε-DP algorithm and OPT_T is the "
    "best of them), so a check of the pipeline's computations, not a statement of the paper"
)
_QUOTE = (
    "Corollary 1: the rate Theta(log K/Delta_min + log K/eps) is optimal, with the lower bound "
    "of Hu et al. (2021) [order log K/min{Delta_min, eps} for every eps-DP algorithm]."
)
_QUOTE_TEX = (
    r"Corollary~1: the rate $\Theta(\log K/\Delta_{\min} + \log K/\varepsilon)$ is optimal, "
    r"with the lower bound of Hu et al.\ (2021) [order $\log K/\min\{\Delta_{\min}, "
    r"\varepsilon\}$ for every $\varepsilon$-DP algorithm]."
)
C8A = Claim(
    "C8a",
    "The explicit lower bound is below the true floor: LB_T ≤ OPT_T",
    "Corollary 1 with Hu et al. (2021); the pipeline's own bound",
    _QUOTE,
    "smallest OPT_T / LB_T over the floor's cells and horizons (OPT_T: the best regret of "
    "any ε-DP algorithm, an exact linear program)",
    ("floor",),
    (),
    f"{__name__}:check_bound",
    "floor",
    ("ftl", "rps_hot"),
    diagnostic=_WHY + "; a FAIL means LB_T or the program is wrong",
    tex=ClaimTeX(
        r"The explicit lower bound is below the true floor: "
        r"$\mathrm{LB}_T \le \mathrm{OPT}_T$",
        _QUOTE_TEX,
        r"smallest $\mathrm{OPT}_T/\mathrm{LB}_T$ over the floor's cells and horizons "
        r"($\mathrm{OPT}_T$: the best regret of any $\varepsilon$-DP algorithm, an exact "
        r"linear program)",
    ),
)
C8B = Claim(
    "C8b",
    "Every registered ε-DP algorithm is above the true floor: OPT_T ≤ Reg_T",
    "Corollary 1 with Hu et al. (2021); Proposition 1",
    _QUOTE,
    "smallest Reg_T / OPT_T over the registered private algorithms, the floor's cells and "
    "horizons (exact Reg_T)",
    ("floor",),
    (),
    f"{__name__}:check_algorithms",
    "floor",
    ("ftl", "rps_hot"),
    diagnostic=_WHY + "; implied by C1 (every registered private algorithm is ε-DP); a FAIL "
    "means an algorithm is not ε-DP or a computation is wrong",
    tex=ClaimTeX(
        r"Every registered $\varepsilon$-DP algorithm is above the true floor: "
        r"$\mathrm{OPT}_T \le \mathrm{Reg}_T$",
        _QUOTE_TEX,
        r"smallest $\mathrm{Reg}_T/\mathrm{OPT}_T$ over the registered private algorithms, "
        r"the floor's cells and horizons (exact $\mathrm{Reg}_T$)",
    ),
)
#: the diagnostics this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (C8A, C8B)


def _cell(row) -> dict:
    return {
        c: (int(row[c]) if c in ("K", "horizon") else float(row[c])) for c in [*CELL, "horizon"]
    }


def floor_points(floor: pd.DataFrame) -> pd.DataFrame:
    """One row per (cell, horizon): OPT_T, its duality gap and LB_T's terms."""
    keep = [*CELL, "horizon", "optimal", "duality_gap"]
    keep += [c for c in floor.columns if c.startswith("lb_")]
    return floor[keep].drop_duplicates([*CELL, "horizon"]).reset_index(drop=True)


def check_bound(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs=(), algorithm: str = "rps"
) -> dict:
    """C8a: LB_T (its best term) <= OPT_T at every cell and horizon; a control (``algorithm``
    not ``rps``) puts that algorithm's Reg_T in the place of OPT_T."""
    control = algorithm != "rps"
    who = f"Reg_T of {algorithm} in the place of OPT_T" if control else "OPT_T"
    head = Heading(
        C8A.id,
        f"LB_T <= {who} at every floor cell",
        "min over cells and horizons of OPT_T / LB_T",
        f"LB_T <= OPT_T + duality gap + {TOLERANCE:g} relative at every cell and horizon "
        "(else FAIL)",
    )
    floor = tables.get("floor")
    if floor is None or floor.empty:
        return no_data(head, "No floor table in the input.", inputs, algorithm)
    if control:
        rows = floor[floor["algorithm"] == algorithm]
        if rows.empty:
            return no_data(head, f"No rows of {algorithm} in the floor table.", inputs, algorithm)
        pts = rows.assign(optimal=rows["regret"], duality_gap=rows["error_bound"])
    else:
        pts = floor_points(floor)
    lb = pts["lb_best"]
    ok = lb <= pts["optimal"] + pts["duality_gap"] + TOLERANCE * pts["optimal"].abs()
    ratio = pts["optimal"] / lb.where(lb > 0)
    cells = [
        _cell(r)
        | {
            "optimal": float(r["optimal"]),
            "lb_best": float(r["lb_best"]),
            "lb_combined": float(r["lb_combined"]),
            "ratio": None if pd.isna(q) else float(q),
            "ratio_combined": (
                float(r["optimal"] / r["lb_combined"]) if r["lb_combined"] > 0 else None
            ),
            "verdict": PASS if good else FAIL,
        }
        for (_, r), q, good in zip(pts.iterrows(), ratio, ok, strict=True)
    ]
    verdict = PASS if ok.all() else FAIL
    i = ratio.idxmin()
    summary = (
        f"Over {len(pts[CELL].drop_duplicates())} cells and {len(pts)} (cell, horizon) pairs, "
        f"{int((~ok).sum())} have LB_T above {who}; {who}/LB_T ranges from "
        f"{fmt(ratio.min())} (K={pts.at[i, 'K']}, gap={fmt(pts.at[i, 'gap'])}, "
        f"eps={fmt(pts.at[i, 'epsilon'])}, T={pts.at[i, 'horizon']}) to {fmt(ratio.max())}."
    )
    last = pts.groupby(CELL)["horizon"].transform("max") == pts["horizon"]
    if last.any():
        summary += (
            f" At each cell's largest horizon it ranges from {fmt(ratio[last].min())} to "
            f"{fmt(ratio[last].max())} (at T = 1 both are gap (1 - 1/K))."
        )
    stat = float(ratio.min())
    return make_check(head, stat, stat, stat, verdict, summary, cells, inputs, algorithm)


def check_algorithms(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs=(), algorithm: str = "rps"
) -> dict:
    """C8b: OPT_T <= Reg_T for every registered private algorithm (``algorithm="rps"``) or for
    one control, at every cell and horizon."""
    control = algorithm != "rps"
    who = algorithm if control else "every registered private algorithm"
    head = Heading(
        C8B.id,
        f"OPT_T <= Reg_T for {who} at every floor cell",
        "min over algorithms, cells and horizons of Reg_T / OPT_T",
        f"Reg_T + error bound >= OPT_T - duality gap - {TOLERANCE:g} relative everywhere "
        "(else FAIL)",
    )
    floor = tables.get("floor")
    if floor is None or floor.empty:
        return no_data(head, "No floor table in the input.", inputs, algorithm)
    rows = floor[floor["algorithm"] == algorithm] if control else floor[floor["private"]]
    if rows.empty:
        return no_data(head, f"No rows of {who} in the floor table.", inputs, algorithm)
    slack = rows["duality_gap"] + rows["error_bound"] + TOLERANCE * rows["optimal"].abs()
    ok = rows["regret"] >= rows["optimal"] - slack
    ratio = rows["regret"] / rows["optimal"]
    cells = [
        {"algorithm": r["algorithm"]}
        | _cell(r)
        | {
            "regret": float(r["regret"]),
            "optimal": float(r["optimal"]),
            "ratio": float(q),
            "verdict": PASS if good else FAIL,
        }
        for (_, r), q, good in zip(rows.iterrows(), ratio, ok, strict=True)
    ]
    i = ratio.idxmin()
    summary = (
        f"Over {rows['algorithm'].nunique()} algorithm(s), "
        f"{len(rows[CELL].drop_duplicates())} cells and {len(rows)} (algorithm, cell, horizon) "
        f"rows, {int((~ok).sum())} are below OPT_T; Reg_T/OPT_T is smallest at "
        f"{rows.at[i, 'algorithm']}, K={rows.at[i, 'K']}, gap={fmt(rows.at[i, 'gap'])}, "
        f"eps={fmt(rows.at[i, 'epsilon'])}, T={rows.at[i, 'horizon']}: {fmt(ratio.min(), 6)}; "
        f"largest {fmt(ratio.max())}."
    )
    stat = float(ratio.min())
    verdict = PASS if ok.all() else FAIL
    return make_check(head, stat, stat, stat, verdict, summary, cells, inputs, algorithm)
