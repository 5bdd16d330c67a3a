"""The figure of ``notebooks/proof.py``: the proof, step by step.
It shows the proof of Theorem 1 step by step: Lemma 4 and Lemma 5, eqs. (5) and (6)
(Section 5; claims L4, L5, L5a, L5b)."""

from __future__ import annotations

from privdtol.analysis.claim_types import Figure
from privdtol.analysis.claims import lemmas

FIGURE = Figure(
    name="proof",
    order=110,
    appendix=False,
    experiments=("proof",),
    tables=("proof",),
    title="The proof, step by step",
    caption=(
        r"Left: per RPS cell and step of the proof of Theorem~1, the factor by which the "
        r"step's bound exceeds its exact value (1: tight; bold: Lemma~4, eqs.~(5) and (6), "
        r"Lemma~5, Theorem~1; the steps after eq.~(5) and eq.~(6) are their factors); "
        r"bars: medians. Right: exact left side over bound of each checked inequality ("
        + ", ".join(c.id for c in lemmas.RECORDS if c.notebook == "proof")
        + r"), RPS (dots) and negative controls (crosses); dashed: the bound; hollow "
        r"triangles on the dotted line at $10^{-4}$: a left side of 0 (or a ratio below "
        r"$10^{-4}$), which the log axis cannot show."
    ),
    plain_title="the proof, step by step",
    plain_caption=(
        "Left: per RPS cell, the factor by which each step of the proof of Theorem 1 (Lemma "
        "4, eqs. (5) and (6) of Lemma 5, and their sub-steps) exceeds its exact value, "
        "computed by the exact engine. Right: exact left side over bound of Lemma 4, Lemma 5, "
        "eq. (5) and eq. (6) (claims L4, L5, L5a, L5b), RPS and the negative controls."
    ),
)
