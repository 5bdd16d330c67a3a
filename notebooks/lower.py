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
# # Figure — the lower side of Corollary 1: regret over what every ε-DP algorithm must pay
#
# $\mathrm{LB}_T$ is an explicit lower bound on the regret of every $\varepsilon$-DP algorithm on
# the standard two-level instance (Fano's inequality for the statistical term, group privacy
# under a coupling for the privacy term; `privdtol lower-bound`, docs page "The lower bound").
# Each point is one algorithm on one standard-instance cell at its largest horizon, where both
# its regret and $\mathrm{LB}_T$ have stopped growing: the factor it pays above the unavoidable.
# A private algorithm below 1 would not be $\varepsilon$-DP (claim C6); RPS's ratio must stay
# bounded over $\log K$, $1/\Delta_{\min}$, $1/\varepsilon$ and $T$ (claim C7). Non-private
# algorithms are held against the bound at the $\varepsilon$ of their experiment: what being
# $\varepsilon$-DP would cost them. The points come from C6's check record.

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
import pandas as pd
from IPython.display import Markdown

from privdtol.analysis.cells import regime
from privdtol.analysis.records import read_check
from privdtol.analysis.registry import notebook_claims
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.latex.layout import REGIME_TEX
from privdtol.report.notebook.narrative import checks_note

NAME = "lower"
style.setup()
checks = {c: read_check(Path(checks_dir) / f"{c}.json") for c in notebook_claims(NAME)}
record = checks.get("C6") or {"cells": []}
cells = pd.DataFrame(record["cells"])
if not cells.empty:
    cells = cells[cells["algorithm"].isin(style.order(cells["algorithm"].unique()))]
    cells = cells.assign(regime=regime(cells["gap"], cells["epsilon"]))

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %%
# one panel per regime present (privdtol.analysis.cells.regime, the table's definition)
present = set(cells["regime"]) if not cells.empty else {"statistical", "privacy"}
panels = [(k, rf"{k} regime ({v})") for k, v in REGIME_TEX.items() if k in present]
fig, axes = plt.subplots(
    1,
    len(panels),
    figsize=(style.WIDTH, 3.3),
    layout="constrained",
    sharex=True,
    sharey=True,
    squeeze=False,
)
axes = axes[0]
for ax, (name, title) in zip(axes, panels, strict=True):
    sub = cells[cells["regime"] == name] if not cells.empty else pd.DataFrame(columns=["algorithm"])
    for alg in style.order(sub["algorithm"].unique()):
        pts = sub[sub["algorithm"] == alg]
        kw = style.style(alg)
        private = bool(pts["private"].iloc[0])
        ax.plot(
            pts["lb"],
            pts["ratio"],
            linestyle="none",
            marker=kw["marker"],
            markersize=3.5 if private else 4.5,
            markeredgewidth=0.6 if private else 1.1,
            color=kw["color"],
            markerfacecolor=kw["color"] if private else "none",
            label=kw["label"],
            alpha=0.85,
        )
    ax.axhline(1.0, color="0.3", linewidth=1, linestyle="--")
    ax.set(xscale="log", yscale="log", xlabel=r"$\mathrm{LB}_T$", title=title)
axes[0].set_ylabel(r"regret / $\mathrm{LB}_T$")
style.legend_below(fig, axes, ncol=4)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `lower`
# Per algorithm and regime: the number of standard-instance cells, the smallest, median and
# largest regret over $\mathrm{LB}_T$ at the cells' largest horizon, and the smallest ratio over
# every checkpoint horizon (at $T = 1$ every algorithm whose first action is uniform meets the
# bound with equality).

# %%
if cells.empty:
    table = pd.DataFrame(
        columns=[
            "algorithm",
            "private",
            "regime",
            "cells",
            "min",
            "median",
            "max",
            "min_any_horizon",
        ]
    )
else:
    table = (
        cells.groupby(["algorithm", "private", "regime"], sort=False)
        .agg(
            cells=("ratio", "size"),
            min=("ratio", "min"),
            median=("ratio", "median"),
            max=("ratio", "max"),
            min_any_horizon=("ratio_min", "min"),
        )
        .reset_index()
    )
    table["private"] = np.where(table["private"], "yes", "no")
write_table(table, Path(out_dir) / "tables" / "lower.csv")
display_table(table, "lower")

# %%
Markdown(table_note(NAME, "lower"))
