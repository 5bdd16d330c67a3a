"""The claims registry: the one list of the paper's claims that the pipeline checks, and of the
notebooks that show them.  The check rules (``workflow/rules/checks.smk``), the notebook rules
(``workflow/rules/notebooks.smk``), the report's claim sections and the docs' claims table are
all generated from :data:`CLAIMS` and :data:`NOTEBOOKS`; nothing else lists claims.

A claim's check is a function ``check(tables, thresholds, inputs) -> dict`` where ``tables``
maps each experiment of :attr:`Claim.experiments` to its aggregated table (experiments absent
from the config are missing from the mapping), ``thresholds`` is the config's ``checks:`` block
(schema defaults filled; the schema is the only place defaults live) and ``inputs`` the files
read.  It returns a check record (:mod:`privdtol.analysis.records`).

The registry is split by job: :mod:`~privdtol.analysis.claim_types` (the records),
:mod:`~privdtol.analysis.quotes` (the paper's statements), :mod:`~privdtol.analysis.claims_list`
(:data:`CLAIMS`), :mod:`~privdtol.analysis.showing` (:data:`FINDINGS`, :data:`NOTEBOOKS`); this
module re-exports them and answers the questions the rules and the report ask of them (which
claims a config checks, which controls it simulates, ...).
"""

from __future__ import annotations

from privdtol.analysis.claim_types import Claim, Finding, Notebook  # noqa: F401 (re-exported)
from privdtol.analysis.claims_list import (  # noqa: F401 (re-exported)
    CLAIMS,
    ENV_CONTROLS,
    RATE_EXPERIMENTS,
)
from privdtol.analysis.claims_tex import CLAIMS_TEX, ClaimTeX  # noqa: F401 (re-exported)
from privdtol.analysis.quotes import (  # noqa: F401 (re-exported)
    COROLLARY1,
    EQ2,
    EQ5,
    EQ6,
    LEMMA4,
    LEMMA5,
    THEOREM1,
)
from privdtol.analysis.showing import (  # noqa: F401 (re-exported)
    FINDINGS,
    FINDINGS_EXPERIMENTS,
    NOTEBOOKS,
)


def notebook_claims(name: str) -> list[str]:
    """The claims a notebook shows (their check JSONs are its inputs), in registry order."""
    return [c.id for c in CLAIMS.values() if c.notebook == name]


def notebook_thresholds(name: str) -> list[str]:
    """Keys of the config's ``checks:`` block that the claims of a notebook use (the notebook
    draws them: the notebook rule passes their values as the parameter ``thresholds``)."""
    keys = [k for c in notebook_claims(name) for k in CLAIMS[c].thresholds]
    return list(dict.fromkeys(keys))


def paper_claims() -> list[str]:
    """The claims of the paper (the verdict table and its count), in registry order."""
    return [c.id for c in CLAIMS.values() if not c.diagnostic]


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
    :data:`ENV_CONTROLS`; C1's controls live in the privacy audit's record and have no rule of
    their own), in registry order."""
    algs, envs = experiment_algorithms(config), experiment_envs(config)
    out = []
    for c in CLAIMS.values():
        if c.id == "C1":
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
