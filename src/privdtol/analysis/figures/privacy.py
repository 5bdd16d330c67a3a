"""The figure of ``notebooks/privacy.py``: privacy audit (claim C1).
It shows ε-DP (Proposition 1; each selection 2η-DP, Lemma 3; claim C1)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="privacy",
    order=90,
    appendix=False,
    experiments=("privacy",),
    tables=("privacy",),
    title="Privacy",
    caption=(
        r"Largest privacy loss found against $\varepsilon$, with the bounds $2\eta$ and "
        r"$\varepsilon$ as lines; negative controls included."
    ),
    plain_title="privacy audit (claim C1)",
    plain_caption=(
        "The largest privacy loss found by the exact per-selection audit, the whole-sequence "
        "enumeration and the statistical (Clopper-Pearson) audit, against the per-selection "
        "bound 2·η (Lemma 3) and against ε, for every private algorithm and the two negative "
        "controls (which must be caught violating ε-DP)."
    ),
)
