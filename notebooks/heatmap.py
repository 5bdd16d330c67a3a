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
# # Figure — the residuals of C4's form fit across the grid
#
# One panel per $K$; each cell of a panel is one $(\Delta_{\min}, \varepsilon)$ of the `grid`
# experiment, coloured by what C4 tests: RPS regret divided by the fitted form
# $a \log K/\Delta_{\min} + b \log K/\eta + c$ (one fit over the whole grid, the check's own
# :func:`~privdtol.analysis.claims.c4_rate.form_table`). C4 PASSes when every cell is within the
# factor `rate_form_factor` of 1; the colour scale spans exactly that band.

# %% tags=["parameters"]
agg_dir = "results/agg"
checks_dir = "results/checks"
out_dir = "results"
# the config's thresholds of C4 (the notebook rule passes them; by hand: the schema's)
thresholds = {}

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import seaborn as sns
from IPython.display import Markdown
from matplotlib.colors import LogNorm

from privdtol.analysis.cells import dedupe_cells, final_rows, select
from privdtol.analysis.claims.c4_rate import form_table, rate_ratio_table
from privdtol.analysis.records import load_agg
from privdtol.analysis.registry import NOTEBOOKS
from privdtol.pipeline.config import check_defaults
from privdtol.pipeline.io import write_table
from privdtol.plotting import style
from privdtol.report.notebook.narrative import checks_note

NAME = "heatmap"
style.setup()
limits = {**check_defaults(), **thresholds}
df = load_agg(agg_dir, NOTEBOOKS[NAME].experiments)["grid"]
rps = select(df, "rps", "bernoulli", "standard")
# the rows and the fit of C4's check (privdtol.analysis.claims.c4_rate.check_rate_form)
rows = dedupe_cells(final_rows(rps))
tab, fit = form_table(rows[rows["mean"] > 0], limits["confidence"])
rate = rate_ratio_table(rps)

# %% [markdown]
# ## The checks of the claims this figure shows (from `results/checks/`)

# %%
Markdown(checks_note(NAME, checks_dir))

# %%
Ks = sorted(tab["K"].unique())
factor = float(limits["rate_form_factor"])
norm = LogNorm(vmin=1 / factor, vmax=factor)
nc = len(Ks) if len(Ks) <= 3 else 2
nr = -(-len(Ks) // nc)
fig, axes = plt.subplots(
    nr, nc, figsize=(style.WIDTH, (2.2 + 0.1 * tab["gap"].nunique()) * nr), squeeze=False
)
for ax in list(axes.flat)[len(Ks) :]:
    ax.set_visible(False)
for i, (ax, K) in enumerate(zip(axes.flat, Ks, strict=False)):
    piv = (
        tab[tab["K"] == K]
        .pivot_table(index="gap", columns="epsilon", values="ratio")
        .sort_index(ascending=False)
        .sort_index(axis=1, ascending=False)
    )
    piv.index = [style.pow2_label(g) for g in piv.index]
    piv.columns = [style.pow2_label(e) for e in piv.columns]
    sns.heatmap(
        piv,
        ax=ax,
        norm=norm,
        cmap="RdBu_r",
        annot=True,
        fmt=".2f",
        annot_kws={"fontsize": 7},
        cbar=i % nc == nc - 1 or i == len(Ks) - 1,
        cbar_kws={"label": "regret / fitted form"},
    )
    ax.set(
        title=f"$K = {K:g}$",
        xlabel=r"$\varepsilon$",
        ylabel=r"$\Delta_{\min}$" if i % nc == 0 else "",
    )
    ax.tick_params(axis="y", rotation=0)
    bar = ax.collections[0].colorbar if ax.collections else None
    if bar is not None:  # ticks at the band's ends, 1 and between
        ticks = [1 / factor, factor**-0.5, 1.0, factor**0.5, factor]
        bar.set_ticks(ticks, labels=[f"{t:.3g}" for t in ticks])
        bar.minorticks_off()


def signed(x) -> str:
    """``+ 1.2`` or ``− 1.2`` (a true minus sign), the next term of a sum."""
    return f"{'−' if x < 0 else '+'} {abs(x):.3g}"


fig.suptitle(
    rf"fit: {fit['a']:.3g} $\log K/\Delta_{{\min}}$ {signed(fit['b'])} $\log K/\eta$ "
    rf"{signed(fit['c'])}; colour band: C4's factor {factor:g}",
    fontsize=8,
)
fig.tight_layout()
style.save_figure(fig, out_dir, NAME)
style.show(fig, out_dir, NAME)

# %% [markdown]
# ### What the figure shows (generated from the check records and the findings)

# %%
from privdtol.report.notebook.narrative import display_table, figure_note, table_note

Markdown(figure_note(NAME, checks_dir, Path(checks_dir).parent / "findings.json"))

# %% [markdown]
# ## Table `heatmap`: per $K$, the range of C4's residual and of regret over the raw rate
# Residual: regret / fitted form (what C4 tests); ratio: regret
# $/ (\log K/\Delta_{\min} + \log K/\varepsilon)$.

# %%
form = tab.groupby("K")["ratio"].agg(["min", "max"])
raw = rate.groupby("K")["ratio"].agg(["min", "median", "max"])
table = (
    form.rename(columns={"min": "form_min", "max": "form_max"})
    .join(raw.rename(columns={"min": "ratio_min", "median": "ratio_median", "max": "ratio_max"}))
    .reset_index()
)
write_table(table, Path(out_dir) / "tables" / "heatmap.csv")
display_table(table, "heatmap")

# %%
Markdown(table_note(NAME, "heatmap"))
