"""The records of the claims registry: a claim of the paper (or a diagnostic of the
pipeline) with how it is checked and its typeset form, a finding shown beside the verdicts, and
a figure with its notebook (:mod:`privdtol.analysis.registry` describes how they are used); and
the vocabularies the records share (:data:`ENV_CONTROLS`, :data:`RATE_EXPERIMENTS`).  Each
claim's record is declared by its own module (:mod:`privdtol.analysis.claims`), each finding's
by its module of :mod:`privdtol.analysis.findings`, each figure's by its module of
:mod:`privdtol.analysis.figures`."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from privdtol.environments import CONTROL_MODELS

#: negative controls that are loss models, not algorithms: rps run on a loss process that
#: violates the claim's hypothesis (those declaring ``control``, e.g. ``blocked``: losses
#: repeated in blocks, not independent across time, :mod:`privdtol.environments.blocked`)
ENV_CONTROLS = CONTROL_MODELS
#: the experiments of the regret tables read by the rate checks and the findings
RATE_EXPERIMENTS = ("grid", "gap", "epsilon", "actions")
#: the experiments whose standard-instance cells are held against the lower bound LB_T
#: (:mod:`privdtol.analysis.price`)
LOWER_EXPERIMENTS = ("horizon", "gap", "epsilon", "actions", "grid", "ablations")
#: the table of LB_T at every instance and checkpoint of those experiments, computed once per
#: run (``privdtol lower-bound-table``, ``results/agg/lower_bound.parquet``) and read by every
#: check, notebook and finding that holds a regret against it
BOUNDS_TABLE = "lower_bound"


@dataclass(frozen=True)
class ClaimTeX:
    """The typeset (LaTeX) form of a claim's texts, for the report and the notebooks (matplotlib
    mathtext renders the ``$...$`` parts).  The plain-text fields of :class:`Claim` stay for
    logs and JSON; a claim without one is shown with its plain text escaped."""

    #: short statement (:attr:`Claim.title`)
    title: str
    #: the paper's statement (:attr:`Claim.quote`)
    quote: str
    #: what the check computes (:attr:`Claim.statistic`)
    statistic: str


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and how the pipeline tests it."""

    id: str
    #: short statement, as the verdict table shows it
    title: str
    #: where the paper states it ("Theorem 1, eq. (1)")
    source: str
    #: the paper's statement, verbatim (mathematics in plain text)
    quote: str
    #: what the check computes, in words
    statistic: str
    #: aggregated experiments (``results/agg/<name>.parquet``) the check reads
    experiments: tuple[str, ...]
    #: keys of the config's ``checks:`` block the check uses
    thresholds: tuple[str, ...]
    #: ``module:function`` of the check, ``check(tables, thresholds, inputs, algorithm="rps")``
    check: str
    #: the notebook (key of :data:`NOTEBOOKS`) whose figure shows the claim
    notebook: str
    #: negative controls: algorithms the check must FAIL (records ``<ID>--<control>.json``),
    #: or loss models of :data:`ENV_CONTROLS` (rps run on a process outside the claim's
    #: hypothesis); C1's are the privacy audit's own controls, inside its record
    controls: tuple[str, ...] = ()
    #: why this is a diagnostic of the pipeline and not a claim of the paper (empty: a claim
    #: of the paper, counted in the verdict table); diagnostics have their own table
    diagnostic: str = ""
    #: the tested claims that jointly imply this one (it is shown with its verdict but not
    #: counted among the independent statements: Theorem 1 <= Lemmas 4 and 5, eq. (2) <=
    #: eq. (1), horizon-freeness <= a bound free of T)
    implied_by: tuple[str, ...] = ()
    #: why the check cannot fail (an identity of the computation it checks; shown, labelled,
    #: out of the count; empty: it can fail)
    identity: str = ""
    #: the typeset form of :attr:`title`, :attr:`quote` and :attr:`statistic` (None: the plain
    #: text, escaped)
    tex: ClaimTeX | None = None
    #: a statement of the rate (Corollary 1 and its parts), asked of every private algorithm in
    #: the report's claims-by-algorithm table (``privdtol check --by-algorithm``)
    rate: bool = False
    #: the bibliography key of the cited work whose claim this is (empty: the paper's own);
    #: a claim of a cited work is shown in its own table, out of the paper's count
    cited: str = ""
    #: the algorithm the claim is about, checked unless another is asked for (``privdtol
    #: check --claim ID``; the paper's claims are about RPS)
    subject: str = "rps"

    @property
    def independent(self) -> bool:
        """A claim of the paper that no other tested claim implies and that can fail."""
        return not (self.diagnostic or self.implied_by or self.identity or self.cited)

    def check_function(self) -> Callable[..., dict]:
        module, _, name = self.check.partition(":")
        return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Finding:
    """A number the report shows beside the verdicts but that is not a claim of the paper (out
    of the verdict count): written to ``results/findings.json`` by ``privdtol findings``."""

    id: str
    title: str
    experiments: tuple[str, ...]
    #: ``module:function``, ``function(tables) -> dict``
    function: str
    #: the finding's place in the report (findings section and ``results/findings.json``):
    #: the registry sorts the findings by it
    order: int = field(kw_only=True)
    #: the finding's name in the report (LaTeX; empty: :attr:`title`, typeset)
    label: str = field(default="", kw_only=True)
    #: ``module:function`` of the findings section's sentence from the finding's numbers,
    #: ``sentence(item, tex) -> str | None`` (``item``: the finding's entry of
    #: ``results/findings.json``; ``tex``: the report's typesetting kit,
    #: :data:`privdtol.report.latex.findings_prose.TYPESET`); empty, or a sentence of None: the
    #: finding's own text, typeset
    sentence: str = field(default="", kw_only=True)
    #: ``module:function`` of a table shown after the findings section's list,
    #: ``table(item, tex) -> str | None`` (empty: none)
    table: str = field(default="", kw_only=True)

    def finding_function(self) -> Callable[..., dict]:
        return _resolve(self.function)

    def sentence_function(self) -> Callable[[dict, Any], str | None] | None:
        return _resolve(self.sentence) if self.sentence else None

    def table_function(self) -> Callable[[dict, Any], str | None] | None:
        return _resolve(self.table) if self.table else None


