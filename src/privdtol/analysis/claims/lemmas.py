"""Claims L4, L5, L5a, L5b: the steps of the proof of Theorem 1 (Cesari & Colomboni, Lemmas 4
and 5, Sections 5.3-5.4), checked on the exact proof terms of every rps cell of the regret
experiments (``results/agg/proof.parquet``, :mod:`privdtol.pipeline.proof`).

- L4 (Lemma 4): Reg_T <= 1 + 4 sum_(m>=1) F_m for every T: the left side is lim_T Reg_T where
  the engine's block loop converged (random prefix), else Reg_T at the cell's horizon;
- L5 (Lemma 5): sum_(m>=1) F_m <= 200 log K/Delta_min + 4 log K/eta;
- L5a (eq. (5)): the small-gap part (Delta_j <= 4 eta) <= 200 log K/Delta_min;
- L5b (eq. (6)): the large-gap part (Delta_j > 4 eta) <= 4 log K/eta.

The values are exact, with a numerical error bound and no sampling error: a cell PASSes when
its left side plus its error bound is at most its right side minus the right side's error
bound, FAILs when its left side minus its error bound exceeds the right side plus its error
bound, and is INCONCLUSIVE in between (the shared rule of :mod:`privdtol.analysis.verdict`
applied to the interval [lhs - err, lhs + err] / [rhs + err', rhs - err']).  ``eta`` in every
bound is the paper's min(eps/2, 1/8), also for a control with another temperature.

Negative controls (each check must FAIL on its control's own exact terms):

- L4: ``rps_short_prefix``, whose prefix ceil(2^(2r/3)) does not range over the second half of
  the block, which Lemma 4's factor 4 relies on;
- L5, L5a, L5b: ``rps_uniform_mix``, an eps-DP RPS whose selection is
  (1 - 1/16) softmax + (1/16) uniform: its F_m = (15/16) F_m^softmax + (1/16) sum_j Delta_j/K
  does not vanish, so sum_m F_m and each half of the split (3) that has an action diverge;
  the engine reports a certified lower value of each (the uniform term summed up to
  m = 2^40 - 1, :mod:`privdtol.engine.exact.proof`), which exceeds its bound by orders of
  magnitude.  A half with no action (no Delta_j <= 4 eta, or none > 4 eta) is 0 and PASSes
  on that cell; the check FAILs on the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from privdtol.analysis.cells import cell_label
from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import combine_verdicts, upper_verdict

#: Lemma 4, Lemma 5 and the two halves of Lemma 5's proof (Section 5.3-5.4), verbatim
LEMMA4 = (
    "Lemma 4 (Clock reduction with explicit constant). For every horizon T >= 1, "
    "Reg_T <= 1 + 4 sum_(m>=1) F_m. [F_m = E[sum_(j=1)^K Delta_j P_(m,j)], P_(m,j) the softmax "
    "weights after m i.i.d. loss vectors.]"
)
LEMMA5 = (
    "Lemma 5 (Cumulative softmax-error bound with explicit constants). For eta <= 1/8, "
    "sum_(m>=1) F_m <= 200 log K/Delta_min + 4 log K/eta."
)
EQ5 = (
    "sum_(m>=1) E[sum_(j in {2,...,K}, Delta_j <= 4 eta) Delta_j P_(m,j)] [...] "
    "<= (64 log(K+1) + 36)/Delta_min <= 200 log K/Delta_min, (5)"
)
EQ6 = (
    "sum_(m>=1) E[sum_(j in {2,...,K}, Delta_j > 4 eta) Delta_j P_(m,j)] <= 4 log K/eta. (6) "
    "[through sum_(m>=1) E[...] <= sum_(m>=0) E[V_m] and E[log Z_(m+1)] - E[log Z_m] <= "
    "-(eta/4) E[V_m].]"
)

L4 = Claim(
    "L4",
    "Lemma 4: Reg_T ≤ 1 + 4 Σ_m F_m (the clock reduction)",
    "Lemma 4 (Section 5.3)",
    LEMMA4,
    "largest exact Reg / (1 + 4 sum_m F_m) over the rps cells (numerical error bounds)",
    ("proof",),
    (),
    f"{__name__}:check_lemma4",
    "proof",
    ("rps_short_prefix",),
    identity=(
        "on the exact engine Lemma 4's slack at the regret's limit is 1 - E[gap of A_0] + 2 F_1 "
        ">= 0, an identity of the block accounting: it cannot fail for rps, and checks that the "
        "reduction is implemented (its control, another prefix rule, does fail)"
    ),
    tex=ClaimTeX(
        r"Lemma 4: $\mathrm{Reg}_T \le 1 + 4 \sum_m F_m$ (the clock reduction)",
        r"Lemma 4 (Clock reduction with explicit constant). For every horizon $T \ge 1$, "
        r"$\mathrm{Reg}_T \le 1 + 4 \sum_{m \ge 1} F_m$. [$F_m = \mathbb{E}[\sum_{j=1}^K "
        r"\Delta_j P_{m,j}]$, $P_{m,j}$ the softmax weights after $m$ i.i.d. loss vectors.]",
        r"largest exact $\mathrm{Reg}/(1 + 4 \sum_m F_m)$ over the rps cells (numerical error "
        r"bounds)",
    ),
)
L5 = Claim(
    "L5",
    "Lemma 5: Σ_m F_m ≤ 200 log K/Δ + 4 log K/η",
    "Lemma 5 (Section 5.4)",
    LEMMA5,
    "largest exact sum_m F_m / (200 log K/Delta_min + 4 log K/eta) over the rps cells",
    ("proof",),
    (),
    f"{__name__}:check_lemma5",
    "proof",
    ("rps_uniform_mix",),
    implied_by=("L5a", "L5b"),
    tex=ClaimTeX(
        r"Lemma 5: $\sum_m F_m \le 200 \log K/\Delta_{\min} + 4 \log K/\eta$",
        r"Lemma 5 (Cumulative softmax-error bound with explicit constants). For "
        r"$\eta \le 1/8$, $\sum_{m \ge 1} F_m \le 200 \log K/\Delta_{\min} + 4 \log K/\eta$.",
        r"largest exact $\sum_m F_m / (200 \log K/\Delta_{\min} + 4 \log K/\eta)$ over the "
        r"rps cells",
    ),
)
L5A = Claim(
    "L5a",
    "Small-gap half of Lemma 5: eq. (5)",
    "Proof of Lemma 5, eq. (5) (Section 5.4)",
    EQ5,
    "largest exact small-gap part / (200 log K/Delta_min) over the rps cells",
    ("proof",),
    (),
    f"{__name__}:check_eq5",
    "proof",
    ("rps_uniform_mix",),
    tex=ClaimTeX(
        r"Small-gap half of Lemma 5: eq.~(5)",
        r"$\sum_{m \ge 1} \mathbb{E}[\sum_{j \in \{2,\dots,K\}, \Delta_j \le 4\eta} "
        r"\Delta_j P_{m,j}] [\dots] \le (64 \log(K+1) + 36)/\Delta_{\min} \le "
        r"200 \log K/\Delta_{\min}$, (5)",
        r"largest exact small-gap part $/(200 \log K/\Delta_{\min})$ over the rps cells",
    ),
)
L5B = Claim(
    "L5b",
    "Large-gap half of Lemma 5: eq. (6)",
    "Proof of Lemma 5, eq. (6) (Section 5.4)",
    EQ6,
    "largest exact large-gap part / (4 log K/eta) over the rps cells",
    ("proof",),
    (),
    f"{__name__}:check_eq6",
    "proof",
    ("rps_uniform_mix",),
    tex=ClaimTeX(
        r"Large-gap half of Lemma 5: eq.~(6)",
        r"$\sum_{m \ge 1} \mathbb{E}[\sum_{j \in \{2,\dots,K\}, \Delta_j > 4\eta} "
        r"\Delta_j P_{m,j}] \le 4 \log K/\eta$. (6) [through $\sum_{m \ge 1} \mathbb{E}[\dots] "
        r"\le \sum_{m \ge 0} \mathbb{E}[V_m]$ and $\mathbb{E}[\log Z_{m+1}] - "
        r"\mathbb{E}[\log Z_m] \le -(\eta/4) \mathbb{E}[V_m]$.]",
        r"largest exact large-gap part $/(4 \log K/\eta)$ over the rps cells",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (L4, L5, L5A, L5B)


class Step(NamedTuple):
    """One inequality of the proof: its claim id, words, and how its sides are read from a
    row of the proof table (``lhs(row) -> (value, error)``, ``rhs(row) -> (value, error)``)."""

    claim: str
    title: str
    label: str
    threshold: str
    lhs: object
    rhs: object


def _num(row, key):
    v = row.get(key)
    return np.nan if v is None or pd.isna(v) else float(v)


def _lemma4_lhs(row):
    """lim_T Reg_T where known (random prefix, converged), else Reg_T at the horizon."""
    lim = _num(row, "regret_limit")
    if np.isfinite(lim):
        return lim, _num(row, "regret_limit_err")
    return _num(row, "regret"), _num(row, "regret_err")


STEPS = {
    s.claim: s
    for s in (
        Step(
            L4.id,
            "Lemma 4: Reg_T <= 1 + 4 sum_m F_m",
            "max over cells of Reg / (1 + 4 sum_m F_m)",
            "exact Reg + error <= 1 + 4 sum_m F_m - error in every cell",
            _lemma4_lhs,
            lambda r: (_num(r, "bound_lemma4"), 4 * _num(r, "sum_F_err")),
        ),
        Step(
            L5.id,
            "Lemma 5: sum_m F_m <= 200 log K/gap + 4 log K/eta",
            "max over cells of sum_m F_m / (200 log K/gap + 4 log K/eta)",
            "exact sum_m F_m + error <= the bound in every cell",
            lambda r: (_num(r, "sum_F"), _num(r, "sum_F_err")),
            lambda r: (_num(r, "bound_lemma5"), 0.0),
        ),
        Step(
            L5A.id,
            "eq. (5): small-gap part <= 200 log K/gap",
            "max over cells of the small-gap part / (200 log K/gap)",
            "exact small-gap part + error <= 200 log K/gap in every cell",
            lambda r: (_num(r, "small_gap"), _num(r, "small_gap_err")),
            lambda r: (_num(r, "bound_eq5"), 0.0),
        ),
        Step(
            L5B.id,
            "eq. (6): large-gap part <= 4 log K/eta",
            "max over cells of the large-gap part / (4 log K/eta)",
            "exact large-gap part + error <= 4 log K/eta in every cell",
            lambda r: (_num(r, "large_gap"), _num(r, "large_gap_err")),
            lambda r: (_num(r, "bound_eq6"), 0.0),
        ),
    )
}


def step_table(df: pd.DataFrame, claim: str) -> pd.DataFrame:
    """Per row of the proof table: the step's left and right sides with their errors, the
    ratio lhs/rhs and its limits, and the cell's verdict."""
    step = STEPS[claim]
    rows = []
    for _, r in df.iterrows():
        lv, le = step.lhs(r)
        rv, re = step.rhs(r)
        low = (lv - le) / (rv + re) if rv + re > 0 else np.nan
        high = (lv + le) / (rv - re) if rv - re > 0 else np.inf
        ratio = lv / rv if rv > 0 else np.nan
        rows.append(
            {
                "lhs": lv,
                "lhs_err": le,
                "rhs": rv,
                "rhs_err": re,
                "ratio": ratio,
                "ratio_low": low,
                "ratio_high": high,
                "verdict": upper_verdict(low, high, 1.0),
            }
        )
    return pd.concat([df.reset_index(drop=True), pd.DataFrame(rows)], axis=1)


