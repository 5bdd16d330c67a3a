"""What the report says around the results, defined once: the caption and number precision of
each table and the header of each table column.

A figure's section (title, caption, main text or appendix, place) is its declaration's
(:mod:`privdtol.analysis.figures`); the prose of a section is static text found by the
figure's name, ``paper/sections/lead/<name>.tex`` (main text) and
``paper/sections/experiments/<name>.tex``.
"""

from __future__ import annotations

from dataclasses import dataclass

# REGIME_TEX: re-exported for the findings' prose, page one and the lower notebook
from privdtol.analysis.cells import REGIME_TEX, REGIMES_DEFINED  # noqa: F401
from privdtol.analysis.claims.c3_horizon_free import PLATEAU_MARGIN
from privdtol.environments import MODELS
from privdtol.plotting.style import EXPERIMENT_NAMES
from privdtol.report.latex.text import tex_escape


@dataclass(frozen=True)
class TableSpec:
    """How a ``results/tables/<name>.csv`` is shown (LaTeX caption)."""

    caption: str
    #: significant digits of the non-integer numbers (what the notebooks showed)
    digits: int = 3
    #: columns the rows are sorted by (the reader's question first); those in ``descending``
    #: largest first
    sort: tuple[str, ...] = ()
    descending: tuple[str, ...] = ()
    #: ``(columns, values)``: one column of ``values`` per value of ``columns`` (two factors
    #: cross; the other columns index the rows; ``columns`` may be a tuple of columns that name
    #: one factor together); ``pivot_drop`` the columns it leaves out
    pivot: tuple[str | tuple[str, ...], str] | None = None
    pivot_drop: tuple[str, ...] = ()


