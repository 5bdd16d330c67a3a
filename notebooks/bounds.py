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
# # Figure — measured regret between Theorem 1 and the explicit lower bound
#
# One point per RPS cell of every regret experiment, at its largest horizon. Left: regret
# against the Theorem 1 bound $1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$; every point must
# lie below the diagonal. Right: regret against $\mathrm{LB}_T$, the explicit lower bound every
# $\varepsilon$-DP algorithm must meet on the standard instance (Fano and group privacy,
# `privdtol lower-bound`; claim C6); every point must lie above the diagonal. The table adds
# eq. (2)'s bound (C2b).

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
from IPython.display import Markdown

from privdtol.analysis.cells import dedupe_cells, final_rows, select, stack
from privdtol.analysis.claim_types import BOUNDS_TABLE
from privdtol.analysis.price import final_prices, price_table
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.core import bounds
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.notebook.narrative import checks_note

NAME = "bounds"
style.setup()
tables = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)
lower_bounds = tables.pop(BOUNDS_TABLE, None)  # LB_T of every standard cell, computed once
df = stack(tables)
rps = select(df, "rps", "bernoulli")
fin = dedupe_cells(final_rows(rps))
fin = fin.assign(
    bound=bounds.theorem1(fin["K"], fin["gap"], fin["epsilon"]),
    bound_eq2=bounds.corollary(fin["K"], fin["gap"], fin["epsilon"]),
)
# LB_T of each standard-instance cell at its largest horizon (other instances have none)
lower = final_prices(price_table(select(df, "rps"), 0.95, lower_bounds))
keys = ["K", "gap", "epsilon", "mu_best", "instance"]
if len(lower):
    lb = lower[[*keys, "lb"]].drop_duplicates(keys).rename(columns={"lb": "lower"})
    fin = fin.merge(lb, on=keys, how="left")
else:
    fin = fin.assign(lower=np.nan)

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %%
fig, axes = plt.subplots(1, 2, figsize=(style.WIDTH, 3.3), layout="constrained")
for ax, xcol, xlabel in (
    (axes[0], "bound", "Theorem 1 bound"),
    (axes[1], "lower", r"lower bound $\mathrm{LB}_T$ (any $\varepsilon$-DP algorithm)"),
):
    shown = fin[np.isfinite(fin[xcol])]
    for j, (exp, sub) in enumerate(shown.groupby("experiment", sort=True)):
        err = np.vstack(
            [sub["mean"] - np.maximum(sub["ci_low"], 1e-300), sub["ci_high"] - sub["mean"]]
        )
        ax.errorbar(
            sub[xcol],
            sub["mean"],
            yerr=err,
            fmt="os^vD"[j % 5],
            markersize=3,
            linestyle="none",
            label=style.EXPERIMENT_NAMES.get(exp, exp),
            elinewidth=0.8,
            alpha=0.85,
        )
    if shown.empty:
        continue
    lim = np.array([shown[xcol].min() / 2, shown[xcol].max() * 2])
    ax.plot(
        lim,
        lim,
        color="0.3",
        linewidth=1,
        linestyle="--" if xcol == "bound" else ":",
        label="Theorem 1 ($y = x$)" if xcol == "bound" else r"$\mathrm{LB}_T$ ($y = x$)",
    )
    ax.set(xscale="log", yscale="log", xlabel=xlabel)
axes[0].set_ylabel("RPS regret (95% CI)")
axes[0].set_title("against Theorem 1")
axes[1].set_title("against the explicit lower bound")
style.legend_below(fig, axes, ncol=3)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `bounds`
# Per experiment, the number of distinct RPS cells (a cell shared by two experiments is counted
# under the first) and the range of regret over the Theorem 1 bounds, eq. (1) and eq. (2), and
# over the explicit lower bound $\mathrm{LB}_T$ (standard-instance cells) at the largest horizon.
# The fitted constants of the rate form are a finding (`results/findings.json`), not a claim.

# %%
summ = (
    fin.assign(
        r_bound=fin["mean"] / fin["bound"],
        r_eq2=fin["mean"] / fin["bound_eq2"],
        r_lower=fin["mean"] / fin["lower"],
    )
    .groupby("experiment")
    .agg(
        cells=("mean", "size"),
        ratio_bound_max=("r_bound", "max"),
        ratio_eq2_max=("r_eq2", "max"),
        ratio_lower_min=("r_lower", "min"),
        ratio_lower_max=("r_lower", "max"),
    )
    .reset_index()
)
write_table(summ, Path(out_dir) / "tables" / "bounds.csv")
display_table(summ, "bounds")

# %%
Markdown(table_note(NAME, "bounds"))
