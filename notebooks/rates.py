# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   language_info:
#     name: python
# ---

# %% [markdown]
# # Figure — regret against $1/\Delta_{\min}$ and against $1/\varepsilon$
#
# Left: the statistical regime ($\varepsilon \ge 1$, so $\eta = 1/8$), regret at $T_{\max}$
# against $1/\Delta_{\min}$. Right: the privacy regime ($\Delta_{\min} = 1/2$), regret against
# $1/\varepsilon$. Log–log axes, 95% intervals; the RPS fit over the shaded window, a slope-1
# guide (the paper's rate is linear in both) and, on the right, the knee at $\varepsilon = 1/4$
# where the cap $\eta \le 1/8$ stops binding. Ringed: RPS cells whose regret is still rising at
# $T_{\max}$ (by more than `horizon_free_ratio_max` over its last `plateau_octaves` octaves),
# which the C4a/C4b exponent fits leave out.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# display only: the level of the intervals shown and the points per fitted line
confidence = 0.95
n_points = 3
# the config's thresholds of C4a/C4b (the notebook rule passes them; by hand: the schema's)
thresholds = {}

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown

from privdtol.analysis.cells import plateau_ratio
from privdtol.analysis.claims.c4_rate import slope_series
from privdtol.analysis.records import load_agg, read_check
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.pipeline.config import check_defaults
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.notebook.narrative import checks_note

NAME = "rates"
style.setup()
tables = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)
limits = {**check_defaults(), **thresholds}
gap_fin = plateau_ratio(tables["gap"], limits["plateau_octaves"])
gap_fin = gap_fin[(gap_fin["epsilon"] >= 1) | gap_fin["epsilon"].isna()]
eps_fin = plateau_ratio(tables["epsilon"], limits["plateau_octaves"])
eps_fin = eps_fin[np.isclose(eps_fin["gap"], 0.5)]
gap_fin = gap_fin.assign(x=1 / gap_fin["gap"])
eps_fin = eps_fin.assign(x=1 / eps_fin["epsilon"])

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %%
# the exponent each diagnostic fits (C4a: p of (log K/gap)^p, C4b: q of (log K/eps)^q), over all
# plateaued cells with the other term and the constant held at their fitted values: a different
# statistic from the local slope of the last points drawn here (it sees the whole curve, whose
# bend before the asymptote pulls it above 1)
exponent_of = {}
for claim, axis, sym in (("C4a", "1/gap", "p"), ("C4b", "1/eps", "q")):
    rec = read_check(Path(checks_dir) / f"{claim}.json")
    if rec and rec.get("statistic") is not None:
        lo, hi = rec.get("ci_low"), rec.get("ci_high")
        ci = f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else ""
        exponent_of[axis] = f"\n{claim}'s whole-curve {sym} = {rec['statistic']:.2f}{ci}"
fig, axes = plt.subplots(1, 2, figsize=(style.WIDTH, 3.6), layout="constrained")
slopes = []
notes = {}
for ax, fin, axis, xlabel in (
    (axes[0], gap_fin, "1/gap", r"$1/\Delta_{\min}$"),
    (axes[1], eps_fin, "1/eps", r"$1/\varepsilon$"),
):
    for alg in style.order(fin["algorithm"].unique()):
        sub = fin[fin["algorithm"] == alg]
        # one line per remaining parameter combination (normally one)
        for _, s in sub.groupby(["K", "gap" if axis == "1/eps" else "epsilon"], dropna=False):
            style.algorithm_band(ax, s, "x", alg)
        for ser in slope_series(sub, axis, ["K"], n_points, confidence):
            slopes.append({"algorithm": alg, **ser})
            if alg == "rps" and np.isfinite(ser["slope"]):
                xs = np.array(ser["x"])
                ys = np.exp(ser["intercept"] + ser["slope"] * np.log(xs))
                # the fit window (the points the check fits), the fit, and the paper's slope 1
                ax.axvspan(xs.min() / 1.15, xs.max() * 1.15, color="0.85", zorder=0, lw=0)
                ax.plot(xs, ys, color="black", lw=1.6, zorder=5, label="RPS fit (shaded window)")
                x1 = np.array([fin["x"].min(), fin["x"].max()])
                ax.plot(
                    x1,
                    ys[-1] * x1 / xs[-1],
                    color="0.4",
                    ls=":",
                    lw=1.2,
                    zorder=4,
                    label="slope 1 (the paper)",
                )
                # in the panel's title (a box inside the axes covered data points)
                notes[axis] = (
                    f"RPS local slope {ser['slope']:.2f} (last {len(xs)} points)"
                    + exponent_of.get(axis, "").replace(" (whole-curve fit)", "")
                )
    style.mark_rising(ax, fin[fin["algorithm"] == "rps"], "x", limits["horizon_free_ratio_max"])
    ax.set(xscale="log", yscale="log", xlabel=xlabel)
    ax.set_xscale("log", base=2)
    style.dyadic_ticks(ax, fin["x"])
if len(eps_fin):
    axes[1].axvline(4, color="tab:red", lw=0.9, ls="--", zorder=3)
    axes[1].annotate(
        r"$\eta$-cap knee" + "\n" + r"$\varepsilon = 1/4$",
        (4, 0.97),
        xycoords=("data", "axes fraction"),
        xytext=(4, 0),
        textcoords="offset points",
        va="top",
        fontsize=8,
        color="tab:red",
    )
for ax, axis, title in (
    (axes[0], "1/gap", r"statistical regime ($\varepsilon \geq 1$)"),
    (axes[1], "1/eps", r"privacy regime ($\Delta_{\min} = 1/2$)"),
):
    note = notes.get(axis)
    ax.set_title(title + (f"\n{note}" if note else ""), fontsize=8 if note else None)
axes[0].set_ylabel(r"regret at $T_{\max}$ (95% CI)")
style.legend_below(fig, axes)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `rates`: fitted log–log slopes over the three largest $x$ values
# Columns: algorithm id, axis (`1/gap` or `1/eps`), K, the slope and its confidence interval.

# %%
sl = pd.DataFrame(slopes)
table = pd.DataFrame(
    {
        "algorithm": sl["algorithm"],
        "axis": sl["axis"],
        "K": sl["K"],
        "slope": sl["slope"],
        "ci_low": sl["ci_low"],
        "ci_high": sl["ci_high"],
    }
)
write_table(table, Path(out_dir) / "tables" / "rates.csv")
display_table(table, "rates")

# %%
Markdown(table_note(NAME, "rates"))
