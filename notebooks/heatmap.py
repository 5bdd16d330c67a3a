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
# # Figure 4 — regret / (log K/gap + log K/eps) over (gap, eps), one panel per K (claim C4c)
#
# If the rate log K/gap + log K/eps is right, the ratio stays between two constants over the
# whole grid (colour scale shared by the panels, logarithmic). Claim C4c reports the range of
# the ratio and requires the log–log slope of the ratio along each axis (1/gap, 1/eps, log K)
# over the last three grid points to have its 95% CI inside `ratio_slope_range`.

# %% tags=["parameters"]
agg_dir = "results/agg"
out_dir = "results"
confidence = 0.95
ratio_slope_range = [-0.2, 0.2]
n_points = 3

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import LogNorm

from privdtol.analysis import checks
from privdtol.plotting import style

style.setup()
df, used = checks.load_agg(agg_dir, ["grid"])
tab = checks.rate_ratio_table(checks.select(df, "rps", "bernoulli", "standard"))

# %%
Ks = sorted(tab["K"].unique())
norm = LogNorm(vmin=tab["ratio"].min(), vmax=tab["ratio"].max())
nc = len(Ks) if len(Ks) <= 3 else 2
nr = -(-len(Ks) // nc)
fig, axes = plt.subplots(nr, nc, figsize=(style.WIDTH, (2.2 + 0.1 * tab["gap"].nunique()) * nr),
                         squeeze=False)
for ax in list(axes.flat)[len(Ks):]:
    ax.set_visible(False)
for i, (ax, K) in enumerate(zip(axes.flat, Ks)):
    piv = (tab[tab["K"] == K].pivot_table(index="gap", columns="epsilon", values="ratio")
           .sort_index(ascending=False).sort_index(axis=1, ascending=False))
    piv.index = [f"{g:g}" for g in piv.index]
    piv.columns = [f"{e:g}" for e in piv.columns]
    sns.heatmap(piv, ax=ax, norm=norm, cmap="cividis", annot=True, fmt=".2g",
                annot_kws={"fontsize": 6}, cbar=i % nc == nc - 1 or i == len(Ks) - 1,
                cbar_kws={"label": "regret / rate"})
    ax.set(title=f"K = {K:g}", xlabel="ε", ylabel="gap" if i % nc == 0 else "")
fig.tight_layout()
style.save_figure(fig, out_dir, "heatmap")
plt.show()

# %% [markdown]
# ## Table: range of the ratio per K

# %%
table = (tab.groupby("K")["ratio"].agg(["min", "median", "max"]).reset_index()
         .rename(columns={"min": "ratio min", "median": "ratio median", "max": "ratio max"}))
style.write_latex_table(table, out_dir, "heatmap",
                           caption="Regret / (log K/gap + log K/eps) over the grid, per K.")
table

# %% [markdown]
# ## Check C4c

# %%
c4c = checks.check_rate_ratio(df, ratio_slope_range, confidence, n_points, inputs=used)
checks.write_check(c4c, Path(out_dir) / "checks" / "C4c.json")
print(c4c["verdict"], "—", c4c["summary"])
