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
# # Figure — the worst instance a search finds
#
# Theorem 1 holds for every i.i.d. loss process with a unique best action, and Corollary 1's
# $\Theta$ for every instance of a class; the other figures evaluate them on two instance
# families. Each search (one algorithm and $(K, \Delta_{\min}, \varepsilon)$;
# `privdtol.engine.worst_case`) computes instances exactly, from the standard one, and keeps
# the most extreme for three objectives: the largest $\mathrm{Reg}_T$ over Theorem 1's bound,
# and the largest and smallest $\mathrm{Reg}_T / \mathrm{LB}_T$. (a) Per search, the value
# found relative to the standard instance's (oriented so that $\ge 1$ means more extreme;
# hollow: the best unseen random instance). (b) The band $\mathrm{Reg}_T/\mathrm{LB}_T$ from
# the smallest to the largest found, the standard instance marked. (c) The means of rps's
# instances found, best action first. The values are the most extreme found, not the extremes
# over instances.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# the config's thresholds of its claims (the notebook rule passes them; not drawn here)
thresholds = {}

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.ticker import MaxNLocator

from privdtol.analysis.findings import worst_case
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.engine.worst_case import OBJECTIVES
from privdtol.pipeline.io import write_table
from privdtol.plotting import style

NAME = "worst"
style.setup()
searches = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["searches"]
colours = sns.color_palette("colorblind", 10)
OBJECTIVE = {  # label, colour, marker, offset within a search's row
    "theorem1": ("max Reg / Theorem 1's bound", colours[0], "o", -0.25),
    "lower_max": (r"max Reg / $\mathrm{LB}_T$", colours[3], "^", 0.0),
    "lower_min": (r"min Reg / $\mathrm{LB}_T$", colours[2], "v", 0.25),
}
STANDARD = {"color": "0.45", "linestyle": "--", "linewidth": 1.0}
rank = {a: i for i, a in enumerate(style.order(searches["algorithm"].unique()))}
runs = worst_case.searches_of(searches)
runs = runs.assign(_r=runs["algorithm"].map(rank)).sort_values(["_r", "K", "epsilon"])
row = {sid: i for i, sid in enumerate(runs["search_id"])}


def sign(objective):
    return OBJECTIVES[objective][1]


# %%
heights = (0.22 * len(runs) + 1.1, 2.3)  # inches: a row per search; the profiles
fig = plt.figure(figsize=(style.WIDTH, sum(heights) + 0.5), layout="constrained")
top, bottom = fig.subfigures(2, 1, height_ratios=heights)
ax_a, ax_b = top.subplots(1, 2, sharey=True)
for objective, (label, colour, marker, dy) in OBJECTIVE.items():
    rows = searches[searches["objective"] == objective]
    y = rows["search_id"].map(row) + dy
    s = sign(objective)
    ax_a.plot((rows["value"] / rows["standard_value"]) ** s, y, marker, color=colour, label=label)
    ax_a.plot(
        (rows["unseen_value"] / rows["standard_value"]) ** s,
        y,
        marker,
        color=colour,
        markerfacecolor="none",
    )
ax_a.plot([], [], "o", color="0.3", markerfacecolor="none", label="best unseen instance")
ax_a.axvline(1, **STANDARD)
ax_a.plot([], [], marker="|", markersize=8, label="standard instance", **STANDARD)
ax_a.set(
    xscale="log",
    xlabel="found / standard (min: standard / found)",
    title="(a) found / standard instance",
)
style.plain_log_ticks(ax_a, "x")
for ax in (ax_a, ax_b):
    for i in np.flatnonzero(np.diff(runs["_r"].to_numpy())):
        ax.axhline(i + 0.5, color="0.8", linewidth=0.8)
ax_a.set_yticks(
    range(len(runs)),
    [
        f"{style.ALGORITHM_NAMES.get(r['algorithm'], r['algorithm'])}, K={r['K']}, "
        f"ε={style.pow2_label(r['epsilon'])}"
        for _, r in runs.iterrows()
    ],
)
ax_a.set_ylim(len(runs) - 0.5, -0.5)
ax_a.tick_params(axis="y", which="both", left=False)
ax_a.grid(axis="y", visible=False)
# (b) the band of Reg / LB_T over the instances found, per search
band = searches[searches["objective"].isin(["lower_min", "lower_max"])]
for sid, g in band.groupby("search_id"):
    y = row[sid]
    ax_b.plot([g["value"].min(), g["value"].max()], [y, y], color="0.25", linewidth=1.6)
    for _, r in g.iterrows():
        _, colour, marker, _ = OBJECTIVE[r["objective"]]
        ax_b.plot(r["value"], y, marker, color=colour, zorder=3)
    ax_b.plot(
        g["standard_value"].iloc[0],
        y,
        "|",
        markersize=10,
        markeredgewidth=1.5,
        color=STANDARD["color"],
        zorder=4,
    )
ax_b.set(
    xscale="log", xlabel=r"Reg / $\mathrm{LB}_T$", title=r"(b) the band of Reg / $\mathrm{LB}_T$"
)
style.plain_log_ticks(ax_b, "x")
ax_b.tick_params(axis="y", which="both", left=False)
ax_b.grid(axis="y", visible=False)
# (c) the means of the instances found for one algorithm, best action first
profiled = "rps" if "rps" in rank else min(rank, key=rank.get)
axes_c = bottom.subplots(1, len(OBJECTIVE), sharey=True)
mine = runs[runs["algorithm"] == profiled]
hues, lines = (1, 9, 4, 5, 8), (("o", "-"), ("s", ":"), ("^", "-."))
eps_colour = {e: colours[hues[i % 5]] for i, e in enumerate(sorted(mine["epsilon"].unique()))}
K_style = {K: lines[i % 3] for i, K in enumerate(sorted(mine["K"].unique()))}
for ax, (objective, (label, *_)) in zip(axes_c, OBJECTIVE.items(), strict=True):
    rows = searches[(searches["algorithm"] == profiled) & (searches["objective"] == objective)]
    for means in rows["standard_means"].unique():
        mu = np.array(means.split(), dtype=float)
        ax.plot(np.arange(1, mu.size + 1), mu, zorder=1, **STANDARD)
    for _, r in rows.sort_values(["K", "epsilon"]).iterrows():
        mu = np.array(r["means"].split(), dtype=float)
        marker, ls = K_style[r["K"]]
        colour = eps_colour[r["epsilon"]]
        ax.plot(
            np.arange(1, mu.size + 1),
            mu,
            color=colour,
            marker=marker,
            linestyle=ls,
            markersize=3,
            label=f"{profiled}: K={r['K']}, ε={style.pow2_label(r['epsilon'])}",
        )
    ax.set(title=label, xlabel="action (best first)", ylim=(-0.03, 1.03))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
axes_c[0].set_ylabel("mean loss")
bottom.suptitle(f"(c) the instances found for {profiled}", fontsize=9)
style.legend_below(fig, [ax_a, ax_b, *axes_c], ncol=4)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the findings)

# %%
from IPython.display import Markdown

from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `worst`
# Per search and objective: the value found, the standard instance's, their ratio, the instance
# found, the search's exact evaluations and the unseen margin (how much the best unseen random
# instance beats the value found, relative; negative: it does not).

# %%
summ = worst_case.table(searches)
write_table(summ, Path(out_dir) / "tables" / "worst.csv")
display_table(summ, "worst")

# %%
Markdown(table_note(NAME, "worst"))
