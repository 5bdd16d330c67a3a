"""Claim C1 (Proposition 1, Lemma 3): every private algorithm is event-level ε-DP (each softmax
selection of RPS is 2η-DP, Lemma 3), and the audit can fail.

From the privacy experiment's table (``results/agg/privacy.parquet``, written by
:mod:`privdtol.privacy.audit_grid`), one cell per (role, algorithm, eps):

- a *private* algorithm's cell PASSes when no audit flags a violation: the largest exact loss
  found (per selection or whole sequence) is <= eps, and no statistical lower confidence bound
  exceeds eps.  For the softmax selections the largest exact loss must also be <= 2 eta
  (Lemma 3);
- a *negative control*'s cell is "caught" when some exact audit exhibits a pair with loss > eps.

Verdict: PASS iff every cell of rps (the algorithm Proposition 1 is about) passes and every
negative-control cell is caught; FAIL otherwise.  Another private algorithm (a competitor, an
ablation, a plugin) whose cell fails is that algorithm's failure, named in the summary and in
its cells, never Proposition 1's: a plugin that violates its declared privacy leaves RPS's
verdict as RPS's audits give it.  The statistic is the largest loss/eps ratio of RPS's exact
audits (the paper's algorithm; exact numbers, so no confidence interval), the other private
algorithms' largest beside it in the summary.  C1 has no thresholds.  Each negative control
also gets its own record (``C1--<control>.json``, :func:`check` with ``algorithm``): the claim
"ε-DP" checked on the control alone, FAIL when an exact audit exhibits a loss above ε.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis.cells import stack
from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.records import Heading, make_check, no_data
from privdtol.analysis.verdict import FAIL, PASS

RECORD = Claim(
    "C1",
    "Event-level pure ε-DP",
    "Proposition 1, Lemma 3",
    "Proposition 1 (Global event-level privacy): The randomized-prefix softmax algorithm "
    "is eps-differentially private. Lemma 3 (Privacy of the softmax map): [...] Then the "
    "randomized map d -> J is 2 eta-differentially private in the sense of Definition 2.",
    "largest privacy loss found by the exact and statistical audits, over eps",
    ("privacy",),
    (),
    f"{__name__}:check",
    "privacy",
    ("rps_eta_eps", "rps_data_prefix"),
    tex=ClaimTeX(
        r"Event-level pure $\varepsilon$-DP",
        r"Proposition 1 (Global event-level privacy): The randomized-prefix softmax algorithm "
        r"is $\varepsilon$-differentially private. Lemma 3 (Privacy of the softmax map): [\dots] "
        r"Then the randomized map $d \mapsto J$ is $2\eta$-differentially private in the sense "
        r"of Definition 2.",
        r"largest privacy loss found by the exact and statistical audits, over $\varepsilon$",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id
#: numerical slack of the comparison of an exact loss with its bound
TOL = 1e-9
TITLE = "Event-level eps-DP (Proposition 1; 2 eta per selection, Lemma 3)"
STATISTIC_LABEL = "max over private algorithms and eps of (largest privacy loss found)/eps"
THRESHOLD = "private: loss <= bound (exact), CP lower limit <= eps; controls: loss > eps"
HEAD = Heading(CLAIM, TITLE, STATISTIC_LABEL, THRESHOLD)


def c1_cells(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (role, algorithm, eps) with the largest losses of each audit and the cell's
    verdict (PASS/FAIL for a private algorithm, "caught"/"NOT caught" for a control)."""
    rows = []
    for (role, alg, eps), sub in df.groupby(["role", "algorithm", "epsilon"], sort=True):
        exact = sub[sub.audit.isin(["exact_selection", "whole_sequence"])]
        stat = sub[sub.audit == "statistical"]
        loss_exact = float(exact.loss.max()) if len(exact) else np.nan
        bound_sel = float(exact.bound_selection.max()) if len(exact) else np.nan
        worst = exact.loc[exact.loss.idxmax()] if len(exact) else None
        stat_low = float(stat.loss_lower.max()) if len(stat) else np.nan
        stat_up = float(stat.loss_upper.max()) if len(stat) else np.nan
        violation = bool(sub.violation.any())
        within_sel = bool(np.isnan(loss_exact) or loss_exact <= bound_sel + TOL)
        if role == "private":
            verdict = PASS if (not violation and within_sel) else FAIL
        else:
            caught = bool(exact.violation.any())
            verdict = "caught" if caught else "NOT caught"
        rows.append(
            {
                "role": role,
                "algorithm": alg,
                "epsilon": float(eps),
                "loss_exact": loss_exact,
                "bound_selection": bound_sel,
                "ratio_eps": loss_exact / float(eps),
                "stat_lower": stat_low,
                "stat_upper": stat_up,
                "violation": violation,
                "verdict": verdict,
                "worst_audit": None if worst is None else worst.audit,
                "worst_K": None if worst is None else int(worst.K),
                "worst_block": None if worst is None or pd.isna(worst.block) else int(worst.block),
                "witness": None if worst is None else str(worst.witness),
            }
        )
    return pd.DataFrame(rows)


