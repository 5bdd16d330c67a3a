"""Claim W1, of the cited work (Wu & Wang, ALT 2026), not of this paper: their
Bernoulli-resampling private FTNL has Reg_T = O(log K/Δ_min + log² K/ε), as Cesari & Colomboni's
Section 2 quotes it.  Both noise forms are checked together (``wu_wang``, Laplace, and
``wu_wang_gumbel``, Gumbel; the bound is claimed of each, so the largest ratio over them is
held to it).  The paper's text gives no constant: the check is that Reg_T over log K/Δ_min +
log² K/ε stays bounded over the grid and the separation experiment
(:mod:`privdtol.analysis.prior_bounds`, the rule C7 applies to Reg_T/LB_T).  Negative control:
``rps_uniform_mix`` (regret linear in T).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.prior_bounds import EXPERIMENTS, THRESHOLDS, check_prior_bound

#: the bound's shape (:func:`privdtol.analysis.separation.shapes`) in words
SHAPE_WORDS = "log K/gap + log^2 K/eps"

RECORD = Claim(
    "W1",
    "Wu & Wang's bound: Reg_T/(log K/Delta_min + log^2 K/eps) of their algorithm bounded",
    "Section 2 (related work), of Wu & Wang 2026",
    "They removed the horizon dependence in the stochastic upper bound and obtained "
    "O(log K/Delta_min + log^2 K/eps)",
    "largest Reg_T/(log K/Delta_min + log^2 K/eps) over every cell and checkpoint of both noise "
    "forms (level), and the growth of its envelope along log K, 1/Delta_min, 1/eps and T",
    EXPERIMENTS,
    THRESHOLDS,
    f"{__name__}:check",
    "separation",
    ("rps_uniform_mix",),
    cited="wu2026",
    subject="wu_wang",
    tex=ClaimTeX(
        r"Wu \& Wang's bound: $\mathrm{Reg}_T/(\log K/\Delta_{\min} + \log^2 K/\varepsilon)$ of "
        r"their algorithm bounded",
        r"They removed the horizon dependence in the stochastic upper bound and obtained "
        r"$O(\log K/\Delta_{\min} + \log^{2} K/\varepsilon)$",
        r"largest $\mathrm{Reg}_T/(\log K/\Delta_{\min} + \log^2 K/\varepsilon)$ over every cell "
        r"and checkpoint of both noise forms (level), and the growth of its envelope along "
        r"$\log K$, $1/\Delta_{\min}$, $1/\varepsilon$ and $T$",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)


def check(
    tables: Mapping[str, pd.DataFrame],
    thresholds: dict,
    inputs: list[str],
    algorithm: str = RECORD.subject,
) -> dict:
    """The registry's W1 check (module docstring)."""
    return check_prior_bound(
        tables,
        thresholds,
        inputs,
        algorithm,
        claim=RECORD.id,
        shape="wu_wang",
        shape_words=SHAPE_WORDS,
    )
