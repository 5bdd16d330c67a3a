"""The figure of ``notebooks/actions.py``: regret against K.
It shows Corollary 1's rate, linear in log K, not log² K as in Wu & Wang's bound (the
diagnostic C4c)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="actions",
    order=30,
    appendix=True,
    experiments=("actions",),
    tables=("actions",),
    title="Dependence on the number of actions",
    caption=(
        r"Final-horizon regret against $\log K$; ringed (if any): RPS cells still rising at "
        r"$T_{\max}$, which the exponent fits of C4c leave out."
    ),
    plain_title="regret against K",
    plain_caption=(
        "Regret against the number of actions in the privacy regime (ε < gap) and the "
        "statistical regime (ε > gap), 95% bands, with RPS's weighted fits a·log K + b "
        "(dashed) and a·log² K + b (dotted). Claim C4d compares the two fits in the privacy "
        "regime, where the paper's log K/ε improves on Wu & Wang's log² K/ε."
    ),
)
