"""The figure of ``notebooks/ablations.py``: ablations.
It shows what the random prefix (Section 4) and the cap η ≤ 1/8 cost; no claim of the paper."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="ablations",
    order=80,
    appendix=True,
    experiments=("ablations",),
    tables=("ablations",),
    title="Ablations",
    caption=(
        r"RPS against its ablations (whole-block prefix; $\eta = \varepsilon/2$ uncapped) "
        r"against $1/\varepsilon$."
    ),
    plain_title="ablations",
    plain_caption=(
        "Regret at the largest horizon against 1/ε (95% bands) of RPS, the full-prefix "
        "variant (exponential mechanism on the whole previous block) and the uncapped variant "
        "(η = ε/2 without the 1/8 cap, which differs from RPS only for ε > 1/4, left of the "
        "dotted line)."
    ),
)
