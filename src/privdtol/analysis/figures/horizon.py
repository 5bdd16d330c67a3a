"""The figure of ``notebooks/horizon.py``: regret against the horizon T.
It shows Theorem 1, eq. (1), holds for every horizon T: the regret is horizon-free (claim C3)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="horizon",
    order=10,
    appendix=False,
    experiments=("horizon",),
    tables=("horizon",),
    title="Horizon-freeness",
    caption=(
        r"Mean regret against the horizon $T$ (log scale, 95\% intervals); the black line is "
        r"the Theorem~1 bound of the panel, the shaded window the horizons of the C3 check "
        r"($T_0$ to $T_{\max}$)."
    ),
    plain_title="regret against the horizon T",
    plain_caption=(
        "Mean regret of every algorithm against T (log-log axes, 95% confidence bands), one "
        "panel per (K, gap, ε) cell of the ``horizon`` experiment. The paper's algorithm "
        "(RPS) flattens: its regret does not grow with T (claim C3, ``checks/C3.json``)."
    ),
)
