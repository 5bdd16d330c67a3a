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
# # Figure — the true floor: the best regret any ε-DP algorithm can reach
#
# On small instances (K = 2, 3; a few rounds) the smallest placement-averaged regret of any
# event-level $\varepsilon$-DP online algorithm, $\mathrm{OPT}_T$, is computed exactly by a
# linear program over the algorithm's law of action sequences (`privdtol optimal`, docs page
# "The true floor"). There $\mathrm{LB}_T \le \mathrm{OPT}_T \le \mathrm{Reg}_T$ of every
# $\varepsilon$-DP algorithm: $\mathrm{OPT}_T/\mathrm{LB}_T$ is the explicit bound's own
# looseness, $\mathrm{Reg}_T/\mathrm{OPT}_T$ the algorithm's distance from optimal (diagnostics
# C8a and C8b; their controls, follow-the-leader and `rps_hot`, fall below the floor). Each
# panel is one cell of the floor experiment (results/agg/floor.parquet), at every horizon.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# the config's thresholds of its claims (the notebook rule passes them; not drawn here)
thresholds = {}

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown

from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.notebook.narrative import checks_note

NAME = "floor"
style.setup()
floor = pd.read_parquet(Path(agg_dir) / "floor.parquet")
points = floor.drop_duplicates(["K", "gap", "epsilon", "horizon"])

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir, controls=True))

# %%
rows = list(points.groupby(["K", "gap"], sort=True).groups)
epsilons = sorted(points["epsilon"].unique())
fig, axes = plt.subplots(
    len(rows),
    len(epsilons),
    figsize=(style.WIDTH, 1.7 * len(rows) + 0.9),
    layout="constrained",
    sharex="row",
    squeeze=False,
)
terms = (("lb_statistical", "LB: Fano"), ("lb_privacy", "LB: group privacy"))
terms += (("lb_two_point", "LB: two points"),)
algorithms = style.order(floor.loc[floor["private"], "algorithm"].unique())
for (i, (K, gap)), (j, eps) in ((a, b) for a in enumerate(rows) for b in enumerate(epsilons)):
    ax = axes[i][j]
    cell = floor[(floor["K"] == K) & (floor["gap"] == gap) & (floor["epsilon"] == eps)]
    pts = cell.drop_duplicates("horizon").sort_values("horizon")
    for alg in algorithms:
        sub = cell[cell["algorithm"] == alg].sort_values("horizon")
        kw = style.style(alg)
        ax.plot(
            sub["horizon"],
            sub["regret"],
            color=kw["color"],
            marker=kw["marker"],
            markersize=2.5,
            linewidth=0.8,
            label=kw["label"],
            alpha=0.8,
        )
    for (col, label), shade in zip(terms, ("0.55", "0.7", "0.8"), strict=True):
        ax.plot(
            pts["horizon"],
            pts[col].clip(lower=0),
            color=shade,
            linestyle=":",
            linewidth=1,
            label=label,
        )
    ax.plot(
        pts["horizon"],
        pts["lb_best"],
        color="0.45",
        linestyle="--",
        linewidth=1.2,
        label=r"$\mathrm{LB}_T$ (best term)",
    )
    ax.plot(
        pts["horizon"],
        pts["optimal"],
        color="black",
        linewidth=1.6,
        label=r"$\mathrm{OPT}_T$ (true floor)",
    )
    ax.set_xticks(pts["horizon"])
    ax.set_title(rf"$K={K}$, $\Delta={gap:g}$, $\varepsilon={eps:g}$", fontsize="small")
    if j == 0:
        ax.set_ylabel("regret")
    if i == len(rows) - 1:
        ax.set_xlabel(r"horizon $T$")
style.legend_below(fig, axes.ravel().tolist(), ncol=4)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `floor`
# Per cell at its largest horizon: $\mathrm{OPT}_T$, $\mathrm{LB}_T$ (best term), the
# looseness $\mathrm{OPT}_T/\mathrm{LB}_T$ (best and `combined` terms), RPS's
# $\mathrm{Reg}_T/\mathrm{OPT}_T$ and the best registered private algorithm's.

# %%
last = floor[floor["horizon"] == floor.groupby(["K", "gap", "epsilon"])["horizon"].transform("max")]
private = last[last["private"]]
best = private.loc[private.groupby(["K", "gap", "epsilon"])["regret"].idxmin()]
rps = private[private["algorithm"] == "rps"].set_index(["K", "gap", "epsilon"])["regret"]
table = best.assign(
    opt_over_lb=best["optimal"] / best["lb_best"],
    opt_over_combined=best["optimal"] / best["lb_combined"],
    rps_over_opt=(
        rps.reindex(pd.MultiIndex.from_frame(best[["K", "gap", "epsilon"]])).to_numpy()
        / best["optimal"].to_numpy()
    ),
    best_private=best["algorithm"],
    best_over_opt=best["regret"] / best["optimal"],
)[
    [
        "K",
        "gap",
        "epsilon",
        "horizon",
        "optimal",
        "lb_best",
        "opt_over_lb",
        "opt_over_combined",
        "rps_over_opt",
        "best_private",
        "best_over_opt",
    ]
]
write_table(table, Path(out_dir) / "tables" / "floor.csv")
display_table(table, "floor")

# %%
Markdown(table_note(NAME, "floor"))
