"""The figure of ``notebooks/floor.py``: the true floor.
It shows the true floor OPT_T beside LB_T, Corollary 1 with Hu et al. (2021) (the diagnostics
C8a, C8b)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="floor",
    order=130,
    appendix=True,
    experiments=("floor",),
    tables=("floor",),
    title="The true floor",
    caption=(
        r"At each horizon $T$ of the small instances where it is computable, the true floor "
        r"$\mathrm{OPT}_T$ (black: the best regret of any $\varepsilon$-DP algorithm, an exact "
        r"linear program, \texttt{privdtol optimal}) beside the explicit lower bound "
        r"$\mathrm{LB}_T$ (grey: its best term, dashed; its statistical, privacy and two-point "
        r"terms, dotted) and every registered private algorithm's exact regret; one panel per "
        r"cell (rows: $K$ and $\Delta$; columns: $\varepsilon$)."
    ),
    plain_title="the true floor",
    plain_caption=(
        "At each horizon T of the small instances where it is computable (K = 2, 3), the best "
        "regret any ε-DP algorithm can reach, OPT_T (black; an exact linear program, "
        "`privdtol optimal`), beside the explicit lower bound LB_T (dashed: its best term; "
        "dotted: its statistical, privacy and two-point terms) and every registered private "
        "algorithm's exact regret; one panel per cell (rows: K and gap; columns: ε). LB_T ≤ "
        "OPT_T ≤ Reg_T (diagnostics C8a and C8b)."
    ),
)