def _resolve(target: str) -> Callable:
    """The function named by ``module:function``."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class PageLine:
    """A sentence of page 1's findings, declared by a module of
    :mod:`privdtol.analysis.findings` (``PAGE_ONE``): ``line(found, checks, tex)`` gives the
    sentence (or several, or None when its numbers are not in this run) from
    ``results/findings.json`` (``found``), the check records by claim id (``checks``) and the
    report's typesetting kit (``tex``, as for :attr:`Finding.sentence`); ``section`` is the
    label of the section that shows it.  Page 1 lists them by ``order``."""

    order: int
    section: str
    line: Callable[[dict, dict, Any], str | Sequence[str] | None]


@dataclass(frozen=True)
class Figure:
    """A figure of the report and the notebook that draws it (``notebooks/<name>.py``, which
    plots and tabulates only): declared once, by its module of :mod:`privdtol.analysis.figures`.
    The notebook registry (:data:`privdtol.analysis.registry.NOTEBOOKS`), the report's
    sections and their order, the figure numbers
    (:func:`privdtol.report.figure_order.figure_number`) and the Snakemake report's captions
    (``workflow/report/figure.rst``) are derived from it; the claims it shows are those whose
    :attr:`Claim.notebook` names it."""

    #: the notebook's name (``notebooks/<name>.py``; the declaring module's name)
    name: str
    #: place among the figures: the main text's figures are numbered first, then the
    #: appendix's, each part by ``order`` (unique)
    order: int
    #: aggregated experiments read (``results/agg/<experiment>.parquet``)
    experiments: tuple[str, ...]
    #: tables written as data (``results/tables/<table>.csv``; their layout:
    #: :data:`privdtol.report.latex.layout.TABLES`)
    tables: tuple[str, ...]
    #: the report's subsection title (LaTeX)
    title: str
    #: the report's figure caption (LaTeX)
    caption: str
    #: what the figure shows, in a phrase (plain text: the bold head of the Snakemake report's
    #: caption, after its number)
    plain_title: str
    #: the Snakemake report's caption (plain text; reStructuredText markup allowed)
    plain_caption: str
    #: True: its section is in the report's appendix ("Further evidence", prose, figure and
    #: tables); False: in the main text (a lead, ``paper/sections/lead/<name>.tex``, and the
    #: figure; prose and tables in the appendix's details)
    appendix: bool = False
