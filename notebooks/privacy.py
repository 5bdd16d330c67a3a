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
# # Privacy audit — claim C1 (Proposition 1, Lemma 3)
#
# Largest privacy loss found, max_j |log P(j | d) − log P(j | d')| over neighbouring datasets,
# against eps (log–log), one panel per algorithm. Exact audits: per selection (worst case
# searched over neighbouring block datasets; the released law of RPS is the mixture over the
# data-independent prefix M_r) and whole action sequence (exact enumeration, T = 63). Statistical
# audit: Clopper–Pearson 95% bounds from replayed runs (bars). Lines: eps (solid) and the
# per-selection bound 2·eta (dashed). The two negative controls (eta = eps; data-chosen prefix)
# must land above the eps line.

# %% tags=["parameters"]
agg_dir = "results/agg"
out_dir = "results"

# %%
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
import pandas as pd

from privdtol.plotting import style
from privdtol.privacy.check import c1_cells, check_c1
from privdtol.analysis.verdicts import write_check

style.setup()
path = Path(agg_dir) / "privacy.parquet"
df = pd.read_parquet(path)
cells = c1_cells(df)

# %%
order = ["rps", "rps_full_prefix", "rps_uncapped", "wu_wang_gumbel", "rnm_ftnl", "wu_wang",
         "rps_eta_eps", "rps_data_prefix"]
algs = [a for a in order if a in set(df.algorithm)] + sorted(set(df.algorithm) - set(order))
nc = 4
nr = -(-len(algs) // nc)
fig, axes = plt.subplots(nr, nc, figsize=(style.WIDTH, 1.9 * nr + 0.7), squeeze=False,
                         sharex=True, sharey=True)
y_top = 1.6 * max(df.loss.max(), df.loss_upper.max(), df.epsilon.max())
eps_grid = np.geomspace(df.epsilon.min(), df.epsilon.max(), 100)
CONTROL_NAMES = {"rps_eta_eps": "control: η = ε", "rps_data_prefix": "control: data prefix"}
markers = {"exact_selection": ("o", "per selection (exact)"),
           "whole_sequence": ("s", "whole sequence (exact)")}
for ax, alg in zip(axes.flat, algs):
    sub = df[df.algorithm == alg]
    for audit, (marker, label) in markers.items():
        a = sub[sub.audit == audit].groupby("epsilon").loss.max()
        if len(a):
            ax.plot(a.index, a.values, marker=marker, linestyle="none", markersize=4,
                    fillstyle="none" if audit == "whole_sequence" else "full", label=label)
    st = sub[sub.audit == "statistical"].groupby("epsilon").agg(
        lo=("loss_lower", "max"), up=("loss_upper", "max"), pt=("loss", "max"))
    st = st[(st.lo > 0) & np.isfinite(st.pt) & np.isfinite(st.up)]
    if len(st):
        ax.errorbar(st.index * 1.08, st.pt, yerr=[st.pt - st.lo, st.up - st.pt], fmt="^",
                    markersize=3, capsize=2, color="0.3", label="statistical (95% CP)")
    ax.plot(eps_grid, eps_grid, color="k", linewidth=0.9, label="ε")
    bound = sub.groupby("epsilon").bound_selection.max()
    ax.plot(bound.index, bound.values, color="C3", linestyle="--", linewidth=0.9,
            label="per-selection bound (2η; ε for Laplace noise)")
    ax.set_title(CONTROL_NAMES.get(alg) or style.ALGORITHM_NAMES.get(alg, alg), fontsize=8)
    ax.set(xscale="log", yscale="log", ylim=(0.5 * df.epsilon.min(), y_top),
           xlim=(0.5 * df.epsilon.min(), 2 * df.epsilon.max()))
    ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels collide on a short log axis
    ax.yaxis.set_minor_formatter(NullFormatter())
for ax in list(axes.flat)[len(algs):]:
    ax.set_visible(False)
for ax in axes[-1, :]:
    ax.set_xlabel("ε")
for ax in axes[:, 0]:
    ax.set_ylabel("privacy loss found")
handles, labels = axes[0, 0].get_legend_handles_labels()
for ax in axes.flat:                      # collect every label once (panels differ)
    for h, lab in zip(*ax.get_legend_handles_labels()):
        if lab not in labels:
            handles.append(h)
            labels.append(lab)
fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize=7)
fig.tight_layout(rect=(0, 0.55 / (1.9 * nr + 0.7), 1, 1))
style.save_figure(fig, out_dir, "privacy")
plt.show()

# %% [markdown]
# ## Table: largest privacy loss per algorithm and eps
#
# `loss` is the largest exact loss found over K ∈ {2, 4, 8}, block lengths and the whole-sequence
# audit; `stat. bounds` the widest Clopper–Pearson interval of the statistical audits (where run).
# A private algorithm passes when loss ≤ 2η ≤ ε and no statistical lower bound exceeds ε; a
# negative control is *caught* when some exact loss exceeds ε.

# %%
table = pd.DataFrame({
    "algorithm": cells.algorithm.map(lambda a: style.ALGORITHM_NAMES.get(a, a)
                                     .replace("η", "eta")),
    "role": cells.role.str.replace("_", " "),
    "eps": cells.epsilon,
    "loss": cells.loss_exact,
    "2 eta": cells.bound_selection,
    "loss/eps": cells.ratio_eps,
    "stat. low": cells.stat_lower,
    "stat. high": cells.stat_upper,
    "verdict": cells.verdict,
})
table = table.sort_values(["role", "algorithm", "eps"], ascending=[False, True, True])
styler = table.style.hide(axis="index").format(escape="latex", na_rep="--")
num = table.select_dtypes("number").columns
styler = styler.format(lambda v: "--" if pd.isna(v) else f"{v:.5g}", subset=num)
styler = styler.format_index(escape="latex", axis="columns")
tex = styler.to_latex(hrules=True, caption="Privacy audit: largest privacy loss found "
                      "against the bounds 2 eta (Lemma 3) and eps (Proposition 1).",
                      position_float="centering")
(Path(out_dir) / "tables").mkdir(parents=True, exist_ok=True)
(Path(out_dir) / "tables" / "privacy.tex").write_text(tex, encoding="utf-8")
table

# %% [markdown]
# ## Check C1

# %%
c1 = check_c1(df, inputs=[str(path)])
write_check(c1, Path(out_dir) / "checks" / "C1.json")
print(c1["verdict"], "-", c1["summary"])
cells[cells.role == "negative_control"][["algorithm", "epsilon", "loss_exact", "verdict",
                                         "witness"]]
