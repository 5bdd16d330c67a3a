"""The figure of ``notebooks/agreement.py``: the exact engine against the Monte Carlo engine.
It shows the exact and Monte Carlo engines' agreement on Reg_T (Section 3's definition; the
diagnostic C0)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure

FIGURE = Figure(
    name="agreement",
    order=100,
    appendix=True,
    experiments=("agreement",),
    tables=("agreement",),
    title="Engine agreement",
    caption=(
        r"Monte Carlo mean minus exact expected regret, in Monte Carlo standard errors, for "
        r"every cell computed both ways and every checkpoint horizon (open diamonds: the "
        r"explicit round-by-round simulator); dashed: the limit of C0; hollow (if any): pairs "
        r"C0 leaves out as rare events; pairs with s.e.~0 are compared by a bound instead "
        # the table exists only when a config runs the agreement experiment
        r"\ifcsname r@tab:agreement\endcsname(Table~\ref{tab:agreement}) \fi and not drawn."
    ),
    plain_title="the exact engine against the Monte Carlo engine",
    plain_caption=(
        "For every cell of the ``agreement`` experiment computed both ways and every "
        "checkpoint horizon T, the signed distance (Monte Carlo mean − exact value) / "
        "standard error against T; the dashed lines are the configured limit (claim C0). "
        "Pairs left out as rare events (too few runs expected near the largest possible "
        "regret for the standard error to be reliable) are drawn hollow."
    ),
)