TABLES: dict[str, TableSpec] = {
    "floor": TableSpec(
        r"The true floor at each cell's largest horizon: $\mathrm{OPT}_T$, the lower bound "
        r"$\mathrm{LB}_T$ (best term) and how loose it is ($\mathrm{OPT}_T/\mathrm{LB}_T$, also "
        r"for the \texttt{combined} term), and how far RPS and the best registered private "
        r"algorithm are from optimal ($\mathrm{Reg}_T/\mathrm{OPT}_T$).",
        digits=4,
        sort=("K", "gap", "epsilon"),
    ),
    "lower": TableSpec(
        r"Regret over the lower bound $\mathrm{LB}_T$ per algorithm and regime ("
        + REGIMES_DEFINED
        + r"), at each standard-instance cell's largest horizon (min, median, max), and the "
        r"smallest over every checkpoint.",
        sort=("private", "median"),
        descending=("private",),
    ),
    "worst": TableSpec(
        r"Worst-instance searches: per search and objective (\texttt{theorem1}: "
        r"$\mathrm{Reg}_T$ over Theorem~1's bound; \texttt{lower\_max}, \texttt{lower\_min}: the "
        r"largest and smallest $\mathrm{Reg}_T/\mathrm{LB}_T$) the most extreme value found, the "
        r"standard instance's and their ratio, the instance found ($\mu_1$ and the gaps in units "
        r"of $\Delta_{\min}$), and the unseen margin (how much the best unseen random instance "
        r"beats the value found, relative; negative: it does not).",
        sort=("objective", "K", "gap", "epsilon", "algorithm"),
    ),
    "proof": TableSpec(
        r"Slack of each step of the proof (bound over exact value) over the RPS cells where it "
        r"applies, with its median per regime; eq.~(4): its bound over the exact "
        r"$\mathbb{E}[P_{m,j}]$, worst and median over $m$.",
    ),
    "horizon": TableSpec(
        r"Regret at the plateau horizon $T_0$ and at $T_{\max}$ (C3), largest ratio first; "
        r"cells whose $T_0$ exceeds $T_{\max}/2^{"
        + str(PLATEAU_MARGIN.bit_length() - 1)
        + r"}$ are not reached.",
        sort=("ratio_high", "algorithm", "K", "gap", "epsilon"),
        descending=("ratio_high",),
    ),
    "rates": TableSpec(
        r"Log--log slopes of regret at the largest horizon of the gap and epsilon experiments "
        r"(\GapMaxHorizon, \EpsilonMaxHorizon) over the three largest $x$ values (the paper: 1).",
        sort=("axis", "slope"),
    ),
    "actions": TableSpec(
        r"Weighted fits $a f(K) + b$ of regret at $T = \ActionsMaxHorizon$ against $K$, "
        r"$f = \log$ and $\log^2$: the smaller $\chi^2$ is the better shape.",
        sort=("regime", "algorithm"),
    ),
    "heatmap": TableSpec(
        r"Per $K$, at $T = \GridMaxHorizon$: the range of C4's residual (regret over the fitted "
        r"form) and of regret$/(\log K/\Delta_{\min} + \log K/\varepsilon)$ (the raw rate, "
        r"whose constants are not fitted).",
        sort=("K",),
    ),
    "bounds": TableSpec(
        r"Measured regret against Theorem~1, eqs.~(1) and (2), and the lower bound "
        r"$\mathrm{LB}_T$, per "
        r"experiment (distinct cells; a cell shared by two experiments is counted under the "
        r"first).",
        sort=("ratio_bound_max",),
        descending=("ratio_bound_max",),
    ),
    "dependent": TableSpec(
        r"RPS regret by loss model at a common horizon, one column per model.",
        sort=("gap", "epsilon"),
        descending=("gap", "epsilon"),
        pivot=(("env", "rho", "kappa"), "mean"),
        pivot_drop=("ci_low", "ci_high"),
    ),
    "ablations": TableSpec(
        r"Regret of each ablation over RPS's in the same cell at $T = \AblationsMaxHorizon$ "
        r"(below 1: the ablation has less regret).",
        sort=("K", "gap", "epsilon"),
        pivot=("algorithm", "ratio_to_rps"),
        pivot_drop=("regret", "ci_low", "ci_high"),
    ),
    "privacy": TableSpec(
        r"Privacy audit: largest privacy loss found against the bounds "
        r"$2\eta$ (Lemma~3) and $\varepsilon$ (Proposition~1).",
        digits=3,
        sort=("role", "algorithm", "epsilon"),
    ),
    "agreement": TableSpec(
        r"Engine agreement (C0): per cell and Monte Carlo engine (block sums, or the explicit "
        r"round-by-round simulator), among the pairs C0 compares in standard errors, the horizon "
        r"where the Monte Carlo mean is farthest from the exact value, in standard errors $z$ "
        r"beyond the exact error bound; the cell's pairs with s.e.~0, compared by a bound "
        r"instead (error bound, rounding and what that many equal runs allow by chance), and "
        r"how many of them disagree; the pairs left out as rare events."
    ),
    "separation": TableSpec(
        r"The separation: per algorithm and cell, the growth of regret from "
        r"$T_{\mathrm{mid}} \approx T_{\max}^{3/4}$ to $T_{\max}$ (along $\log T$; a binding "
        r"$\log T$ factor predicts $\log T_{\max}/\log T_{\mathrm{mid}}$) and, in the privacy "
        r"regime, of regret over $\log K/\varepsilon$ from the smallest $K \ge 8$ to the largest "
        r"(along $\log K$; a $\log^2 K$ regret predicts $\log K_{\max}/\log K_{\min}$); "
        r"\texttt{shows}: the growth reaches the square root of the predicted factor.",
        sort=("along", "algorithm", "K", "gap", "epsilon"),
    ),
}

