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
# # Figure — ablations: the random prefix and the cap on $\eta$
#
# Regret at $T_{\max}$ against $1/\varepsilon$ (log–log, 95% intervals) of RPS and its two
# ablations: the exponential mechanism on the whole previous block (`rps_full_prefix`,
# $M_r = 2^r$) and $\eta = \varepsilon/2$ without the cap $1/8$ (`rps_uncapped`; it differs from
# RPS only for $\varepsilon > 1/4$, left of the dashed knee). One panel per
# $(K, \Delta_{\min})$. No claim is checked here: the ablations show what the two ingredients
# of the analysis cost.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# display only: the level of the intervals of the ratios tabulated
confidence = 0.95
# the config's thresholds of its claims (the notebook rule passes them; not drawn here)
thresholds = {}

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import final_rows
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.pipeline.io import write_table
from privdtol.plotting import style

NAME = "ablations"
style.setup()
df = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["ablations"]

# %%
fin = final_rows(df)
fin = fin.assign(x=1 / fin["epsilon"])
panels = fin[["K", "gap"]].drop_duplicates().sort_values(["K", "gap"], ascending=[True, False])
nc = min(len(panels), 2)
nr = -(-len(panels) // nc)
fig, axes = plt.subplots(
    nr, nc, figsize=(style.WIDTH, 1.75 * nr + 0.55), squeeze=False, layout="constrained"
)
for ax, (_, p) in zip(axes.flat, panels.iterrows(), strict=False):
    sub = fin[(fin["K"] == p["K"]) & np.isclose(fin["gap"], p["gap"])]
    for alg in style.order(sub["algorithm"].unique()):
        style.algorithm_band(ax, sub, "x", alg)
    # eps = 1/4: the cap eta <= 1/8 binds for larger eps (1/eps < 4)
    ax.axvline(
        4,
        color="tab:red",
        linewidth=0.9,
        linestyle="--",
        label=r"$\eta$-cap knee, $\varepsilon = 1/4$",
    )
    gap = style.pow2_label(p["gap"])
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"$1/\varepsilon$",
        title=f"$K = {p['K']:g}$, $\\Delta_{{\\min}}$ = {gap}",
    )
    ax.set_xscale("log", base=2)
    style.dyadic_ticks(ax, sub["x"])
    style.plain_log_ticks(ax)
for ax in list(axes.flat)[len(panels) :]:
    ax.set_visible(False)
for ax in axes[:, 0]:
    ax.set_ylabel(r"regret at $T_{\max}$ (95% CI)")
style.legend_below(fig, axes, ncol=4)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from IPython.display import Markdown

from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `ablations`: regret at the largest horizon, and ratio to RPS
# One row per ablation cell: algorithm id, $K$, $\Delta_{\min}$, $\varepsilon$, its regret, the
# ratio to RPS's regret in the same cell and its delta-method interval (`ci_low`, `ci_high`).

# %%
base = fin[fin["algorithm"] == "rps"].set_index(["K", "gap", "epsilon"])
rows = []
for _, r in fin[fin["algorithm"] != "rps"].iterrows():
    b = base.loc[(r["K"], r["gap"], r["epsilon"])]
    ratio, _, lo, hi = stats.ratio_ci(r["mean"], r["se"], b["mean"], b["se"], confidence)
    rows.append(
        {
            "algorithm": r["algorithm"],
            "K": r["K"],
            "gap": r["gap"],
            "epsilon": r["epsilon"],
            "regret": r["mean"],
            "ratio_to_rps": float(ratio),
            "ci_low": float(lo),
            "ci_high": float(hi),
        }
    )
table = pd.DataFrame(
    rows,
    columns=["algorithm", "K", "gap", "epsilon", "regret", "ratio_to_rps", "ci_low", "ci_high"],
)
write_table(table, Path(out_dir) / "tables" / "ablations.csv")
display_table(table, "ablations")

# %%
Markdown(table_note(NAME, "ablations"))
