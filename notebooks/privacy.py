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
# # Figure — privacy audit: the largest privacy loss found against $\varepsilon$
#
# One panel per algorithm. Exact audits: per selection (worst case over neighbouring block
# datasets) and whole sequence (small $T$ and $K$); statistical audit: Clopper–Pearson 95%
# bounds from replayed runs. Lines: $\varepsilon$ (Proposition 1) and the per-selection bound
# $2\eta$ (Lemma 3; $\varepsilon$ for Laplace noise). The two negative controls
# ($\eta = \varepsilon$; a data-chosen prefix) must land above the $\varepsilon$ line. The
# searches find a lower bound on the worst case: they can expose a violation, not prove
# privacy.

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
from matplotlib.ticker import NullFormatter

from privdtol.analysis.claims.c1_privacy import c1_cells
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.privacy.audit_grid import DISPLAY_ORDER
from privdtol.report.notebook.narrative import checks_note

NAME = "privacy"
style.setup()
df = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["privacy"]
cells = c1_cells(df)

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %%
present = set(df.algorithm)
algs = [a for a in DISPLAY_ORDER if a in present] + sorted(present - set(DISPLAY_ORDER))
nc = 4
nr = -(-len(algs) // nc)
fig, axes = plt.subplots(
    nr, nc, figsize=(style.WIDTH, 1.45 * nr + 0.7), squeeze=False, sharex=True, sharey=True
)
# the axes span the finite values; an infinite or NaN loss (a plugin far from its bound) is
# written on its panel as such instead of breaking the axis limits
finite = df[["loss", "loss_upper", "epsilon"]].to_numpy(float)
y_top = 1.6 * np.max(finite[np.isfinite(finite)])
eps_grid = np.geomspace(df.epsilon.min(), df.epsilon.max(), 100)
CONTROL_NAMES = {
    "rps_eta_eps": r"control: $\eta = \varepsilon$",
    "rps_data_prefix": "control: data prefix",
}
markers = {
    "exact_selection": ("o", "per selection (exact)", "C0"),
    "whole_sequence": ("s", "whole sequence (exact)", "C2"),
}
for ax, alg in zip(axes.flat, algs, strict=False):
    sub = df[df.algorithm == alg]
    for audit, (marker, label, colour) in markers.items():
        a = sub[sub.audit == audit].groupby("epsilon").loss.max()
        if len(a):
            ax.plot(
                a.index,
                a.values,
                marker=marker,
                color=colour,
                linestyle="none",
                markersize=4,
                fillstyle="none" if audit == "whole_sequence" else "full",
                label=label,
            )
    st = (
        sub[sub.audit == "statistical"]
        .groupby("epsilon")
        .agg(lo=("loss_lower", "max"), up=("loss_upper", "max"), pt=("loss", "max"))
    )
    if np.isinf(sub[["loss", "loss_upper"]].to_numpy(float)).any():  # off every axis
        ax.text(0.04, 0.9, "a loss bound is infinite", transform=ax.transAxes, color="C3")
    st = st[(st.lo > 0) & np.isfinite(st.pt) & np.isfinite(st.up)]
    if len(st):
        ax.errorbar(
            st.index * 1.08,
            st.pt,
            yerr=[st.pt - st.lo, st.up - st.pt],
            fmt="^",
            markersize=3,
            capsize=2,
            color="0.3",
            label="statistical (95% CP)",
        )
    ax.plot(eps_grid, eps_grid, color="k", linewidth=0.9, label=r"$\varepsilon$ (Proposition 1)")
    bound = sub.groupby("epsilon").bound_selection.max()
    ax.plot(
        bound.index,
        bound.values,
        color="C3",
        linestyle=(0, (4, 2)),
        linewidth=0.9,
        label=r"per-selection bound ($2\eta$; $\varepsilon$ for Laplace noise)",
    )
    ax.set_title(CONTROL_NAMES.get(alg) or style.ALGORITHM_NAMES.get(alg, alg), fontsize=8)
    ax.set(
        xscale="log",
        yscale="log",
        ylim=(0.5 * df.epsilon.min(), y_top),
        xlim=(0.5 * df.epsilon.min(), 2 * df.epsilon.max()),
    )
    ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels collide on a short log axis
    ax.yaxis.set_minor_formatter(NullFormatter())
for ax in list(axes.flat)[len(algs) :]:
    ax.set_visible(False)
for ax in axes[-1, :]:
    ax.set_xlabel(r"$\varepsilon$")
fig.supylabel("privacy loss found", fontsize=9)
handles, labels = axes[0, 0].get_legend_handles_labels()
for ax in axes.flat:  # collect every label once (panels differ)
    for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
        if lab not in labels:
            handles.append(h)
            labels.append(lab)
fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize=8)
fig.tight_layout(rect=(0, 0.6 / (1.45 * nr + 0.7), 1, 1))
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `privacy`: largest privacy loss per algorithm and $\varepsilon$
#
# `loss` is the largest exact loss found over the audited K, block lengths and the
# whole-sequence audit; `bound_selection` the per-selection bound ($2\eta$; $\varepsilon$ for
# Laplace noise);
# `stat_lower`, `stat_upper` the widest Clopper–Pearson interval of the statistical audits (where
# run). A private algorithm passes when loss ≤ 2η ≤ ε and no statistical lower bound exceeds ε;
# a negative control is *caught* when some exact loss exceeds ε (`verdict`).

# %%
table = (
    cells.rename(columns={"loss_exact": "loss"})[
        [
            "algorithm",
            "role",
            "epsilon",
            "loss",
            "bound_selection",
            "ratio_eps",
            "stat_lower",
            "stat_upper",
            "verdict",
        ]
    ]
    .sort_values(["role", "algorithm", "epsilon"], ascending=[False, True, True])
    .reset_index(drop=True)
)
write_table(table, Path(out_dir) / "tables" / "privacy.csv")
display_table(table, "privacy")

# %%
Markdown(table_note(NAME, "privacy"))

# %% [markdown]
# The negative controls' worst cases (the audit's witnesses):

# %%
cells[cells.role == "negative_control"][
    ["algorithm", "epsilon", "loss_exact", "verdict", "witness"]
]
