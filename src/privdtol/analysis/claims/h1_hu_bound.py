"""Claim H1, of the cited work (Hu, Huang, Mehta, Hegde 2021), not of this paper: RNM-FTNL
(``rnm_ftnl``, dyadic epochs, Laplace report-noisy-min) has Reg_T = O(log K/Δ_min +
log K log T/ε), as Cesari & Colomboni's Section 2 states it ("their upper bound matches the
statistical term but can pay an additional log T factor in the privacy term").  The paper's
text gives no constant: the check is that Reg_T over log K/Δ_min + log K log T/ε stays bounded
over the grid and the separation experiment (:mod:`privdtol.analysis.prior_bounds`, the rule
C7 applies to Reg_T/LB_T).  Negative control: ``rps_uniform_mix`` (a uniform mixture of 1/16 in
every selection: regret linear in T).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.prior_bounds import EXPERIMENTS, THRESHOLDS, check_prior_bound

#: the bound's shape (:func:`privdtol.analysis.separation.shapes`) in words
SHAPE_WORDS = "log K/gap + log K log T/eps"

RECORD = Claim(
    "H1",
    "Hu et al.'s bound: Reg_T/(log K/Delta_min + log K log T/eps) of RNM-FTNL bounded",
    "Section 2 (related work), of Hu et al. 2021",
    "Their upper bound matches the statistical term but can pay an additional log T factor in "
    "the privacy term.",
    "largest Reg_T/(log K/Delta_min + log K log T/eps) over every cell and checkpoint (level), "
    "and the growth of its envelope along log K, 1/Delta_min, 1/eps and T",
    EXPERIMENTS,
    THRESHOLDS,
    f"{__name__}:check",
    "separation",
    ("rps_uniform_mix",),
    cited="hu2021",
    subject="rnm_ftnl",
    tex=ClaimTeX(
        r"Hu et al.'s bound: $\mathrm{Reg}_T/(\log K/\Delta_{\min} + \log K\log T/\varepsilon)$ "
        r"of RNM-FTNL bounded",
        r"Their upper bound matches the statistical term but can pay an additional $\log T$ "
        r"factor in the privacy term.",
        r"largest $\mathrm{Reg}_T/(\log K/\Delta_{\min} + \log K\log T/\varepsilon)$ over every "
        r"cell and checkpoint (level), and the growth of its envelope along $\log K$, "
        r"$1/\Delta_{\min}$, $1/\varepsilon$ and $T$",
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
    """The registry's H1 check (module docstring)."""
    return check_prior_bound(
        tables, thresholds, inputs, algorithm, claim=RECORD.id, shape="hu", shape_words=SHAPE_WORDS
    )
