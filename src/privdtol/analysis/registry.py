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
    #: negative controls: algorithms the check must FAIL (records ``<ID>--<control>.json``);
    #: C1's are the privacy audit's own controls, inside its record
    controls: tuple[str, ...] = ()

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
            ("horizon", "gap", "epsilon", "actions", "grid"),
            ("confidence",),
            f"{_C}.c2_theorem1:check",
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
        ),
        Claim(
            "C5",
            "Theorem 1's bound holds for dependent coordinates",
            "Section 1 (Contributions), on Theorem 1",
            "Although the open problem is stated for the usual product-over-actions stochastic "
            "model, our proof only uses independence across time. Thus it applies to i.i.d. "
            "loss vectors with arbitrary dependence among coordinates within each round; the "
            "product-over-actions model is a special case.",
            "largest regret / Theorem-1 bound over the correlated and Beta cells and their "
            "checkpoint horizons (upper confidence limit)",
            ("dependent",),
            ("confidence",),
            f"{_C}.c5_dependent:check",
            "dependent",
            ("uniform",),
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


def controls_for(config: dict) -> list[tuple[str, str]]:
    """``(claim, control)`` for every negative control of the registry that the config
    simulates in one of the claim's experiments (C1's controls live in the privacy audit's
    record and have no rule of their own), in registry order."""
    algs = experiment_algorithms(config)
    out = []
    for c in CLAIMS.values():
        if c.id == "C1":
            continue
        present = set().union(*(algs.get(e, set()) for e in c.experiments))
        out += [(c.id, ctrl) for ctrl in c.controls if ctrl in present]
    return out


def control_id(claim: str, control: str) -> str:
    """The record name of a control: ``<claim>--<control>`` (results/checks/<name>.json)."""
    return f"{claim}--{control}"


@dataclass(frozen=True)
class ClaimTeX:
    """The typeset (LaTeX) form of a claim's texts, for the report and the notebooks (matplotlib
    mathtext renders the ``$...$`` parts).  The plain-text fields of :class:`Claim` stay for
    logs and JSON; a claim without an entry here is shown with its plain text escaped."""

    #: short statement (:attr:`Claim.title`)
    title: str
    #: the paper's statement (:attr:`Claim.quote`)
    quote: str
    #: what the check computes (:attr:`Claim.statistic`)
    statistic: str


_THEOREM1_TEX = (
    r"For every $K \ge 2$, every $\varepsilon > 0$, every horizon $T \ge 1$, and every i.i.d. "
    r"loss process with marginal distribution supported on $[0,1]^K$ with a unique best action, "
    r"the randomized-prefix softmax algorithm is $\varepsilon$-differentially private and "
    r"satisfies $\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$, "
    r"$\eta = \min\{\varepsilon/2, 1/8\}$. (1)"
)
_COROLLARY1_TEX = (
    r"Combining Theorem 1 with the lower bound of [5] gives the optimal gap-dependent rate "
    r"$\Theta(\log K/\Delta_{\min} + \log K/\varepsilon)$."
)

#: the LaTeX form of each claim's title, quote and statistic (keyed by claim id)
CLAIMS_TEX: dict[str, ClaimTeX] = {
    "C1": ClaimTeX(
        r"Event-level pure $\varepsilon$-DP",
        r"Proposition 1 (Global event-level privacy): The randomized-prefix softmax algorithm "
        r"is $\varepsilon$-differentially private. Lemma 3 (Privacy of the softmax map): [\dots] "
        r"Then the randomized map $d \mapsto J$ is $2\eta$-differentially private in the sense "
        r"of Definition 2.",
        r"largest privacy loss found by the exact and statistical audits, over $\varepsilon$",
    ),
    "C2": ClaimTeX(
        r"$\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$ for every $T$",
        _THEOREM1_TEX,
        r"largest regret/bound over cells and checkpoint horizons (upper confidence limit)",
    ),
    "C3": ClaimTeX(
        r"The regret is horizon-free",
        r"We give a constructive horizon-free $\varepsilon$-DP algorithm for stochastic DTOL and "
        r"prove the explicit regret bound "
        r"$\mathrm{Reg}_T \le 1000 (\log K/\Delta_{\min} + \log K/\varepsilon)$. [Theorem 1:] "
        r"for every $K \ge 2$, every $\varepsilon > 0$, every horizon $T \ge 1$ [\dots] "
        r"$\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$.",
        r"largest $\mathrm{Reg}(T_{\max})/\mathrm{Reg}(T_0)$ over cells, $T_0$ the first "
        r"checkpoint after $c \max(L/\Delta_{\min}^2, L/(\eta \Delta_{\min}))$, "
        r"$L = 1 + \log K$",
    ),
    "C4": ClaimTeX(
        r"Rate form $\mathrm{Reg} \approx a \log K/\Delta_{\min} + b \log K/\eta + c$ "
        r"over the grid",
        _COROLLARY1_TEX,
        r"largest factor between a cell's regret and the fitted "
        r"$a \log K/\Delta_{\min} + b \log K/\eta + c$",
    ),
    "C4a": ClaimTeX(
        r"Linear in $1/\Delta_{\min}$ in the statistical regime",
        _COROLLARY1_TEX,
        r"exponent $p$ of $(\log K/\Delta_{\min})^p$, the privacy term held at its fitted value",
    ),
    "C4b": ClaimTeX(
        r"Linear in $1/\varepsilon$ in the privacy regime",
        _COROLLARY1_TEX,
        r"exponent $q$ of $(\log K/\varepsilon)^q$ over the cells with $\eta = \varepsilon/2$, "
        r"the statistical term held at its fitted value",
    ),
    "C4c": ClaimTeX(
        r"Linear in $\log K$, not $\log^2 K$",
        _COROLLARY1_TEX,
        r"exponent $s$ of $(\log K)^s$ in each regime, the other term held at its fitted value",
    ),
    "C5": ClaimTeX(
        r"Theorem 1's bound holds for dependent coordinates",
        r"Although the open problem is stated for the usual product-over-actions stochastic "
        r"model, our proof only uses independence across time. Thus it applies to i.i.d. loss "
        r"vectors with arbitrary dependence among coordinates within each round; the "
        r"product-over-actions model is a special case.",
        r"largest regret/bound over the correlated and Beta cells and their checkpoint "
        r"horizons (upper confidence limit)",
    ),
    "C0": ClaimTeX(
        r"Exact and Monte Carlo regret agree",
        r"The expected pseudoregret up to horizon $T$ is $\mathrm{Reg}_T = "
        r"\mathbb{E}[\sum_{t=1}^T (X_{t,I_t} - X_{t,1})] = \sum_{t=1}^T "
        r"\mathbb{E}[\Delta_{I_t}]$.",
        r"largest $|\text{Monte Carlo} - \text{exact}|$ in standard errors over the cells "
        r"computed both ways and their checkpoint horizons",
    ),
}
