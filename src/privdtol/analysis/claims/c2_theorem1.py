"""Claims C2 (Theorem 1, eq. (1)) and C2b (eq. (2)): for every horizon T, the pseudo-regret of
RPS satisfies

    Reg_T <= 1 + 800 log K/Δ + 16 log K/η,   η = min(ε/2, 1/8)          (1)
    Reg_T <= 1000 (log K/Δ + log K/ε)                                   (2)

(:func:`privdtol.core.bounds.theorem1`, :func:`~privdtol.core.bounds.corollary`).  Tested in
every cell and at every checkpoint horizon of the experiments read (a cell shared by two
experiments, the same parameters, is one cell): a cell PASSes when the upper confidence limit
of its regret is below the bound at all its horizons, FAILs when the lower limit (Bonferroni
over the (cell, horizon) rows) is above it somewhere
(decision rule: :mod:`privdtol.analysis.verdict`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import CELL_COLUMNS, cell_label, dedupe_cells, select, stack
from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import (
    bonferroni_confidence,
    combine_verdicts,
    upper_verdict,
)
from privdtol.core import bounds

#: Theorem 1, eq. (1) (Cesari & Colomboni), verbatim with the mathematics in plain text
THEOREM1 = (
    "For every K >= 2, every eps > 0, every horizon T >= 1, and every i.i.d. loss process with "
    "marginal distribution supported on [0,1]^K with a unique best action, the "
    "randomized-prefix softmax algorithm is eps-differentially private and satisfies "
    "Reg_T <= 1 + 800 log K/Delta_min + 16 log K/eta, eta = min{eps/2, 1/8}. (1)"
)
#: Theorem 1's simplified form, verbatim
EQ2 = (
    "In particular, Reg_T <= 1000 (log K/Delta_min + log K/eps). (2) The constant 1000 is "
    "explicit and universal, but it is not optimized."
)
_THEOREM1_TEX = (
    r"For every $K \ge 2$, every $\varepsilon > 0$, every horizon $T \ge 1$, and every i.i.d. "
    r"loss process with marginal distribution supported on $[0,1]^K$ with a unique best action, "
    r"the randomized-prefix softmax algorithm is $\varepsilon$-differentially private and "
    r"satisfies $\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$, "
    r"$\eta = \min\{\varepsilon/2, 1/8\}$. (1)"
)

C2 = Claim(
    "C2",
    "Reg_T ≤ 1 + 800 log K/Δ + 16 log K/η for every T",
    "Theorem 1, eq. (1)",
    THEOREM1,
    "largest regret / bound over cells and checkpoint horizons (upper confidence limit)",
    ("horizon", "gap", "epsilon", "actions", "grid", "worst_case"),
    ("confidence",),
    f"{__name__}:check",
    "bounds",
    ("uniform",),
    implied_by=("L4", "L5"),
    tex=ClaimTeX(
        r"$\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$ for every $T$",
        _THEOREM1_TEX,
        r"largest regret/bound over cells and checkpoint horizons (upper confidence limit)",
    ),
)
C2B = Claim(
    "C2b",
    "Reg_T ≤ 1000 (log K/Δ + log K/ε) for every T",
    "Theorem 1, eq. (2)",
    EQ2,
    "largest regret / (1000 (log K/gap + log K/eps)) over cells and checkpoint horizons "
    "(upper confidence limit)",
    ("horizon", "gap", "epsilon", "actions", "grid", "worst_case"),
    ("confidence",),
    f"{__name__}:check_eq2",
    "bounds",
    ("uniform",),
    implied_by=("C2",),
    tex=ClaimTeX(
        r"$\mathrm{Reg}_T \le 1000 (\log K/\Delta_{\min} + \log K/\varepsilon)$ for every $T$",
        r"In particular, $\mathrm{Reg}_T \le 1000 (\log K/\Delta_{\min} + "
        r"\log K/\varepsilon)$. (2) The constant 1000 is explicit and universal, but it is not "
        r"optimized.",
        r"largest regret$/(1000 (\log K/\Delta_{\min} + \log K/\varepsilon))$ over cells and "
        r"checkpoint horizons (upper confidence limit)",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (C2, C2B)
CLAIM = C2.id


#: the two forms of Theorem 1's bound: eq. (1) and eq. (2)
BOUNDS = {
    "eq1": (bounds.theorem1, "Theorem 1: regret below 1 + 800 log K/gap + 16 log K/eta"),
    "eq2": (bounds.corollary, "Theorem 1, eq. (2): regret below 1000 (log K/gap + log K/eps)"),
}


def bound_table(df: pd.DataFrame, confidence: float, form: str = "eq1") -> pd.DataFrame:
    """Every (cell, horizon) with the bound of eq. (1) (``form="eq1"``) or eq. (2) and
    ``mean/bound`` with its upper limit (nominal ``confidence``) and its lower limit
    (Bonferroni over the rows)."""
    out = df.copy()
    out["bound"] = BOUNDS[form][0](out["K"], out["gap"], out["epsilon"])
    _, high = stats.normal_ci(out["mean"], out["se"], confidence)
    low, _ = stats.normal_ci(out["mean"], out["se"], bonferroni_confidence(confidence, len(out)))
    out["upper"], out["lower_adj"] = high, low
    out["ratio"] = out["mean"] / out["bound"]
    out["ratio_high"] = out["upper"] / out["bound"]
    out["ratio_low"] = out["lower_adj"] / out["bound"]
    return out


def check_theorem1(
    df: pd.DataFrame,
    confidence: float,
    algorithm: str = "rps",
    claim: str = CLAIM,
    inputs=(),
    note: str = "",
    form: str = "eq1",
) -> dict:
    """C2: the upper confidence limit of the regret is below ``1 + 800 log K/gap + 16 log K/eta``
    (``form="eq2"``, C2b: ``1000 (log K/gap + log K/eps)``) in every cell and at every
    checkpoint horizon (non-private algorithms, with no eps, are ignored)."""
    # a cell shared by two experiments (the same parameters) is one cell, counted once
    rows = dedupe_cells(select(df, algorithm))
    rows = rows[np.isfinite(rows["epsilon"])]
    title = BOUNDS[form][1]
    label = f"max over cells and horizons of regret / the bound of eq. ({form[-1]})"
    threshold = f"upper {confidence:.0%} limit of regret / bound <= 1 in every cell"
    head = Heading(claim, title, label, threshold)
    if rows.empty:
        return no_data(head, f"No {algorithm} cells in the input.", inputs, algorithm)
    tab = bound_table(rows, confidence, form)
    cells = []
    verdicts = []
    params = [c for c in CELL_COLUMNS if c in tab.columns]
    # per cell (in the sorted order of its parameters): the horizon of the largest upper limit
    by_cell = tab.groupby(params, dropna=False, sort=True)
    worst_rows = tab.loc[by_cell["ratio_high"].idxmax().to_numpy()].to_dict("records")
    for worst, low, high in zip(
        worst_rows, by_cell["ratio_low"].max(), by_cell["ratio_high"].max(), strict=True
    ):
        v = upper_verdict(low, high, 1.0)
        verdicts.append(v)
        cells.append(
            {
                **cell_label(worst),
                "horizon": worst["horizon"],
                "mean": worst["mean"],
                "upper": worst["upper"],
                "bound": worst["bound"],
                "ratio": worst["ratio"],
                "ratio_high": worst["ratio_high"],
                "verdict": v,
            }
        )
    verdict = combine_verdicts(verdicts)
    i = tab["ratio"].idxmax()
    summary = (
        f"Over {len(cells)} distinct {algorithm} cells and {len(tab)} (cell, horizon) pairs the "
        f"largest regret/bound ratio is {fmt(tab['ratio'].max())} (upper limit "
        f"{fmt(tab['ratio_high'].max())}), at K={fmt(tab.at[i, 'K'])}, "
        f"gap={fmt(tab.at[i, 'gap'])}, eps={fmt(tab.at[i, 'epsilon'])}." + note
    )
    stat = [tab[col].max() for col in ("ratio", "ratio_low", "ratio_high")]
    return make_check(head, *stat, verdict, summary, cells, inputs, algorithm)


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C2 check: :func:`check_theorem1` on the experiments' tables stacked."""
    return check_theorem1(
        stack(tables, C2.experiments),
        thresholds["confidence"],
        algorithm=algorithm,
        inputs=inputs,
    )


def check_eq2(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C2b check: :func:`check_theorem1` with the bound of eq. (2)."""
    return check_theorem1(
        stack(tables, C2B.experiments),
        thresholds["confidence"],
        algorithm=algorithm,
        claim="C2b",
        inputs=inputs,
        form="eq2",
    )
