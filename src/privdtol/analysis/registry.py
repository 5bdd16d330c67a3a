"""The claims registry: it collects the claims the pipeline checks from the modules that declare
them and answers the questions the rules and the report ask of them.  The check rules
(``workflow/rules/checks.smk``), the notebook rules (``workflow/rules/notebooks.smk``), the
report's claim sections and the docs' claims table are all generated from :data:`CLAIMS` and
:data:`NOTEBOOKS`; nothing else lists claims.

A claim is one module of :mod:`privdtol.analysis.claims`: its records (``RECORDS``, each a
:class:`~privdtol.analysis.claim_types.Claim` with its typeset form) beside its check function.
:data:`CLAIMS` is every module's ``RECORDS``, in the order of the modules' names.  A claim's
check is a function ``check(tables, thresholds, inputs) -> dict`` where ``tables`` maps each
experiment of :attr:`Claim.experiments` to its aggregated table (experiments absent from the
config are missing from the mapping), ``thresholds`` holds the values of the config's
``checks:`` block that its record declares (:func:`claim_thresholds`; schema defaults filled,
the schema is the only place defaults live) and ``inputs`` the files read.  It returns a check
record (:mod:`privdtol.analysis.records`).

The findings (numbers shown beside the verdicts, not claims of the paper) are declared the same
way by the modules of :mod:`privdtol.analysis.findings`: :data:`FINDINGS` is every module's
``RECORDS``, in the order each record declares (:attr:`Finding.order`), and :data:`PAGE_ONE`
every module's sentences of page 1 (``PAGE_ONE``, :class:`PageLine`), in theirs.  A finding's
name, sentence and page-1 sentence are declared in its module; the report only typesets them.
The figures, one notebook each, are declared the same way by the modules of
:mod:`privdtol.analysis.figures` (:data:`NOTEBOOKS`, in ``order``).

The modules are found by name (:mod:`importlib`): the claim modules import the analysis
layer's records and statistics, whose :func:`~privdtol.analysis.records.claim_words` reads the
claims back from here when a check record is assembled.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from privdtol.analysis.claim_types import (  # noqa: F401 (re-exported)
    BOUNDS_TABLE,
    ENV_CONTROLS,
    RATE_EXPERIMENTS,
    Claim,
    ClaimTeX,
    Figure,
    Finding,
    PageLine,
)

_CLAIMS_PACKAGE = "privdtol.analysis.claims"
_FINDINGS_PACKAGE = "privdtol.analysis.findings"
_FIGURES_PACKAGE = "privdtol.analysis.figures"


def _package_modules(package_name: str) -> list:
    """The modules of a package, sorted by name."""
    package = importlib.import_module(package_name)
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
    return [importlib.import_module(f"{package_name}.{n}") for n in names]


def _claim_modules() -> list:
    """The modules of :mod:`privdtol.analysis.claims` (sorted by name) that declare claims."""
    return [m for m in _package_modules(_CLAIMS_PACKAGE) if hasattr(m, "RECORDS")]


def _finding_modules() -> list:
    """The modules of :mod:`privdtol.analysis.findings` (sorted by name) that declare findings
    (``RECORDS``) or sentences of page 1 (``PAGE_ONE``)."""
    modules = _package_modules(_FINDINGS_PACKAGE)
    return [m for m in modules if hasattr(m, "RECORDS") or hasattr(m, "PAGE_ONE")]


def _collect(records) -> dict:
    out: dict = {}
    for r in records:
        key = getattr(r, "id", None) or r.name
        if key in out:
            raise ValueError(f"{key!r} is declared twice")
        out[key] = r
    return out


#: every claim (the paper's claims and the pipeline's diagnostics), from the claim modules
CLAIMS: dict[str, Claim] = _collect(r for m in _claim_modules() for r in m.RECORDS)

#: the LaTeX form of each claim's title, quote and statistic (keyed by claim id)
CLAIMS_TEX: dict[str, ClaimTeX] = {c.id: c.tex for c in CLAIMS.values() if c.tex is not None}

#: findings (not claims of the paper; out of the verdict count), in report order
FINDINGS: dict[str, Finding] = _collect(
    sorted(
        (r for m in _finding_modules() for r in getattr(m, "RECORDS", ())),
        key=lambda f: (f.order, f.id),
    )
)

#: the sentences of page 1's findings, in page order (each finding module's ``PAGE_ONE``)
PAGE_ONE: tuple[PageLine, ...] = tuple(
    sorted(
        (p for m in _finding_modules() for p in getattr(m, "PAGE_ONE", ())),
        key=lambda p: (p.order, p.section),
    )
)

#: experiments read by the findings
FINDINGS_EXPERIMENTS = tuple(dict.fromkeys(e for f in FINDINGS.values() for e in f.experiments))


def collect_figures(modules) -> dict[str, Figure]:
    """``{name: figure}`` of the ``FIGURE`` each module declares, in ``order``.  A module
    without one, a figure not named like its module, a name other than lowercase letters and
    digits or two figures of one ``order`` is a ValueError naming the module."""
    figures: dict[str, Figure] = {}
    orders: dict[int, str] = {}
    for m in modules:
        fig, short = getattr(m, "FIGURE", None), m.__name__.rpartition(".")[2]
        if not isinstance(fig, Figure):
            raise ValueError(f"{m.__name__} declares no FIGURE (a Figure)")
        if fig.name != short:
            raise ValueError(f"{m.__name__} declares the figure {fig.name!r}: name it {short!r}")
        if not re.fullmatch(r"[a-z][a-z0-9]*", fig.name):
            # the name is a LaTeX label and a file name in the report, a rule's name
            raise ValueError(f"{m.__name__}: a figure's name is lowercase letters and digits")
        if fig.order in orders:
            raise ValueError(
                f"{m.__name__}: order {fig.order} is already the figure {orders[fig.order]!r}'s"
            )
        orders[fig.order] = fig.name
        figures[fig.name] = fig
    return dict(sorted(figures.items(), key=lambda kv: kv[1].order))


#: the figures, one notebook each (``notebooks/<name>.py``), from the modules of
#: :mod:`privdtol.analysis.figures`, in ``order`` (the report puts the main text's first,
#: :func:`privdtol.report.figure_order.notebooks_in_order`)
NOTEBOOKS: dict[str, Figure] = collect_figures(_package_modules(_FIGURES_PACKAGE))


def notebooks_for(experiments) -> list[str]:
    """The notebooks of a config that produces ``experiments`` (with ``"privacy"`` when it
    runs the privacy audit): those reading at least one of them, in registry order; one
    notebook rule each (``workflow/rules/notebooks.smk``)."""
    have = set(experiments)
    return [n for n, fig in NOTEBOOKS.items() if set(fig.experiments) & have]


def notebook_claims(name: str) -> list[str]:
    """The claims a notebook shows (their check JSONs are its inputs), in registry order."""
    return [c.id for c in CLAIMS.values() if c.notebook == name]


def notebook_thresholds(name: str) -> list[str]:
    """Keys of the config's ``checks:`` block that the claims of a notebook use (the notebook
    draws them: the notebook rule passes their values as the parameter ``thresholds``)."""
    keys = [k for c in notebook_claims(name) for k in CLAIMS[c].thresholds]
    return list(dict.fromkeys(keys))


class DeclaredThresholds(dict):
    """The thresholds a claim's record declares (:attr:`Claim.thresholds`), and only those: what
    the workflow's check rule depends on (a content-addressed piece of the config,
    :mod:`privdtol.pipeline.config_stamps`).  A check reading a key its record does not declare
    is a bug of the record (its result would go stale when that key changes): it raises a
    KeyError naming the claim and the key."""

    def __init__(self, claim: str, values: dict):
        super().__init__(values)
        self.claim = claim

    def __missing__(self, key):
        raise KeyError(
            f"claim {self.claim} reads checks.{key}, which its record's thresholds do not "
            f"declare ({', '.join(self) or 'none'})"
        )


def claim_thresholds(claim: str, checks: dict) -> DeclaredThresholds:
    """The values of the config's ``checks:`` block that claim ``claim`` declares it uses (the
    schema's defaults filled in ``checks``): what ``privdtol check`` passes to its check."""
    return DeclaredThresholds(claim, {k: checks[k] for k in CLAIMS[claim].thresholds})


