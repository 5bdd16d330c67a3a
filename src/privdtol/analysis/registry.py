"""The claims registry: the one list of the paper's claims that the pipeline checks, and of the
notebooks that show them.  The check rules (``workflow/rules/checks.smk``), the notebook rules
(``workflow/rules/notebooks.smk``), the report's claim sections and the docs' claims table are
all generated from :data:`CLAIMS` and :data:`NOTEBOOKS`; nothing else lists claims.

A claim's check is a function ``check(tables, thresholds, inputs) -> dict`` where ``tables``
maps each experiment of :attr:`Claim.experiments` to its aggregated table (experiments absent
from the config are missing from the mapping), ``thresholds`` is the config's ``checks:`` block
(schema defaults filled; the schema is the only place defaults live) and ``inputs`` the files
read.  It returns a check record (:mod:`privdtol.analysis.records`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and how the pipeline tests it."""

    id: str
    #: short statement, as the verdict table shows it
    title: str
    #: where the paper states it
    source: str
    #: aggregated experiments (``results/agg/<name>.parquet``) the check reads
    experiments: tuple[str, ...]
    #: keys of the config's ``checks:`` block the check uses
    thresholds: tuple[str, ...]
    #: ``module:function`` of the check
    check: str
    #: the notebook (key of :data:`NOTEBOOKS`) whose figure shows the claim
    notebook: str

    def check_function(self) -> Callable[..., dict]:
        module, _, name = self.check.partition(":")
        return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Notebook:
    """A notebook of ``notebooks/``: one figure and its table(s); it plots and tabulates only."""

    name: str
    #: the figure's number in the report (and in the notebook's title)
    figure: int
    #: aggregated experiments read
    experiments: tuple[str, ...]
    #: tables written as data (``results/tables/<name>.csv``)
    tables: tuple[str, ...]


_C = "privdtol.analysis.claims"

CLAIMS: dict[str, Claim] = {
    c.id: c
    for c in (
        Claim(
            "C1",
            "Event-level pure ε-DP",
            "Proposition 1, Lemma 3",
            ("privacy",),
            (),
            f"{_C}.c1_privacy:check",
            "privacy",
        ),
        Claim(
            "C2",
            "Reg_T ≤ 1 + 800 log K/Δ + 16 log K/η for every T",
            "Theorem 1, eq. (1)",
            ("horizon", "gap", "epsilon", "actions", "grid"),
            ("confidence",),
            f"{_C}.c2_theorem1:check",
            "bounds",
        ),
        Claim(
            "C3",
            "The regret is horizon-free",
            "Theorem 1",
            ("horizon", "grid"),
            ("confidence", "horizon_free_ratio_max", "horizon_free_pair"),
            f"{_C}.c3_horizon_free:check",
            "horizon",
        ),
        Claim(
            "C4a",
            "Linear in 1/Δ in the statistical regime",
            "Corollary 1",
            ("gap",),
            ("confidence", "slope_range"),
            f"{_C}.c4_rate:check_gap",
            "rates",
        ),
        Claim(
            "C4b",
            "Linear in 1/ε in the privacy regime",
            "Corollary 1",
            ("epsilon",),
            ("confidence", "slope_range"),
            f"{_C}.c4_rate:check_epsilon",
            "rates",
        ),
        Claim(
            "C4c",
            "Regret / (log K/Δ + log K/ε) is flat",
            "Corollary 1",
            ("grid",),
            ("confidence", "ratio_slope_range"),
            f"{_C}.c4_rate:check_ratio",
            "heatmap",
        ),
        Claim(
            "C4d",
            "Linear in log K, not log² K",
            "Corollary 1",
            ("actions",),
            ("confidence",),
            f"{_C}.c4_rate:check_log_k",
            "actions",
        ),
        Claim(
            "C5",
            "The bound holds for dependent coordinates",
            "Section 3 (dependent losses)",
            ("dependent",),
            ("confidence", "slope_range"),
            f"{_C}.c5_dependent:check",
            "dependent",
        ),
        Claim(
            "constants",
            "Fitted constants of the rate",
            "Theorem 1, eq. (1)",
            ("horizon", "gap", "epsilon", "actions", "grid"),
            ("confidence",),
            f"{_C}.constants:check",
            "bounds",
        ),
    )
}

NOTEBOOKS: dict[str, Notebook] = {
    n.name: n
    for n in (
        Notebook("horizon", 1, ("horizon",), ("horizon",)),
        Notebook("rates", 2, ("gap", "epsilon"), ("rates",)),
        Notebook("actions", 3, ("actions",), ("actions",)),
        Notebook("heatmap", 4, ("grid",), ("heatmap",)),
        Notebook(
            "bounds", 5, ("horizon", "gap", "epsilon", "actions", "grid"), ("bounds", "constants")
        ),
        Notebook("dependent", 6, ("dependent",), ("dependent",)),
        Notebook("ablations", 7, ("ablations",), ("ablations",)),
        Notebook("privacy", 8, ("privacy",), ("privacy",)),
    )
}


def notebook_claims(name: str) -> list[str]:
    """The claims a notebook shows (their check JSONs are its inputs), in registry order."""
    return [c.id for c in CLAIMS.values() if c.notebook == name]


def claims_for(experiments) -> list[str]:
    """The claims checked by a config that produces ``experiments`` (with ``"privacy"`` when it
    runs the privacy audit): those reading at least one of them, in registry order.  A check
    skips the experiments of its claim that the config does not produce."""
    have = set(experiments)
    return [c.id for c in CLAIMS.values() if set(c.experiments) & have]
