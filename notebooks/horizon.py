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
# # Figure 1 — regret against the horizon T (claim C3: horizon-free)
#
# Regret of every algorithm against T (log–log), with 95% confidence bands. The paper's
# algorithm (RPS) flattens: its regret does not grow with T. Claim C3 (checked by
# `privdtol check --claim C3`, shown below) requires, for RPS in every cell of the `horizon` and
# `grid` experiments, that regret(2^30 − 1) / regret(2^20 − 1) has an upper confidence limit of
# at most the config's `horizon_free_ratio_max`. This notebook only plots and tabulates.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# display only: the level of the intervals shown and the two horizons tabulated
confidence = 0.95
horizon_free_c = 16

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from privdtol.analysis.claims.c3_horizon_free import plateau_table
from privdtol.analysis.records import check_text, load_agg, read_check
from privdtol.analysis.registry import NOTEBOOKS, notebook_claims
from privdtol.pipeline.io import write_table
from privdtol.plotting import style

NAME = "horizon"
style.setup()
df = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["horizon"]

# %% [markdown]
# ## Check C3 (from `results/checks/C3.json`)

# %%
for claim in notebook_claims(NAME):
    print(check_text(claim, read_check(Path(checks_dir) / f"{claim}.json")))

# %% [markdown]
# ## Figure: one panel per (K, gap, eps) cell of the `horizon` experiment
# Non-private algorithms (FTL, Hedge) have no eps and appear in every panel with the same K and gap.

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
plt.show()

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from IPython.display import Markdown

from privdtol.plotting.narrative import figure_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Collapse: regret / Reg(T_max) against T·gap²/log K, every cell of every algorithm
# After identification (T·gap²/log K of order 1 or more) a horizon-free regret is flat at 1.

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
            color=f"C{list(style.order(df['algorithm'].unique())).index(alg) % 10}",
            label=alg if i == 0 else None,
        )
ax.set(xscale="log", xlabel="T gap² / log K", ylabel="regret / Reg(T_max)")
ax.legend(frameon=False, fontsize="small", ncol=3)
fig.tight_layout()
style.save_figure(fig, out_dir, "horizon_collapse")
plt.show()

# %% [markdown]
# ## Table `horizon`: regret at the plateau horizon T0 and at T_max, and their ratio (C3)
# T0 is the first checkpoint >= c max(log K/gap², log K/(eta gap)); `reached` is False when
# T0 > T_max/2^8 (see `privdtol.analysis.claims.c3_horizon_free`).

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
table