def paper_claims() -> list[str]:
    """The claims of the paper (the verdict table and its count), in registry order."""
    return [c.id for c in CLAIMS.values() if not (c.diagnostic or c.cited)]


def cited_claims() -> list[str]:
    """The claims of the cited works (each prior algorithm's own bound, :attr:`Claim.cited`;
    their own table, out of the paper's count), in registry order."""
    return [c.id for c in CLAIMS.values() if c.cited and not c.diagnostic]


def diagnostics() -> list[str]:
    """The pipeline's diagnostics (their own table, out of the claim count), in registry
    order."""
    return [c.id for c in CLAIMS.values() if c.diagnostic]


def claims_for(experiments) -> list[str]:
    """The claims checked by a config that produces ``experiments`` (with ``"privacy"`` when it
    runs the privacy audit): those reading at least one of them, in registry order.  A check
    skips the experiments of its claim that the config does not produce."""
    have = set(experiments)
    return [c.id for c in CLAIMS.values() if set(c.experiments) & have]


def experiment_algorithms(config: dict) -> dict[str, set[str]]:
    """``{experiment: algorithms}`` of a (validated) config's ``experiments:``, slices
    included."""
    out: dict[str, set[str]] = {}
    for exp in config.get("experiments", []):
        algs = set(exp.get("algorithms", []))
        for sl in exp.get("slices", []) or []:
            algs |= set(sl.get("algorithms", []))
        out.setdefault(exp["name"], set()).update(algs)
    return out


