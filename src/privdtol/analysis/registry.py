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

from privdtol.analysis.claims_tex import CLAIMS_TEX, ClaimTeX  # noqa: F401 (re-exported)


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

    def finding_function(self) -> Callable[..., dict]:
        module, _, name = self.function.partition(":")
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
#: negative controls that are loss models, not algorithms: rps run on a loss process that
#: violates the claim's hypothesis (``blocked``: losses repeated in blocks, not independent
#: across time, :mod:`privdtol.environments.blocked`)
ENV_CONTROLS = ("blocked",)
#: the experiments of the regret tables read by the rate checks and the findings
RATE_EXPERIMENTS = ("grid", "gap", "epsilon", "actions")

#: the paper's statements (Cesari & Colomboni), verbatim with the mathematics in plain text
THEOREM1 = (
    "For every K >= 2, every eps > 0, every horizon T >= 1, and every i.i.d. loss process with "
    "marginal distribution supported on [0,1]^K with a unique best action, the "
    "randomized-prefix softmax algorithm is eps-differentially private and satisfies "
    "Reg_T <= 1 + 800 log K/Delta_min + 16 log K/eta, eta = min{eps/2, 1/8}. (1)"
)
COROLLARY1 = (
    "Combining Theorem 1 with the lower bound of [5] gives the optimal gap-dependent rate "
    "Theta(log K/Delta_min + log K/eps)."
)

#: Lemma 4, Lemma 5 and the two halves of Lemma 5's proof (Section 5.3-5.4), verbatim
LEMMA4 = (
    "Lemma 4 (Clock reduction with explicit constant). For every horizon T >= 1, "
    "Reg_T <= 1 + 4 sum_(m>=1) F_m. [F_m = E[sum_(j=1)^K Delta_j P_(m,j)], P_(m,j) the softmax "
    "weights after m i.i.d. loss vectors.]"
)
LEMMA5 = (
    "Lemma 5 (Cumulative softmax-error bound with explicit constants). For eta <= 1/8, "
    "sum_(m>=1) F_m <= 200 log K/Delta_min + 4 log K/eta."
)
EQ5 = (
    "sum_(m>=1) E[sum_(j in {2,...,K}, Delta_j <= 4 eta) Delta_j P_(m,j)] [...] "
    "<= (64 log(K+1) + 36)/Delta_min <= 200 log K/Delta_min, (5)"
)
EQ6 = (
    "sum_(m>=1) E[sum_(j in {2,...,K}, Delta_j > 4 eta) Delta_j P_(m,j)] <= 4 log K/eta. (6) "
    "[through sum_(m>=1) E[...] <= sum_(m>=0) E[V_m] and E[log Z_(m+1)] - E[log Z_m] <= "
    "-(eta/4) E[V_m].]"
)

#: Theorem 1's simplified form, verbatim
EQ2 = (
    "In particular, Reg_T <= 1000 (log K/Delta_min + log K/eps). (2) The constant 1000 is "
    "explicit and universal, but it is not optimized."
)
#: why the exponent fits are diagnostics, not claims (Corollary 1 is a minimax statement)
_MINIMAX = (
    "Corollary 1 is a minimax statement (the order of the worst-case regret over instances), "
    "not a claim about the regret of RPS on each instance; what it implies for RPS on the grid "
    "is C4's form, and this exponent fit diagnoses that form on one series of instances"
)

