"""The figure of ``notebooks/heatmap.py``: C4's residuals.
It shows Corollary 1's rate Θ(log K/Δ_min + log K/ε) over the whole grid (claim C4)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="heatmap",
    order=40,
    appendix=False,
    experiments=("grid",),
    tables=("heatmap",),
    title="The rate over the whole grid",
    caption=(
        r"What C4 tests: RPS regret over the form $a\log K/\Delta_{\min} + b\log K/\eta + c$ "
        r"fitted once to the whole grid (the fit in the title), per cell; the colour scale "
        r"spans C4's band $[1/f, f]$, $f$ = \texttt{rate\_form\_factor}."
    ),
    plain_title="C4's residuals",
    plain_caption=(
        "RPS regret over the form a log K/gap + b log K/η + c fitted once to the whole grid "
        "(claim C4), per (gap, ε) cell, one panel per K; the colour scale spans C4's band "
        "[1/f, f], f = rate_form_factor. The table adds the range of regret / (log K/gap + "
        "log K/ε)."
    ),
)
