"""Claim C6, the lower side of Corollary 1: no ε-DP algorithm does better than the explicit lower
bound LB_T (:mod:`privdtol.core.lower_bound`: Fano's inequality for the statistical term, group
privacy under a coupling for the privacy term, a two-point (Bretagnolle-Huber) term; explicit
versions of the arguments behind Hu et al. 2021's bound).  Corollary 1 pins the rate at
Θ(log K/Δ_min + log K/ε) "with the lower bound of Hu et al."; this checks that side with numbers
instead of an order.

**Scope.** LB_T bounds, on a fixed instance, the regret of every ε-DP algorithm that treats the
actions *symmetrically* (its law commutes with relabelling the actions: the algorithms that
declare ``symmetric``); for any other ε-DP algorithm it bounds the regret averaged over the
placement of the best action.  An algorithm free to fix its data-independent first action A₀
at the best one has Reg₁ = 0 < LB₁ = Δ(1 − 1/K) on that instance.  Only symmetric algorithms
are held to it here.

**What it can and cannot show.** LB_T is a theorem, so C6 follows from C1 (ε-DP) and the
bound's derivation: it is counted as implied by C1, not as an independent test.  A FAIL means an
algorithm is not ε-DP or a computation is wrong: the regret side is an audit of privacy,
independent of C1's audits, but a weak one.  It detects a violation only when the violation
buys regret below LB_T: an algorithm that is ε'-DP is caught only where its regret falls below
the ε-bound, i.e. for ε' above the ε at which LB_T(ε') reaches its regret (the privacy term of
LB_T scales like log K/ε, so at least a factor 1/ratio in ε: with RPS's smallest ratio
Reg/LB_T of about 1.5 on the grid, a violation by less than a factor 1.5 in ε is invisible).

Tested on every standard-instance cell and checkpoint of the regret experiments
(:mod:`privdtol.analysis.price`): a cell PASSes when the regret's lower confidence limit is at
least LB_T (its sandwich's upper end), FAILs when the regret's upper limit (Bonferroni over the
rows) is below LB_T's certified value.

Negative controls: the non-private algorithms (FTL, Hedge), held against LB_T at the ε of their
experiment, fall below it in the privacy regime; and ``rps_hot``, private in name only (η = 1/8
whatever ε), falls below it there too.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.cells import cell_label, stack
from privdtol.analysis.claim_types import BOUNDS_TABLE, LOWER_EXPERIMENTS, Claim, ClaimTeX
from privdtol.analysis.claims.c4_rate import COROLLARY1, COROLLARY1_TEX
from privdtol.analysis.price import final_prices, price_table
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import combine_verdicts

RECORD = Claim(
    "C6",
    "Lower side of Corollary 1: every symmetric ε-DP algorithm's Reg_T ≥ LB_T (Fano, group "
    "privacy, two points)",
    "Corollary 1 with Hu et al. (2021)",
    COROLLARY1 + " [The lower bound of [5]: order log K/min{Delta_min, eps} (the abstract).]",
    "smallest Reg_T / LB_T over the private algorithms and standard-instance cells at their "
    "largest horizon (the verdict: every checkpoint)",
    (*LOWER_EXPERIMENTS, BOUNDS_TABLE),
    ("confidence",),
    f"{__name__}:check",
    "lower",
    ("ftl", "hedge", "rps_hot"),
    implied_by=("C1",),
    tex=ClaimTeX(
        r"Lower side of Corollary~1: every symmetric $\varepsilon$-DP algorithm has "
        r"$\mathrm{Reg}_T \ge \mathrm{LB}_T$ (Fano, group privacy, two points)",
        COROLLARY1_TEX + r" [The lower bound of [5]: order $\log K/\min\{\Delta_{\min}, "
        r"\varepsilon\}$ (the abstract).]",
        r"smallest $\mathrm{Reg}_T/\mathrm{LB}_T$ over the private algorithms and "
        r"standard-instance cells at their largest horizon (the verdict: every checkpoint)",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id


def _rows(priced: pd.DataFrame) -> list[dict]:
    out = []
    for r in final_prices(priced).to_dict("records"):
        out.append(
            {
                "algorithm": r["algorithm"],
                "private": bool(r["private"]),
                **cell_label(r),
                "horizon": r["horizon"],
                "regret": r["mean"],
                "lb": r["lb"],
                "lb_error": r["lb_error"],
                "lb_statistical": r["lb_statistical"],
                "lb_privacy": r["lb_privacy"],
                "ratio": r["ratio"],
                "ratio_min": r["ratio_min"],
            }
        )
    return out


def check_lower(
    df: pd.DataFrame,
    confidence: float,
    algorithm: str | None = None,
    inputs=(),
    bounds: pd.DataFrame | None = None,
) -> dict:
    """C6 on every private algorithm (``algorithm`` None) or on one algorithm (a control,
    whatever its privacy); the record's cells are every algorithm's at its largest horizon (the
    figure's points), the verdict only the algorithms checked."""
    who = algorithm or "every private algorithm"
    head = Heading(
        CLAIM,
        f"Reg_T >= LB_T (Fano + group privacy) for {who}",
        "min over cells of Reg_T / LB_T at the largest horizon",
        f"regret's {confidence:.0%} lower limit >= LB_T in every cell and checkpoint "
        "(FAIL: its Bonferroni upper limit < LB_T)",
    )
    priced = price_table(df, confidence, bounds)
    if priced.empty:
        return no_data(head, "No standard-instance cells in the input.", inputs, algorithm or "rps")
    tested = (
        priced[priced["private"]] if algorithm is None else priced[priced.algorithm == algorithm]
    )
    if tested.empty:
        return no_data(head, f"No cells of {who} in the input.", inputs, algorithm or "rps")
    verdict = combine_verdicts(tested["verdict"])
    final = final_prices(tested)
    i = final["ratio"].idxmin()
    n_fail = int((tested["verdict"] == "FAIL").sum())
    names = ", ".join(sorted(tested.algorithm.unique()))
    why = (
        " (at T = 1 every algorithm with a uniform first action meets LB_T with equality, and "
        "before the best action can be told apart regret and LB_T both grow like "
        "gap (1 - 1/K) T)"
        if algorithm is None
        else ""
    )
    summary = (
        f"Over {tested.algorithm.nunique()} algorithm(s) ({names}), {len(final)} cells and "
        f"{len(tested)} (cell, checkpoint) pairs, {n_fail} pairs are below LB_T; the smallest "
        f"Reg_T/LB_T over every checkpoint is {fmt(tested['ratio'].min())}{why}; at the "
        f"cells' largest horizon it is {fmt(final.at[i, 'ratio'])}, at "
        f"{final.at[i, 'algorithm']}, K={fmt(final.at[i, 'K'])}, gap={fmt(final.at[i, 'gap'])}, "
        f"eps={fmt(final.at[i, 'epsilon'])}."
    )
    if algorithm is None:
        summary += (
            " Held only against symmetric algorithms (LB_T's scope), C6 is implied by C1; it "
            "sees a privacy violation only when it lowers the regret below LB_T, by more than "
            f"a factor {fmt(final['ratio'].min())} at the closest cell."
        )
    return make_check(
        head,
        float(final["ratio"].min()),
        float(final["ratio_low"].min()),
        float(final["ratio_high"].min()),
        verdict,
        summary,
        _rows(priced),
        inputs,
        algorithm or "rps",
    )


def check(
    tables: Mapping[str, pd.DataFrame],
    thresholds: dict,
    inputs: list[str],
    algorithm: str = "rps",
) -> dict:
    """The registry's C6 check: every private algorithm (the claim, ``algorithm="rps"``) or one
    control against LB_T."""
    df = stack(tables, LOWER_EXPERIMENTS)
    return check_lower(
        df,
        thresholds["confidence"],
        None if algorithm == "rps" else algorithm,
        inputs,
        tables.get(BOUNDS_TABLE),
    )
