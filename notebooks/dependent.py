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
# # Figure — regret under dependent coordinates
#
# RPS regret per $(\Delta_{\min}, \varepsilon)$ cell of the comparison slices (the cells with an
# independent-Bernoulli baseline) under independent Bernoulli, correlated Bernoulli (a shared
# shock with probability $|\rho|$: comonotone for $\rho > 0$, the best action against the others
# for $\rho < 0$), Beta($\kappa$) losses, and the control that breaks independence across time
# (losses repeated in blocks): at each model's largest horizon (top; the legend gives it) and over
# the Theorem 1 bound there (bottom; the line is the bound). The theorem assumes only
# independence across rounds. The rate slices of the experiment (many gaps, one model each) are
# the dependent-rate finding's, not this figure's.

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
from IPython.display import Markdown

from privdtol.analysis.cells import final_rows, select
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.core import bounds
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.notebook.narrative import checks_note

NAME = "dependent"
style.setup()
df = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["dependent"]
rps = select(df, "rps")
# the comparison cells: those with an independent-Bernoulli baseline
base = rps.loc[rps["env"] == "bernoulli", ["K", "gap", "epsilon"]].drop_duplicates()
rps = rps.merge(base, on=["K", "gap", "epsilon"])
rps = rps.assign(
    cell=[f"{g!r}/{e!r}" for g, e in zip(rps["gap"], rps["epsilon"], strict=True)],
    gap_eps=list(zip(rps["gap"], rps["epsilon"], strict=True)),
    model=style.model_labels(rps),
)
own = final_rows(rps)
own = own.assign(ratio=own["mean"] / bounds.theorem1(own["K"], own["gap"], own["epsilon"]))
# the table: the largest horizon every model of a cell reaches (a common horizon)
maxh = rps.groupby(["cell", "model"])["horizon"].max().groupby("cell").min()
common = rps[rps["horizon"] == rps["cell"].map(maxh)]

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %%
envs = style.model_order(rps)
order = rps.drop_duplicates("cell").sort_values("gap_eps", ascending=False)
cells = list(order["cell"])
pos = {c: i for i, c in enumerate(cells)}
width = 0.8 / max(len(envs), 1)
colours = dict(zip(envs, sns.color_palette("colorblind", len(envs)), strict=True))
horizon_of = own.groupby("model")["horizon"].max()
fig, axes = plt.subplots(2, 1, figsize=(style.WIDTH, 4.6), sharex=True, layout="constrained")
for k, env in enumerate(envs):
    sub = own[own["model"] == env]
    control = (sub["env"] == "blocked").all()
    x = sub["cell"].map(pos).to_numpy() + (k - (len(envs) - 1) / 2) * width
    b = bounds.theorem1(sub["K"], sub["gap"], sub["epsilon"])
    for ax, y, lo, hi in (
        (axes[0], sub["mean"], sub["ci_low"], sub["ci_high"]),
        (axes[1], sub["ratio"], sub["ci_low"] / b, sub["ci_high"] / b),
    ):
        err = np.vstack([y - np.maximum(lo, 1e-300), hi - y])
        ax.errorbar(
            x,
            y,
            yerr=err,
            fmt="x" if control else "o",
            markersize=4 if control else 3,
            color="0.3" if control else colours[env],
            label=f"{env} ($T = 2^{{{int(horizon_of[env] + 1).bit_length() - 1}}}-1$)"
            if ax is axes[0]
            else None,
            elinewidth=0.9,
            capsize=2,
        )
axes[1].axhline(1.0, color="0.2", lw=1, ls="--", label="Theorem 1 bound (ratio 1)")
# cells grouped by gap (a label per group above the top panel), epsilon on the ticks
groups = order.groupby("gap", sort=False)["cell"].agg(list)
for ax in axes:
    ax.set_yscale("log")  # default decade ticks: the control is 10^5 times the others
    for members in list(groups)[1:]:
        ax.axvline(pos[members[0]] - 0.5, color="0.6", lw=0.8)
for gap, members in groups.items():
    centre = (pos[members[0]] + pos[members[-1]]) / 2
    axes[0].annotate(
        rf"$\Delta_{{\min}}$ = {style.pow2_label(gap)}",
        (centre, 1.0),
        xycoords=("data", "axes fraction"),
        xytext=(0, 3),
        textcoords="offset points",
        ha="center",
        va="bottom",
    )
axes[1].set_xticks(range(len(cells)), [style.pow2_label(e) for _, e in order["gap_eps"]])
axes[1].set_xlabel(r"$\varepsilon$ (cells grouped by $\Delta_{\min}$)")
axes[0].set_ylabel("regret (at $T$\nof the legend)")
axes[1].set_ylabel("regret / Theorem 1\nbound (same $T$)")
style.legend_below(fig, axes, ncol=2)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `dependent`: RPS regret per cell and loss model at the common horizon
# One row per ($\Delta_{\min}$, $\varepsilon$, loss model) of the comparison cells: `env` with its
# parameter ($\rho$ for correlated, $\kappa$ for Beta), the largest `horizon` every model of the
# cell reaches (a common horizon), the mean regret and its 95% interval. The report pivots it: one
# column per loss model.

# %%
rank = {label: i for i, label in enumerate(envs)}
table = (
    common.assign(_cell=common["cell"].map(pos), _model=common["model"].map(rank))
    .sort_values(["_cell", "_model"])[
        ["gap", "epsilon", "env", "rho", "kappa", "horizon", "mean", "ci_low", "ci_high"]
    ]
    .reset_index(drop=True)
)
write_table(table, Path(out_dir) / "tables" / "dependent.csv")
display_table(table, "dependent")

# %%
Markdown(table_note(NAME, "dependent"))