def check_c1(df: pd.DataFrame, inputs=(), algorithm: str = "rps") -> dict:
    """C1 from the privacy audit table (see the module docstring); with a negative control as
    ``algorithm``, the claim on that control alone."""
    if algorithm != "rps":
        return check_control(df, algorithm, inputs)
    if df.empty:
        return no_data(
            HEAD,
            "No privacy audit in the input.",
            inputs,
        )
    cells = c1_cells(df)
    private = cells[cells.role == "private"]
    controls = cells[cells.role == "negative_control"]
    own = private[private.algorithm == "rps"]
    others = private[private.algorithm != "rps"]
    own_ok = bool((own.verdict == PASS).all()) and len(own) > 0
    caught = bool((controls.verdict == "caught").all()) and len(controls) > 0
    verdict = PASS if (own_ok and caught) else FAIL
    stat = float(own.ratio_eps.max()) if len(own) else float("nan")
    n_bad = int((own.verdict != PASS).sum())
    n_missed = int((controls.verdict != "caught").sum())
    failing = others[others.verdict != PASS].groupby("algorithm", sort=True).size()
    summary = (
        f"Largest privacy loss found for rps over {own.epsilon.nunique()} values of eps is "
        f"{stat:.6f} x eps"
        + (
            f"; over the {others.algorithm.nunique()} other private algorithms "
            f"{float(others.ratio_eps.max()):.6f} x eps"
            if len(others)
            else ""
        )
        + f" ({n_bad} rps cells over their bound); the negative controls were caught "
        f"in {len(controls) - n_missed}/{len(controls)} (algorithm, eps) cells."
        + (
            " Failing their own privacy audit (their failure, not Proposition 1's): "
            + ", ".join(f"{a} ({n} cells)" for a, n in failing.items())
            + "."
            if len(failing)
            else ""
        )
    )
    return make_check(
        HEAD,
        stat,
        None,
        None,
        verdict,
        summary,
        cells.to_dict(orient="records"),
        inputs,
    )


def check_control(df: pd.DataFrame, control: str, inputs=()) -> dict:
    """The record of one negative control: "ε-DP" checked on it alone; FAIL (the purpose
    served) when some exact audit exhibits a pair with loss > eps in one of its cells."""
    head = Heading(CLAIM, f"{control} is eps-DP", STATISTIC_LABEL, THRESHOLD)
    cells = c1_cells(df) if not df.empty else pd.DataFrame()
    mine = cells[cells.algorithm == control] if len(cells) else cells
    if mine.empty:
        return no_data(head, f"No audit of {control} in the input.", inputs, control)
    caught = mine.verdict == "caught"
    verdict = FAIL if caught.any() else PASS
    stat = float(mine.ratio_eps.max())
    summary = (
        f"The exact audits find a privacy loss of {stat:.6f} x eps for {control}; it exceeds "
        f"eps in {int(caught.sum())}/{len(mine)} values of eps."
    )
    return make_check(
        head, stat, None, None, verdict, summary, mine.to_dict(orient="records"), inputs, control
    )


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C1 check: :func:`check_c1` on the privacy audit table (no thresholds);
    with a control as ``algorithm``, that control's record."""
    return check_c1(stack(tables, RECORD.experiments), inputs=inputs, algorithm=algorithm)