def check_step(df: pd.DataFrame, claim: str, algorithm: str = "rps", inputs=()) -> dict:
    """The check record of one step on the proof rows of ``algorithm`` (every experiment;
    a cell shared by two experiments counted once)."""
    step = STEPS[claim]
    head = Heading(claim, step.title, step.label, step.threshold)
    rows = df[df["algorithm"] == algorithm].drop_duplicates("cell_id") if len(df) else df
    if rows.empty:
        return no_data(head, f"No exact {algorithm} cells with proof terms.", inputs, algorithm)
    tab = step_table(rows, claim)
    verdict = combine_verdicts(tab["verdict"])
    cells = [
        {
            **cell_label(r, ("experiment", "K", "gap", "epsilon", "eta", "eta_selection")),
            "lhs": r["lhs"],
            "lhs_err": r["lhs_err"],
            "rhs": r["rhs"],
            "ratio": r["ratio"],
            "ratio_high": r["ratio_high"],
            "verdict": r["verdict"],
        }
        for _, r in tab.sort_values("ratio", ascending=False, kind="stable").iterrows()
    ]
    i = tab["ratio"].idxmax()
    n_fail = int((tab["verdict"] == "FAIL").sum())
    summary = (
        f"Over {len(tab)} exact {algorithm} cells the largest exact left side / bound is "
        f"{fmt(tab.at[i, 'ratio'], 4)} (K={fmt(tab.at[i, 'K'])}, gap={fmt(tab.at[i, 'gap'])}, "
        f"eps={fmt(tab.at[i, 'epsilon'])}); the smallest is {fmt(tab['ratio'].min(), 4)}; "
        f"{n_fail} cells exceed the bound beyond their numerical error bounds; the largest "
        f"relative error bound is {fmt((tab['lhs_err'] / tab['lhs'].abs()).max(), 2)}."
    )
    stat = [tab["ratio"].max(), tab["ratio_low"].max(), tab["ratio_high"].max()]
    return make_check(head, *stat, verdict, summary, cells, inputs, algorithm)


def _check(claim):
    def check(
        tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs, algorithm: str = "rps"
    ) -> dict:
        return check_step(tables.get("proof", pd.DataFrame()), claim, algorithm, inputs)

    check.__doc__ = f"The registry's {claim} check: :func:`check_step` on the proof table."
    return check


check_lemma4 = _check(L4.id)
check_lemma5 = _check(L5.id)
check_eq5 = _check(L5A.id)
check_eq6 = _check(L5B.id)
