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
# # Figure — regret against the horizon $T$: is it horizon-free?
#
# Mean regret of every algorithm against $T$ (log–log, 95% intervals), one panel per
# $(K, \Delta_{\min}, \varepsilon)$ cell of the `horizon` experiment, with the Theorem 1 bound
# $1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$ (black) and the window $[T_0, T_{\max}]$ of the
# horizon-free check (shaded). A horizon-free regret is flat in the window. The claims this
# figure shows, their verdicts and what the data say are generated below from the check records
# (this notebook only plots and tabulates).

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# the config's thresholds of C3 (the notebook rule passes them; by hand: the schema's): the
# level of the intervals shown and the constant c of the window's start T0
thresholds = {}

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown

from privdtol.analysis.claims.c3_horizon_free import plateau_table
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.pipeline.config import check_defaults
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.notebook.narrative import checks_note

NAME = "horizon"
style.setup()
limits = {**check_defaults(), **thresholds}
confidence, horizon_free_c = limits["confidence"], limits["horizon_free_c"]
df = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["horizon"]

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %% [markdown]
# ## Figure: one panel per $(K, \Delta_{\min}, \varepsilon)$ cell of the `horizon` experiment
# Non-private algorithms (FTL, Hedge) have no $\varepsilon$ and appear in every panel with their
# $K$ and $\Delta_{\min}$.

# %%
priv = df[np.isfinite(df["epsilon"])]
rows_k = sorted(priv["K"].unique())
cols = priv[["gap", "epsilon"]].drop_duplicates().sort_values(["gap", "epsilon"], ascending=False)
nr, nc = len(rows_k), len(cols)
# the C3 window of each rps cell: from its plateau horizon T0 to T_max
window = plateau_table(df[df["algorithm"] == "rps"], horizon_free_c, confidence)
fig, axes = plt.subplots(
    nr,
    nc,
    figsize=(style.WIDTH, 1.75 * nr + 1.0),
    sharex=True,
    sharey="row",
    squeeze=False,
    layout="constrained",
)
for i, k in enumerate(rows_k):
    for j, (_, p) in enumerate(cols.iterrows()):
        ax = axes[i, j]
        sub = df[
            (df["K"] == k)
            & np.isclose(df["gap"], p["gap"])
            & (np.isclose(df["epsilon"], p["epsilon"]) | df["epsilon"].isna())
        ]
        for alg in style.order(sub["algorithm"].unique()):
            style.algorithm_band(ax, sub, "horizon", alg, markevery=3)
        rps = sub[sub["algorithm"] == "rps"]
        if len(rps):  # Theorem 1's bound (the same for every T)
            ax.axhline(rps["bound_thm1"].iloc[0], color="black", lw=1.1, label="Theorem 1 bound")
        w = window[
            (window["K"] == k)
            & np.isclose(window["gap"], p["gap"])
            & np.isclose(window["epsilon"], p["epsilon"])
        ]
        if len(w) and np.isfinite(w["h_low"].iloc[0]):
            ax.axvspan(
                w["h_low"].iloc[0],
                w["h_high"].iloc[0],
                color="0.88",
                lw=0,
                zorder=0,
                label=r"C3 window $[T_0, T_{\max}]$",
            )
        ax.set(xscale="log", yscale="log")
        ax.set_xscale("log", base=2)
        ax.set_xticks([2.0**e for e in (0, 10, 20, 30)])
        ax.set_xticklabels(["$2^{0}$", "$2^{10}$", "$2^{20}$", "$2^{30}$"])
        if i == 0:
            gap, eps = (style.pow2_label(v) for v in (p["gap"], p["epsilon"]))
            ax.set_title(rf"$\Delta_{{\min}}$={gap}, $\varepsilon$={eps}")
        if i == nr - 1:
            ax.set_xlabel("horizon $T$")
        if j == 0:
            ax.set_ylabel(f"$K = {k:g}$\nregret")
style.legend_below(fig, axes, ncol=4)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Collapse: $\mathrm{Reg}_T/\mathrm{Reg}_{T_{\max}}$ against $T \Delta_{\min}^2/\log K$
# After identification ($T \Delta_{\min}^2/\log K$ of order 1 or more) a horizon-free regret is flat
# at 1.

# %%
fig, ax = plt.subplots(figsize=(style.WIDTH, 3.2))
for alg in style.order(df["algorithm"].unique()):
    sub = df[df["algorithm"] == alg]
    for i, (_, g) in enumerate(sub.groupby(["K", "gap", "epsilon"], dropna=False)):
        g = g.sort_values("horizon")
        x = g["horizon"] * g["gap"] ** 2 / np.log(g["K"].astype(float))
        y = g["mean"] / g["mean"].iloc[-1]
        ax.plot(
            x,
            y,
            lw=0.8,
            alpha=0.7,
            color=style.style(alg)["color"],
            label=style.ALGORITHM_NAMES.get(alg, alg) if i == 0 else None,
        )
ax.set(
    xscale="log",
    xlabel=r"$T \Delta_{\min}^2 / \log K$",
    ylabel=r"$\mathrm{Reg}_T / \mathrm{Reg}_{T_{\max}}$",
)
ax.legend(frameon=False, ncol=3)
fig.tight_layout()
style.save_figure(fig, out_dir, "horizon_collapse")
style.show(fig, out_dir, "horizon_collapse")

# %% [markdown]
# ## Table `horizon`: regret at the plateau horizon $T_0$ and at $T_{\max}$, and their ratio
# $T_0$ is the first checkpoint $\ge c \max(\log K/\Delta_{\min}^2, \log K/(\eta \Delta_{\min}))$;
# `reached` is False when $T_0 > T_{\max}/2^8$ (see `privdtol.analysis.claims.c3_horizon_free`).

# %%
ratios = plateau_table(df, horizon_free_c, confidence)
table = ratios[
    [
        "algorithm",
        "K",
        "gap",
        "epsilon",
        "h_low",
        "h_high",
        "reached",
        "mean_low",
        "mean_high",
        "ratio",
        "ratio_high",
    ]
].rename(columns={"mean_low": "regret_low", "mean_high": "regret_high"})
write_table(table, Path(out_dir) / "tables" / "horizon.csv")
display_table(table, "horizon")

# %%
Markdown(table_note(NAME, "horizon"))