#: column name of a results table -> its header (LaTeX); other columns show their name
HEADERS: dict[str, str] = {
    # identifiers
    "algorithm": "Algorithm",
    "experiment": "Experiment",
    "regime": "Regime",
    "role": "Role",
    "axis": "Axis",
    "term": "Term",
    "verdict": "Verdict",
    "env": "Loss model",
    "instance": "Instance",
    "runs": "Runs",
    # parameters
    "K": "$K$",
    "gap": r"$\Delta_{\min}$",
    "epsilon": r"$\varepsilon$",
    "rho": r"$\rho$",
    "kappa": r"$\kappa$",
    "horizon": "$T$",
    "h_low": r"$T_0$",
    "h_high": r"$T_{\max}$",
    "cells": "Cells",
    # estimates
    "mean": "Regret",
    "regret": "Regret",
    "regret_low": r"Regret at $T_0$",
    "regret_high": r"Regret at $T_{\max}$",
    "ratio": "Ratio",
    "ratio_high": "Ratio upper CL",
    "ratio_to_rps": "Ratio to RPS",
    "mc_mean": "Monte Carlo",
    "mc_se": "s.e.",
    "exact": "Exact",
    "error_bound_exact": "Error bound",
    "z": "$z$",
    "estimator": "Monte Carlo engine",
    "bounded": "s.e.~0",
    "bounded_disagree": "s.e.~0 off",
    "left_out": "Left out",
    "mean_low": r"Regret at $T_0$",
    "mean_high": r"Regret at $T_{\max}$",
    "reached": r"$T_0$ reached",
    "form_min": "Residual min",
    "form_max": "Residual max",
    "ratio_min": "Ratio min",
    "ratio_median": "Ratio median",
    "ratio_max": "Ratio max",
    "ratio_bound_max": "Max regret/eq.~(1)",
    "ratio_eq2_max": "Max regret/eq.~(2)",
    "ratio_lower_min": r"Min regret/$\mathrm{LB}_T$",
    "ratio_lower_max": r"Max regret/$\mathrm{LB}_T$",
    "slope": "Slope",
    "estimate": "Estimate",
    "paper": "Paper",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "a_logk": r"$a$ ($\log K$)",
    "b_logk": r"$b$ ($\log K$)",
    "chi2_logk": r"$\chi^2$ ($\log K$)",
    "a_log2k": r"$a$ ($\log^2 K$)",
    "b_log2k": r"$b$ ($\log^2 K$)",
    "chi2_log2k": r"$\chi^2$ ($\log^2 K$)",
    # privacy audit
    "loss": "Loss",
    "bound_selection": r"Bound ($2\eta$)",
    "ratio_eps": r"Loss/$\varepsilon$",
    "stat_lower": r"Stat.\ low",
    "stat_upper": r"Stat.\ high",
    # the proof's slack and the worst-instance searches
    "step": "Step",
    "part_of": "Part of",
    "min": "Min",
    "median": "Median",
    "max": "Max",
    "median_statistical": "Median (statistical)",
    "median_privacy": "Median (privacy)",
    "median_balanced": "Median (balanced)",
    "objective": "Objective",
    "found": "Found",
    "standard": "Standard",
    "found_over_standard": "Found/standard",
    "evaluations": "Evaluations",
    "unseen_margin": "Unseen margin",
    "mu_best": r"$\mu_1$",
}

#: columns that say which cell a row is (the others are what was measured in it)
PARAMETER_COLUMNS = ("K", "gap", "epsilon", "rho", "kappa", "horizon", "h_low", "h_high", "cells")

#: integer columns shown as powers of two (``2^{30}-1``) where they are ones: the horizons
POW2_COLUMNS = ("horizon", "h_low", "h_high")
#: text columns whose values are identifiers, set in code font (the worst-case searches'
#: objectives, e.g. ``rate_min``)
CODE_COLUMNS = ("objective",)
#: text columns whose values are plain-text mathematics (the proof's steps, e.g. "the groups
#: H_l"; the instances the searches found, "mu_1 0.246; gaps/Delta_min: 3 at 1"), typeset by
#: :func:`privdtol.report.latex.text.mathify`
MATH_COLUMNS = ("step", "part_of", "instance")

#: text values shown differently: column -> {value: LaTeX}
VALUES: dict[str, dict[str, str]] = {
    "role": {"negative_control": "negative control"},
    # the loss models' declarations (LossModel.label_tex, else their label escaped)
    "env": {n: c.label_tex or tex_escape(c.display_label()) for n, c in MODELS.items()},
    # the Monte Carlo estimators (privdtol.engine.fast, privdtol.engine.explicit)
    "estimator": {
        "block_rb": "block sums",
        "block_realized": "block sums",
        "uniform_round": "block sums",
        "per_round": "round by round",
    },
    # the figures' names of the experiments (mathtext is LaTeX): one definition
    "experiment": EXPERIMENT_NAMES,
    "axis": {
        "1/gap": r"$1/\Delta_{\min}$",
        "1/eps": r"$1/\varepsilon$",
        "log K": r"$\log K$",
        "logK": r"$\log K$",
    },
}
