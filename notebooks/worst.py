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
# # Figure 12 — the worst instance a search finds
#
# Theorem 1 and Lemma 5 hold for every i.i.d. loss process with a unique best action; the
# other figures evaluate them on two instance families. Here, for each searched
# $(K, \Delta_{\min}, \varepsilon)$, an optimiser (differential evolution, then L-BFGS-B; fixed
# seed) searches over the means of the $K$ actions (the best mean and the gaps free, one action
# at exactly $\Delta_{\min}$), every candidate computed exactly, for the largest
# $\mathrm{Reg}_T$ over Theorem 1's bound and the smallest $\mathrm{Reg}_T$ over the rate
# $\log K/\Delta_{\min} + \log K/\varepsilon$. Left: the best value found so far against the
# number of exact evaluations, relative to the standard instance (where every search
# starts). Right: the gaps of the worst instance found (theorem1 searches) against the standard
# instance's. A search finds the largest value it evaluated, not a supremum.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.pipeline.io import write_table
from privdtol.plotting import style

NAME = "worst"
style.setup()
searches = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["searches"]
LABEL = {
    "theorem1": "max Reg / Theorem 1 bound",
    "lemma5": "max sum F / Lemma 5 bound",
    "rate": "max Reg / rate",
    "rate_min": "min Reg / rate",
}

# %%
fig, axes = plt.subplots(1, 2, figsize=(style.WIDTH, 3.3), layout="constrained")
ax = axes[0]
for i, (_, s) in enumerate(searches.iterrows()):
    trace = np.array([float(v) for v in s["trace_ratio"].split()])
    best = (
        np.minimum.accumulate(trace)
        if s["objective"] == "rate_min"
        else np.maximum.accumulate(trace)
    )
    ax.plot(
        np.arange(1, trace.size + 1),
        best / s["standard_value"],
        linestyle="--" if s["objective"] == "rate_min" else "-",
        marker="os^vDPX*"[i % 8],
        markevery=max(1, trace.size // 4),
        markersize=3,
        linewidth=1,
        label=f"{LABEL[s['objective']]}, K={s['K']}, ε={s['epsilon']:g}",
    )
ax.axhline(1, color="0.3", linewidth=0.8, linestyle=":")
ax.set(xlabel="exact evaluations", ylabel="best found / standard instance", title="search traces")
ax = axes[1]
worst = searches[searches["objective"].isin(["theorem1", "lemma5"])]
for i, (_, s) in enumerate(worst.iterrows()):
    means = np.array([float(v) for v in s["means"].split()])
    gaps = np.sort(means[1:] - means[0])
    ax.plot(
        np.arange(1, gaps.size + 1) / gaps.size,
        gaps / s["gap"],
        marker="os^vDPX*"[i % 8],
        markersize=3,
        linewidth=1,
        label=f"K={s['K']}, Δ={s['gap']:g}, ε={s['epsilon']:g}",
    )
ax.axhline(1, color="0.3", linewidth=1, linestyle="--", label="standard instance")
ax.set(
    yscale="log",
    xlabel="rank of the action's gap / (K - 1)",
    ylabel=r"$\Delta_j / \Delta_{\min}$",
    title="gaps of the worst instance found",
)
style.legend_below(fig, axes, ncol=3)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the findings)

# %%
from IPython.display import Markdown

from privdtol.report.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `worst`
# Per search: the objective, the searched $(K, \Delta_{\min}, \varepsilon)$, the value found,
# the standard instance's, their ratio, the exact evaluations and the best mean $\mu_1$ of the
# instance found.

# %%
summ = pd.DataFrame(
    {
        "objective": searches["objective"],
        "K": searches["K"],
        "gap": searches["gap"],
        "epsilon": searches["epsilon"],
        "found": searches["value"],
        "standard": searches["standard_value"],
        "found_over_standard": searches["value"] / searches["standard_value"],
        "evaluations": searches["evaluations"],
        "mu_best": [float(m.split()[0]) for m in searches["means"]],
    }
)
write_table(summ, Path(out_dir) / "tables" / "worst.csv")
display_table(summ, "worst")

# %%
Markdown(table_note(NAME, "worst"))
