"""The figure of ``notebooks/lower.py``: the lower side of Corollary 1.
It shows the lower side of Corollary 1, with Hu et al. (2021) (claims C6, C7)."""

from __future__ import annotations

from privdtol.analysis.cells import REGIMES_DEFINED
from privdtol.analysis.claim_types import BOUNDS_TABLE, LOWER_EXPERIMENTS, Figure

FIGURE = Figure(
    name="lower",
    order=60,
    appendix=False,
    experiments=(*LOWER_EXPERIMENTS, BOUNDS_TABLE),
    tables=("lower",),
    title="The lower side of Corollary 1",
    caption=(
        r"Each algorithm's regret over the explicit lower bound $\mathrm{LB}_T$ that every "
        r"$\varepsilon$-DP algorithm must meet (round by round the best of Fano's "
        r"inequality, group privacy under a coupling and a two-point term, "
        r"\texttt{privdtol lower-bound}), one point per standard-instance cell at its largest "
        r"horizon, against $\mathrm{LB}_T$ itself, one panel per regime present ("
        + REGIMES_DEFINED
        + r"). Filled: private algorithms, which must lie above the dashed line; hollow: "
        r"non-private ones, held against the bound at the $\varepsilon$ of their experiment."
    ),
    plain_title="the lower side of Corollary 1",
    plain_caption=(
        "Each algorithm's regret over LB_T, the explicit lower bound every ε-DP algorithm "
        "must meet on the standard instance (`privdtol lower-bound`), one point per "
        "standard-instance cell at its largest horizon, against LB_T, in the statistical "
        "regime (ε > gap, left) and the privacy regime (right). Filled: private algorithms, "
        "which must lie above the dashed line (claim C6); hollow: non-private ones, held "
        "against the bound at the ε of their experiment. RPS's ratio must show no upward "
        "trend over the grid (claim C7)."
    ),
)
