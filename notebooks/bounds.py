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
# # Figure 5 — measured regret against Theorem 1 and against the lower-bound shape
#
# One point per RPS cell of every regret experiment. Left: regret against the Theorem 1 bound
# $1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$; every point must lie below the diagonal.
# Right: regret against $\log K/\min(\Delta_{\min}, \varepsilon)$, the shape of the lower bound
# of Hu et al. (2021), whose constant is unknown: no line $y = cx$ with a known $c$ exists, so the
# panel draws the measured band instead, the smallest and largest ratio over the cells shown (a
# $\Theta$ band on this grid, not a bound). The table adds eq. (2)'s bound (C2b).

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from privdtol.analysis.cells import dedupe_cells, final_rows, select, stack
from privdtol.analysis.records import check_text, load_agg, read_check
from privdtol.analysis.registry import NOTEBOOKS, notebook_claims
from privdtol.core import bounds
from privdtol.pipeline.io import write_table
from privdtol.plotting import style

NAME = "bounds"
style.setup()
df = stack(load_agg(agg_dir, NOTEBOOKS[NAME].experiments))
rps = select(df, "rps", "bernoulli")
fin = dedupe_cells(final_rows(rps))
fin = fin.assign(
    bound=bounds.theorem1(fin["K"], fin["gap"], fin["epsilon"]),
    bound_eq2=bounds.corollary(fin["K"], fin["gap"], fin["epsilon"]),
    lower=bounds.lower_shape(fin["K"], fin["gap"], fin["epsilon"]),
)
checks = {c: read_check(Path(checks_dir) / f"{c}.json") for c in notebook_claims(NAME)}

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
for claim, check in checks.items():
    print(check_text(claim, check), end="\n\n")

# %%
fig, axes = plt.subplots(1, 2, figsize=(style.WIDTH, 3.3), layout="constrained")
for ax, xcol, xlabel in (
    (axes[0], "bound", "Theorem 1 bound"),
    (axes[1], "lower", r"$\log K/\min(\Delta_{\min}, \varepsilon)$"),
):
    for j, (exp, sub) in enumerate(fin.groupby("experiment", sort=True)):
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
    lim = np.array([fin[xcol].min() / 2, fin[xcol].max() * 2])
    if xcol == "bound":
        ax.plot(lim, lim, color="0.3", linewidth=1, linestyle="--", label="Theorem 1 ($y = x$)")
    else:  # the measured band: the lower bound's constant is unknown
        r = fin["mean"] / fin[xcol]
        for k, c in enumerate((r.min(), r.max())):
            ax.plot(
                lim,
                c * lim,
                color="0.45",
                linewidth=0.9,
                linestyle=":",
                label=f"measured band ({r.min():.2g}x to {r.max():.2g}x)" if k == 0 else None,
            )
    ax.set(xscale="log", yscale="log", xlabel=xlabel)
axes[0].set_ylabel("RPS regret (95% CI)")
axes[0].set_title("against Theorem 1")
axes[1].set_title("against the lower-bound shape")
style.legend_below(fig, axes, ncol=3)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from IPython.display import Markdown

from privdtol.report.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `bounds`
# Per experiment, the number of distinct RPS cells (a cell shared by two experiments is counted
# under the first) and the range of regret over the Theorem 1 bounds, eq. (1) and eq. (2), and
# over the lower-bound shape at the largest horizon.
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
