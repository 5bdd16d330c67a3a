"""The figure of ``notebooks/worst.py``: the worst instance a search finds.
It shows Theorem 1's "every i.i.d. loss process" on the worst instances a search finds."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="worst",
    order=120,
    appendix=False,
    experiments=("searches",),
    tables=("worst",),
    title="The worst instance a search finds",
    caption=(
        r"(a) Per search, the most extreme value found over the standard instance's (for the "
        r"smallest $\mathrm{Reg}_T/\mathrm{LB}_T$, the inverse: right of the dashed line at 1 is "
        r"more extreme than the standard instance); hollow: the best of the unseen random "
        r"instances. (b) $\mathrm{Reg}_T/\mathrm{LB}_T$ from the smallest to the largest found, "
        r"the standard instance's marked. (c) The means of the instances found for RPS, best "
        r"action first; dashed: the standard instance."
    ),
    plain_title="the worst instance a search finds",
    plain_caption=(
        "(a) Per search (algorithm, K, ε), the most extreme value found over the standard "
        "instance's, for Reg_T over Theorem 1's bound and for the largest and smallest "
        "Reg_T/LB_T (the smallest inverted, so right of 1 is more extreme); hollow: the best "
        "unseen random instance. (b) Reg_T/LB_T from the smallest to the largest found, the "
        "standard instance marked. (c) The means of the instances found for RPS, best action "
        "first; dashed: the standard instance. The values are the most extreme found, not the "
        "extremes over instances."
    ),
)