CLAIMS: dict[str, Claim] = {
    c.id: c
    for c in (
        Claim(
            "C0",
            "Exact and Monte Carlo regret agree",
            "Section 3 (definition of Reg_T); the pipeline's own claim",
            "The expected pseudoregret up to horizon T is Reg_T = E[sum_(t=1)^T (X_(t,I_t) - "
            "X_(t,1))] = sum_(t=1)^T E[Delta_(I_t)].",
            "largest |Monte Carlo mean - exact value| in standard errors over the cells computed "
            "both ways and their checkpoint horizons",
            ("agreement",),
            ("agreement_z_max", "agreement_min_events"),
            f"{_C}.c0_agreement:check",
            "agreement",
            diagnostic="the pipeline's own claim (its two engines compute the same Reg_T), not "
            "a statement of the paper",
        ),
        Claim(
            "C1",
            "Event-level pure ε-DP",
            "Proposition 1, Lemma 3",
            "Proposition 1 (Global event-level privacy): The randomized-prefix softmax algorithm "
            "is eps-differentially private. Lemma 3 (Privacy of the softmax map): [...] Then the "
            "randomized map d -> J is 2 eta-differentially private in the sense of Definition 2.",
            "largest privacy loss found by the exact and statistical audits, over eps",
            ("privacy",),
            (),
            f"{_C}.c1_privacy:check",
            "privacy",
            ("rps_eta_eps", "rps_data_prefix"),
        ),
        Claim(
            "C2",
            "Reg_T ≤ 1 + 800 log K/Δ + 16 log K/η for every T",
            "Theorem 1, eq. (1)",
            THEOREM1,
            "largest regret / bound over cells and checkpoint horizons (upper confidence limit)",
            ("horizon", "gap", "epsilon", "actions", "grid", "worst_case"),
            ("confidence",),
            f"{_C}.c2_theorem1:check",
            "bounds",
            ("uniform",),
        ),
        Claim(
            "C2b",
            "Reg_T ≤ 1000 (log K/Δ + log K/ε) for every T",
            "Theorem 1, eq. (2)",
            EQ2,
            "largest regret / (1000 (log K/gap + log K/eps)) over cells and checkpoint horizons "
            "(upper confidence limit)",
            ("horizon", "gap", "epsilon", "actions", "grid", "worst_case"),
            ("confidence",),
            f"{_C}.c2_theorem1:check_eq2",
            "bounds",
            ("uniform",),
        ),
        Claim(
            "C3",
            "The regret is horizon-free",
            "Theorem 1, eq. (1) (the bound holds for every horizon T)",
            "We give a constructive horizon-free eps-DP algorithm for stochastic DTOL and prove "
            "the explicit regret bound Reg_T <= 1000 (log K/Delta_min + log K/eps). "
            "[Theorem 1:] for every K >= 2, every eps > 0, every horizon T >= 1 [...] "
            "Reg_T <= 1 + 800 log K/Delta_min + 16 log K/eta.",
            "largest Reg(T_max)/Reg(T0) over cells, T0 the first checkpoint after "
            "c max(L/gap^2, L/(eta gap)), L = 1 + log K",
            ("horizon", "gap", "epsilon", "actions", "grid"),
            ("confidence", "horizon_free_ratio_max", "horizon_free_c"),
            f"{_C}.c3_horizon_free:check",
            "horizon",
            ("ftl_egreedy",),
        ),
        Claim(
            "C4",
            "Rate form: Reg ≈ a log K/Δ + b log K/η + c over the grid",
            "Corollary 1 (with Theorem 1, eq. (1))",
            COROLLARY1,
            "largest factor between a cell's regret and the fitted a log K/gap + b log K/eta + c",
            ("grid",),
            ("confidence", "rate_form_factor"),
            f"{_C}.c4_rate:check_form",
            "heatmap",
            ("rps_eta_logk",),
        ),
        Claim(
            "C4a",
            "Linear in 1/Δ in the statistical regime",
            "Corollary 1",
            COROLLARY1,
            "exponent p of (log K/gap)^p, the privacy term held at its fitted value",
            ("gap",),
            ("confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"),
            f"{_C}.c4_rate:check_gap",
            "rates",
            ("rps_short_prefix",),
            diagnostic=_MINIMAX,
        ),
        Claim(
            "C4b",
            "Linear in 1/ε in the privacy regime",
            "Corollary 1",
            COROLLARY1,
            "exponent q of (log K/eps)^q over the cells with eta = eps/2, the statistical "
            "term held at its fitted value",
            ("epsilon",),
            ("confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"),
            f"{_C}.c4_rate:check_epsilon",
            "rates",
            ("rps_eta_sq",),
            diagnostic=_MINIMAX,
        ),
        Claim(
            "C4c",
            "Linear in log K, not log² K",
            "Corollary 1",
            COROLLARY1,
            "exponent s of (log K)^s in each regime, the other term held at its fitted value",
            ("actions",),
            ("confidence", "exponent_range", "plateau_octaves", "horizon_free_ratio_max"),
            f"{_C}.c4_rate:check_log_k",
            "actions",
            ("rps_eta_logk",),
            diagnostic=_MINIMAX
            + "; and on this grid it cannot discriminate: on the standard instance the private "
            "competitors are linear in log K too (log^2 K is Wu & Wang's upper bound, not "
            "their algorithm's behaviour), so only the control built for it grows like "
            "log^2 K",
        ),
        Claim(
            "C5",
            "Theorem 1's bound holds for dependent coordinates",
            "Section 1 (Contributions), on Theorem 1",
            "Although the open problem is stated for the usual product-over-actions stochastic "
            "model, our proof only uses independence across time. Thus it applies to i.i.d. "
            "loss vectors with arbitrary dependence among coordinates within each round; the "
            "product-over-actions model is a special case.",
            "largest regret / Theorem-1 bound over the correlated (positive and negative "
            "dependence) and Beta cells and their checkpoint horizons (upper confidence limit)",
            ("dependent",),
            ("confidence",),
            f"{_C}.c5_dependent:check",
            "dependent",
            ("uniform", "blocked"),
        ),
        Claim(
            "L4",
            "Lemma 4: Reg_T ≤ 1 + 4 Σ_m F_m (the clock reduction)",
            "Lemma 4 (Section 5.3)",
            LEMMA4,
            "largest exact Reg / (1 + 4 sum_m F_m) over the rps cells (numerical error bounds)",
            ("proof",),
            (),
            f"{_C}.lemmas:check_lemma4",
            "proof",
            ("rps_short_prefix",),
        ),
        Claim(
            "L5",
            "Lemma 5: Σ_m F_m ≤ 200 log K/Δ + 4 log K/η",
            "Lemma 5 (Section 5.4)",
            LEMMA5,
            "largest exact sum_m F_m / (200 log K/Delta_min + 4 log K/eta) over the rps cells",
            ("proof",),
            (),
            f"{_C}.lemmas:check_lemma5",
            "proof",
            ("rps_eta_logk",),
        ),
        Claim(
            "L5a",
            "Small-gap half of Lemma 5: eq. (5)",
            "Proof of Lemma 5, eq. (5) (Section 5.4)",
            EQ5,
            "largest exact small-gap part / (200 log K/Delta_min) over the rps cells",
            ("proof",),
            (),
            f"{_C}.lemmas:check_eq5",
            "proof",
        ),
        Claim(
            "L5b",
            "Large-gap half of Lemma 5: eq. (6)",
            "Proof of Lemma 5, eq. (6) (Section 5.4)",
            EQ6,
            "largest exact large-gap part / (4 log K/eta) over the rps cells",
            ("proof",),
            (),
            f"{_C}.lemmas:check_eq6",
            "proof",
            ("rps_eta_logk",),
        ),
    )
}

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
