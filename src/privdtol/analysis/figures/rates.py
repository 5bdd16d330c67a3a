"""The figure of ``notebooks/rates.py``: regret against 1/gap and 1/ε.
It shows Corollary 1's rate, linear in 1/Δ_min and in 1/ε (the diagnostics C4a, C4b)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="rates",
    order=20,
    appendix=True,
    experiments=("gap", "epsilon"),
    tables=("rates",),
    title="Rates in the gap and in the privacy level",
    caption=(
        r"Final-horizon regret against $1/\Delta_{\min}$ and $1/\varepsilon$ (log--log), with "
        r"a slope-1 guide, the fit window shaded and the $\eta$-cap knee at "
        r"$\varepsilon = 1/4$; ringed (if any): RPS cells still rising at $T_{\max}$, which "
        r"the exponent fits of C4a and C4b leave out. Each panel gives the local slope of the "
        r"last three points and the diagnostic's whole-curve exponent (\S\ref{sec:rates})."
    ),
    plain_title="regret against 1/gap and 1/ε",
    plain_caption=(
        "Left: statistical regime (ε ≥ 1, η = 1/8), regret against 1/gap. Right: privacy "
        "regime (gap = 1/2), regret against 1/ε. Log-log axes, 95% bands; the black line is "
        "RPS's weighted log-log fit over the three largest x values (its local slope, in the "
        "panel with the whole-curve exponent of the diagnostics C4a and C4b, which hold the "
        "other term at its fitted value and see the bend before the asymptote)."
    ),
)
