"""The figure of ``notebooks/dependent.py``: dependent losses.
It shows Theorem 1 for dependent coordinates (Section 1, Contributions; claim C5)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="dependent",
    order=70,
    appendix=False,
    experiments=("dependent",),
    tables=("dependent",),
    title="Dependent coordinates",
    caption=(
        r"RPS regret on the comparison cells under independent, correlated (a shared shock, "
        r"comonotone for $\rho > 0$, the best action against the others for $\rho < 0$) and "
        r"Beta losses, and under losses repeated in blocks (crosses: C5's control, not "
        r"independent across time), at each model's largest horizon (top; legend) and over "
        r"Theorem~1's bound there (bottom; dashed: the bound)."
    ),
    plain_title="dependent losses",
    # reStructuredText: no |...| (a substitution reference)
    plain_caption=(
        "RPS regret per (gap, ε) comparison cell under independent Bernoulli, correlated "
        "Bernoulli (a shared shock with probability ρ, or −ρ where ρ < 0: the best action "
        "against the others) and Beta (concentration κ) losses, and under product-Bernoulli losses "
        "repeated in blocks (C5's control, not independent across time), 95% CI bars: top at "
        "each model's largest horizon (in the legend), bottom as the ratio to the Theorem 1 "
        "bound there (claim C5); dashed: the bound."
    ),
)
