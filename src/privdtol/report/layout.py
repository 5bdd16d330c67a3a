"""What the report says around the results, defined once: the title and figure caption of each
notebook's section, the caption and number precision of each table, and the header of each
table column.

The sections follow :data:`privdtol.analysis.registry.NOTEBOOKS` in figure order (a notebook's
figure number is its figure's number in the report); the claims a section discusses are the
registry's claims of that notebook.  The prose of a section is static text in
``paper/sections/experiments/<notebook>.tex``.
"""

from __future__ import annotations

from dataclasses import dataclass

from privdtol.analysis.claims.c3_horizon_free import PLATEAU_MARGIN
from privdtol.analysis.registry import CLAIMS
from privdtol.environments import MODELS
from privdtol.plotting.style import EXPERIMENT_NAMES
from privdtol.report.latex import tex_escape


@dataclass(frozen=True)
class Section:
    """The generated frame of one notebook's subsection (LaTeX)."""

    title: str
    figure_caption: str


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


#: notebooks whose subsection is in the appendix ("Further evidence"), not the main text: the
#: diagnostics' fits (C4a-C4c), engine agreement (C0), the ablations, the true floor (C8a,
#: C8b) and the separation from the prior bounds, none a claim of the paper; the main text keeps
#: the claims' evidence (and fits in 14 pages)
APPENDIX_SECTIONS = ("rates", "actions", "ablations", "agreement", "floor", "separation")

#: the regimes of a cell (:func:`privdtol.analysis.cells.regime`, the one definition), typeset:
#: the figures' panels, the tables and the findings name them so
REGIME_TEX = {
    "statistical": r"$\varepsilon > \Delta_{\min}$",
    "balanced": r"$\varepsilon = \Delta_{\min}$",
    "privacy": r"$\varepsilon < \Delta_{\min}$",
}
#: the regimes defined in one phrase (captions)
REGIMES_DEFINED = "; ".join(f"{k} {v}" for k, v in REGIME_TEX.items())

