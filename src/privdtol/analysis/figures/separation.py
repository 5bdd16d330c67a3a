"""The figure of ``notebooks/separation.py``: the separation from the prior bounds.
It shows the prior bounds' extra factors, log T (Hu et al.) and log K (Wu & Wang), of
Section 2 (the cited claims H1, W1)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="separation",
    order=140,
    appendix=True,
    experiments=("separation",),
    tables=("separation",),
    title="The separation from the prior bounds",
    caption=(
        r"Regret over the paper's rate $\log K/\Delta_{\min} + \log K/\varepsilon$ in the "
        r"privacy regime (experiment \texttt{separation}, exact engine): (a) along the "
        r"horizon $T$ at the largest $K$ and smallest $\varepsilon$, (b) along $K$, (c) along "
        r"$1/\varepsilon$. Dotted: the shape of the algorithm's own prior bound (Hu et al.'s "
        r"$\log K \log T/\varepsilon$ in (a), Wu \& Wang's $\log^2 K/\varepsilon$ in (b) and "
        r"(c)) through one of the algorithm's points (in (a) the one nearest "
        r"$T_{\max}^{3/4}$, past the rise; else the first); a curve along it would show the "
        r"bound's extra factor."
    ),
    plain_title="the separation from the prior bounds",
    plain_caption=(
        "Regret over the paper's rate log K/Δ_min + log K/ε in the privacy regime (experiment "
        "`separation`, exact engine): (a) along the horizon T at the largest K and smallest "
        "ε, (b) along K, (c) along 1/ε. Dotted: the shape of the algorithm's own prior bound "
        "(Hu et al.'s log K log T/ε in (a), Wu & Wang's log² K/ε in (b) and (c)) through one "
        "of the algorithm's points (in (a) the one nearest T_max^(3/4), past the rise; else "
        "the first); a curve along it would show the bound's extra factor."
    ),
)
