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
# algorithm (RPS) flattens: its regret does not grow with T. Claim C3 checks, for RPS in every
# cell of the `horizon` and `grid` experiments, that regret(2^30 − 1) / regret(2^20 − 1) has an
# upper confidence limit of at most `horizon_free_ratio_max`.

# %% tags=["parameters"]
agg_dir = "results/agg"
out_dir = "results"
confidence = 0.95
horizon_free_ratio_max = 1.05
horizon_free_pair = [1048575, 1073741823]

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from privdtol.analysis import checks
from privdtol.plotting import style

style.setup()
df, used = checks.load_agg(agg_dir, ["horizon"])
grid, used_grid = checks.load_agg(agg_dir, ["grid"])

# %% [markdown]
# ## Figure: one panel per (K, gap, eps) cell of the `horizon` experiment
# Non-private algorithms (FTL, Hedge) have no eps and appear in every panel with the same K and gap.

# %%
priv = df[np.isfinite(df["epsilon"])]
rows_kg = priv[["K", "gap"]].drop_duplicates().sort_values(["K", "gap"], ascending=[True, False])
cols_e = sorted(priv["epsilon"].unique(), reverse=True)
nr, nc = len(rows_kg), len(cols_e)
fig, axes = plt.subplots(nr, nc, figsize=(style.WIDTH, 1.9 * nr + 0.9), sharex=True,
                         sharey="row", squeeze=False)
for i, (_, p) in enumerate(rows_kg.iterrows()):
    for j, e in enumerate(cols_e):
        ax = axes[i, j]
        sub = df[(df["K"] == p["K"]) & np.isclose(df["gap"], p["gap"])
                 & (np.isclose(df["epsilon"], e) | df["epsilon"].isna())]
        for alg in style.order(sub["algorithm"].unique()):
            style.algorithm_band(ax, sub, "horizon", alg, markevery=3)
        ax.set(xscale="log", yscale="log", title=f"K={p['K']:g}, gap={p['gap']:g}, ε={e:g}")
        ax.set_xscale("log", base=2)
        ax.set_xticks([2.0 ** k for k in (0, 10, 20, 30)])
        if i == nr - 1:
            ax.set_xlabel("horizon T")
        if j == 0:
            ax.set_ylabel("regret")
handles, labels = axes[0, 0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False)
fig.tight_layout(rect=(0, 0.7 / (1.9 * nr + 0.9), 1, 1))
style.save_figure(fig, out_dir, "horizon")
plt.show()

# %% [markdown]
# ## Table: regret at the two horizons of the C3 pair and their ratio

# %%
ratios = checks.horizon_ratio_table(df, horizon_free_pair, confidence)
table = ratios.assign(algorithm=ratios["algorithm"].map(style.ALGORITHM_NAMES))[
    ["algorithm", "K", "gap", "epsilon", "mean_low", "mean_high", "ratio", "ratio_high"]]
table = table.rename(columns={"epsilon": "eps", "mean_low": "regret (low T)",
                              "mean_high": "regret (high T)", "ratio_high": "ratio upper CL"})
style.write_latex_table(table.round(6), out_dir, "horizon",
                           caption="Regret at the two horizons of the C3 pair.")
table

# %% [markdown]
# ## Check C3

# %%
c3 = checks.check_horizon_free(pd.concat([df, grid], ignore_index=True), horizon_free_ratio_max,
                               horizon_free_pair, confidence, inputs=used + used_grid)
checks.write_check(c3, Path(out_dir) / "checks" / "C3.json")
print(c3["verdict"], "—", c3["summary"])