def experiment_envs(config: dict) -> dict[str, set[str]]:
    """``{experiment: loss models}`` of a (validated) config's ``experiments:``, slices
    included."""
    out: dict[str, set[str]] = {}
    for exp in config.get("experiments", []):
        envs = {exp["env"]} if exp.get("env") else set()
        for sl in exp.get("slices", []) or []:
            envs |= {sl["env"]} if sl.get("env") else set()
        out.setdefault(exp["name"], set()).update(envs)
    return out


def controls_for(config: dict) -> list[tuple[str, str]]:
    """``(claim, control)`` for every negative control of the registry that the config
    simulates in one of the claim's experiments (an algorithm, or a loss model of
    :data:`ENV_CONTROLS`; C1's, the privacy audit's own controls, whenever the config has a
    ``privacy:`` block), in registry order."""
    algs, envs = experiment_algorithms(config), experiment_envs(config)
    out = []
    for c in CLAIMS.values():
        if c.id == "C1":  # the audit's own controls, run whenever the config audits privacy
            out += [(c.id, ctrl) for ctrl in c.controls if config.get("privacy")]
            continue
        if "floor" in c.experiments:  # the floor table computes its own controls
            out += [(c.id, ctrl) for ctrl in c.controls if config.get("floor")]
            continue
        present = set().union(*(algs.get(e, set()) for e in source_experiments(c)))
        present |= {
            m for e in source_experiments(c) for m in envs.get(e, set()) if m in ENV_CONTROLS
        }
        out += [(c.id, ctrl) for ctrl in c.controls if ctrl in present]
    return out


def source_experiments(claim: Claim) -> tuple[str, ...]:
    """The config experiments whose cells a claim reads: its experiments, where the proof
    table ("proof") stands for :data:`privdtol.pipeline.proof.PROOF_EXPERIMENTS`."""
    from privdtol.pipeline.proof import PROOF_EXPERIMENTS

    out = [PROOF_EXPERIMENTS if e == "proof" else (e,) for e in claim.experiments]
    return tuple(dict.fromkeys(e for part in out for e in part))


def proof_algorithms() -> tuple[str, ...]:
    """The algorithms whose exact cells get proof terms: rps and the proof claims' controls."""
    ctrl = [a for c in CLAIMS.values() if "proof" in c.experiments for a in c.controls]
    return tuple(dict.fromkeys(["rps", *ctrl]))


def control_id(claim: str, control: str) -> str:
    """The record name of a control: ``<claim>--<control>`` (results/checks/<name>.json)."""
    return f"{claim}--{control}"
