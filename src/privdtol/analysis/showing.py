"""What the report shows beside the verdicts: the findings (numbers that are not claims of the
paper, :data:`FINDINGS`) and the notebooks, one figure each (:data:`NOTEBOOKS`).  Imported
through :mod:`privdtol.analysis.registry`."""

from __future__ import annotations

from privdtol.analysis.claim_types import Finding, Notebook
from privdtol.analysis.claims_list import RATE_EXPERIMENTS

_F = "privdtol.analysis.findings"

#: findings (not claims of the paper; out of the verdict count), in report order
FINDINGS: dict[str, Finding] = {
    f.id: f
    for f in (
        Finding(
            "constants",
            "Fitted constants a, b of a log K/gap + b log K/eta + c against 800 and 16",
            ("grid",),
            f"{_F}:constants",
        ),
        Finding(
            "theta_band",
            "Range of Reg / (log K/min(gap, eps)) over the grid (the Theta band)",
            ("grid",),
            f"{_F}:theta_band",
        ),
        Finding(
            "prefix_cost",
            "Cost of the random prefix: rps / rps_full_prefix",
            ("ablations",),
            f"{_F}:prefix_cost",
        ),
        Finding(
            "cap_cost",
            "Cost of the eta cap: rps / rps_uncapped",
            ("ablations",),
            f"{_F}:cap_cost",
        ),
        Finding(
            "dependent_rate",
            "The rate's exponents on dependent losses (not a claim of the paper)",
            ("dependent",),
            f"{_F}:dependent_rate",
        ),
        Finding(
            "proof_slack",
            "Slack of each step of the proof: bound / exact value, per rps cell",
            ("proof",),
            "privdtol.analysis.slack:proof_slack",
        ),
        Finding(
            "worst_case",
            "The worst instances a search found, against the standard instance",
            ("searches",),
            "privdtol.analysis.worst:worst_case",
        ),
        Finding(
            "competitors",
            "rps against the best private competitor, per regime",
            RATE_EXPERIMENTS,
            f"{_F}:competitors",
        ),
    )
}

#: experiments read by the findings
FINDINGS_EXPERIMENTS = tuple(dict.fromkeys(e for f in FINDINGS.values() for e in f.experiments))


NOTEBOOKS: dict[str, Notebook] = {
    n.name: n
    for n in (
        Notebook("horizon", 1, ("horizon",), ("horizon",)),
        Notebook("rates", 2, ("gap", "epsilon"), ("rates",)),
        Notebook("actions", 3, ("actions",), ("actions",)),
        Notebook("heatmap", 4, ("grid",), ("heatmap",)),
        Notebook("bounds", 5, ("horizon", "gap", "epsilon", "actions", "grid"), ("bounds",)),
        Notebook("dependent", 6, ("dependent",), ("dependent",)),
        Notebook("ablations", 7, ("ablations",), ("ablations",)),
        Notebook("privacy", 8, ("privacy",), ("privacy",)),
        Notebook("agreement", 9, ("agreement",), ("agreement",)),
        Notebook("proof", 10, ("proof",), ("proof",)),
        Notebook("worst", 11, ("searches",), ("worst",)),
    )
}
