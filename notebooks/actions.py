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
# # Figure — regret against the number of actions $K$
#
# Regret at $T_{\max}$ against $K$ (log axis) in the privacy and statistical regimes, with the
# weighted fits $a \log K + b$ and $a \log^2 K + b$ of RPS: the paper's rate is linear in
# $\log K$; Wu & Wang's bound grows like $\log^2 K / \varepsilon$. Ringed: RPS cells whose
# regret is still rising at $T_{\max}$ (by more than `horizon_free_ratio_max` over its last
# `plateau_octaves` octaves), which the C4c exponent fits leave out.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# the config's thresholds of C4c (the notebook rule passes them; by hand: the schema's)
thresholds = {}

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown

from privdtol.analysis import stats
from privdtol.analysis.cells import plateau_ratio, regime
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.pipeline.config import check_defaults
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.notebook.narrative import checks_note

NAME = "actions"
style.setup()
df = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["actions"]
limits = {**check_defaults(), **thresholds}
fin = plateau_ratio(df, limits["plateau_octaves"])
fin = fin.assign(regime=regime(fin["gap"], fin["epsilon"]))

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %%
# regimes of the private cells (non-private algorithms have no epsilon, hence no regime)
regimes = [
    r
    for r in ("privacy", "statistical", "balanced")
    if r in set(fin.loc[fin["epsilon"].notna(), "regime"])
]
fig, axes = plt.subplots(
    1, len(regimes), figsize=(style.WIDTH, 3.4), squeeze=False, layout="constrained"
)
fit_rows = []
FORM_LABELS = {"log K": r"RPS fit $a\,\log K + b$", "log² K": r"RPS fit $a\,\log^2 K + b$"}
for ax, reg in zip(axes[0], regimes, strict=True):
    sub = fin[fin["regime"] == reg]
    for (g, e), cell in sub.groupby(["gap", "epsilon"]):
        for alg in style.order(cell["algorithm"].unique()):
            rows = cell[cell["algorithm"] == alg].sort_values("K")
            style.algorithm_band(ax, rows, "K", alg)
            if rows["K"].nunique() < 3:
                continue
            Kgrid = np.geomspace(rows["K"].min(), rows["K"].max(), 100)
            row = {"regime": reg, "algorithm": alg, "gap": g, "epsilon": e}
            for form, tag, ls in (("log K", "logk", "--"), ("log² K", "log2k", ":")):
                f = stats.logk_fit(rows["K"], rows["mean"], rows["se"], form)
                row.update({f"a_{tag}": f["a"], f"b_{tag}": f["b"], f"chi2_{tag}": f["chi2"]})
                if alg == "rps":
                    ax.plot(
                        Kgrid,
                        f["a"] * stats.LOGK_FORMS[form](Kgrid) + f["b"],
                        color="black",
                        linestyle=ls,
                        linewidth=1.3,
                        zorder=5,
                        label=FORM_LABELS[form],
                    )
            fit_rows.append(row)
        gl, el = style.pow2_label(g), style.pow2_label(e)
        ax.set_title(f"{reg} regime ($\\Delta_{{\\min}}$ = {gl}, $\\varepsilon$ = {el})")
    style.mark_rising(ax, sub[sub["algorithm"] == "rps"], "K", limits["horizon_free_ratio_max"])
    ax.set(xscale="log", xlabel="number of actions $K$")
    ax.set_xscale("log", base=2)
axes[0, 0].set_ylabel(r"regret at $T_{\max}$ (95% CI)")
style.legend_below(fig, axes, ncol=3)
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `actions`: weighted fits of regret against $K$
# One row per (regime, algorithm, $\Delta_{\min}$, $\varepsilon$): the fit $a \log K + b$ (`a_logk`,
# `b_logk`, residual `chi2_logk`) and the fit $a \log^2 K + b$ (`a_log2k`, `b_log2k`, `chi2_log2k`).

# %%
table = pd.DataFrame(
    fit_rows,
    columns=[
        "regime",
        "algorithm",
        "gap",
        "epsilon",
        "a_logk",
        "b_logk",
        "chi2_logk",
        "a_log2k",
        "b_log2k",
        "chi2_log2k",
    ],
)
write_table(table, Path(out_dir) / "tables" / "actions.csv")
display_table(table, "actions")

# %%
Markdown(table_note(NAME, "actions"))