SECTIONS: dict[str, Section] = {
    "horizon": Section(
        "Horizon-freeness",
        r"Mean regret against the horizon $T$ (log scale, 95\% intervals); the black line is "
        r"the Theorem~1 bound of the panel, the shaded window the horizons of the C3 check "
        r"($T_0$ to $T_{\max}$).",
    ),
    "rates": Section(
        "Rates in the gap and in the privacy level",
        r"Final-horizon regret against $1/\Delta_{\min}$ and $1/\varepsilon$ (log--log), with "
        r"a slope-1 guide, the fit window shaded and the $\eta$-cap knee at "
        r"$\varepsilon = 1/4$; ringed (if any): RPS cells still rising at $T_{\max}$, which "
        r"the exponent fits of C4a and C4b leave out. Each panel gives the local slope of the "
        r"last three points and the diagnostic's whole-curve exponent (\S\ref{sec:rates}).",
    ),
    "actions": Section(
        "Dependence on the number of actions",
        r"Final-horizon regret against $\log K$; ringed (if any): RPS cells still rising at "
        r"$T_{\max}$, which the exponent fits of C4c leave out.",
    ),
    "heatmap": Section(
        "The rate over the whole grid",
        r"What C4 tests: RPS regret over the form $a\log K/\Delta_{\min} + b\log K/\eta + c$ "
        r"fitted once to the whole grid (the fit in the title), per cell; the colour scale "
        r"spans C4's band $[1/f, f]$, $f$ = \texttt{rate\_form\_factor}.",
    ),
    "bounds": Section(
        "Theorem 1 over the whole grid",
        r"Measured regret against the Theorem~1 bound (left; every point must lie below the "
        r"diagonal) and against the explicit lower bound $\mathrm{LB}_T$ that every "
        r"$\varepsilon$-DP algorithm must meet (right, standard-instance cells; every point "
        r"must lie above it), one point per distinct RPS cell at its largest horizon.",
    ),
    "lower": Section(
        "The lower side of Corollary 1",
        r"Each algorithm's regret over the explicit lower bound $\mathrm{LB}_T$ that every "
        r"$\varepsilon$-DP algorithm must meet (round by round the best of Fano's "
        r"inequality, group privacy under a coupling and a two-point term, "
        r"\texttt{privdtol lower-bound}), one point per standard-instance cell at its largest "
        r"horizon, against $\mathrm{LB}_T$ itself, one panel per regime present ("
        + REGIMES_DEFINED
        + r"). Filled: private algorithms, which must lie above the dashed line; hollow: "
        r"non-private ones, held against the bound at the $\varepsilon$ of their experiment.",
    ),
    "dependent": Section(
        "Dependent coordinates",
        r"RPS regret on the comparison cells under independent, correlated (a shared shock, "
        r"comonotone for $\rho > 0$, the best action against the others for $\rho < 0$) and "
        r"Beta losses, and under losses repeated in blocks (crosses: C5's control, not "
        r"independent across time), at each model's largest horizon (top; legend) and over "
        r"Theorem~1's bound there (bottom; dashed: the bound).",
    ),
    "ablations": Section(
        "Ablations",
        r"RPS against its ablations (whole-block prefix; $\eta = \varepsilon/2$ uncapped) "
        r"against $1/\varepsilon$.",
    ),
    "privacy": Section(
        "Privacy",
        r"Largest privacy loss found against $\varepsilon$, with the bounds $2\eta$ and "
        r"$\varepsilon$ as lines; negative controls included.",
    ),
    "agreement": Section(
        "Engine agreement",
        r"Monte Carlo mean minus exact expected regret, in Monte Carlo standard errors, for "
        r"every cell computed both ways and every checkpoint horizon (open diamonds: the "
        r"explicit round-by-round simulator); dashed: the limit of C0; hollow (if any): pairs "
        r"C0 leaves out as rare events; pairs with s.e.~0 are compared by a bound instead "
        # the table exists only when a config runs the agreement experiment
        r"\ifcsname r@tab:agreement\endcsname(Table~\ref{tab:agreement}) \fi and not drawn.",
    ),
    "proof": Section(
        "The proof, step by step",
        r"Left: per RPS cell and step of the proof of Theorem~1, the factor by which the "
        r"step's bound exceeds its exact value (1: tight; bold: Lemma~4, eqs.~(5) and (6), "
        r"Lemma~5, Theorem~1; the steps after eq.~(5) and eq.~(6) are their factors); "
        r"bars: medians. Right: exact left side over bound of each checked inequality ("
        + ", ".join(c.id for c in CLAIMS.values() if c.notebook == "proof")
        + r"), RPS (dots) and negative controls (crosses); dashed: the bound; hollow "
        r"triangles on the dotted line at $10^{-4}$: a left side of 0 (or a ratio below "
        r"$10^{-4}$), which the log axis cannot show.",
    ),
    "worst": Section(
        "The worst instance a search finds",
        r"(a) Per search, the most extreme value found over the standard instance's (for the "
        r"smallest $\mathrm{Reg}_T/\mathrm{LB}_T$, the inverse: right of the dashed line at 1 is "
        r"more extreme than the standard instance); hollow: the best of the unseen random "
        r"instances. (b) $\mathrm{Reg}_T/\mathrm{LB}_T$ from the smallest to the largest found, "
        r"the standard instance's marked. (c) The means of the instances found for RPS, best "
        r"action first; dashed: the standard instance.",
    ),
    "floor": Section(
        "The true floor",
        r"At each horizon $T$ of the small instances where it is computable, the true floor "
        r"$\mathrm{OPT}_T$ (black: the best regret of any $\varepsilon$-DP algorithm, an exact "
        r"linear program, \texttt{privdtol optimal}) beside the explicit lower bound "
        r"$\mathrm{LB}_T$ (grey: its best term, dashed; its statistical, privacy and two-point "
        r"terms, dotted) and every registered private algorithm's exact regret; one panel per "
        r"cell (rows: $K$ and $\Delta$; columns: $\varepsilon$).",
    ),
    "separation": Section(
        "The separation from the prior bounds",
        r"Regret over the paper's rate $\log K/\Delta_{\min} + \log K/\varepsilon$ in the "
        r"privacy regime (experiment \texttt{separation}, exact engine): (a) along the "
        r"horizon $T$ at the largest $K$ and smallest $\varepsilon$, (b) along $K$, (c) along "
        r"$1/\varepsilon$. Dotted: the shape of the algorithm's own prior bound (Hu et al.'s "
        r"$\log K \log T/\varepsilon$ in (a), Wu \& Wang's $\log^2 K/\varepsilon$ in (b) and "
        r"(c)) through one of the algorithm's points (in (a) the one nearest "
        r"$T_{\max}^{3/4}$, past the rise; else the first); a curve along it would show the "
        r"bound's extra factor.",
    ),
}

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
#: :func:`privdtol.report.latex.mathify`
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
