"""The figure of ``notebooks/bounds.py``: regret between Theorem 1 and the explicit lower bound.
It shows Theorem 1, eqs. (1) and (2) (claims C2, C2b), beside the explicit lower bound LB_T."""

from __future__ import annotations

from privdtol.analysis.claim_types import BOUNDS_TABLE, Figure

FIGURE = Figure(
    name="bounds",
    order=50,
    appendix=False,
    experiments=("horizon", "gap", "epsilon", "actions", "grid", BOUNDS_TABLE),
    tables=("bounds",),
    title="Theorem 1 over the whole grid",
    caption=(
        r"Measured regret against the Theorem~1 bound (left; every point must lie below the "
        r"diagonal) and against the explicit lower bound $\mathrm{LB}_T$ that every "
        r"$\varepsilon$-DP algorithm must meet (right, standard-instance cells; every point "
        r"must lie above it), one point per distinct RPS cell at its largest horizon."
    ),
    plain_title="regret between Theorem 1 and the explicit lower bound",
    plain_caption=(
        "Left: RPS regret (95% CI bars) against 1 + 800 log K/gap + 16 log K/η; every point "
        "must lie below the diagonal (claim C2; eq. (2), 1000 (log K/gap + log K/ε), is claim "
        "C2b, in the table). Right: against LB_T, the explicit lower bound every ε-DP "
        "algorithm must meet on the standard instance (Fano, group privacy and a two-point "
        "term; claim C6); every point must lie above the diagonal. One point per distinct RPS "
        "cell at its largest horizon."
    ),
)
