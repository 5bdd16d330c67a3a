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
# # Figure 3 — regret against K in both regimes (claim C4d)
#
# Regret against K (log x axis) in the privacy regime (eps < gap) and in the statistical regime
# (eps > gap), with 95% bands. For RPS the weighted fits a·log K + b (dashed) and a·log² K + b
# (dotted) are drawn side by side: the paper's privacy term is log K / eps, against Wu & Wang's
# log² K / eps. Claim C4d compares the two fits in the privacy regime by their residual
# chi-square (Δχ² = χ²(log² K) − χ²(log K), parametric-bootstrap CI).

# %% tags=["parameters"]
agg_dir = "results/agg"
out_dir = "results"
confidence = 0.95
n_boot = 2000

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from privdtol.analysis import checks
from privdtol.analysis import stats as fits
from privdtol.plotting import style

style.setup()
df, used = checks.load_agg(agg_dir, ["actions"])
fin = checks.final_rows(df)
fin = fin.assign(regime=checks.regime(fin["gap"], fin["epsilon"]))

# %%
regimes = [r for r in ("privacy", "statistical", "balanced") if r in set(fin["regime"])]
fig, axes = plt.subplots(1, len(regimes), figsize=(style.WIDTH, 3.0), squeeze=False)
fit_rows = []
for ax, reg in zip(axes[0], regimes):
    sub = fin[fin["regime"] == reg]
    for (g, e), cell in sub.groupby(["gap", "epsilon"]):
        for alg in style.order(cell["algorithm"].unique()):
            rows = cell[cell["algorithm"] == alg].sort_values("K")
            style.algorithm_band(ax, rows, "K", alg)
            if rows["K"].nunique() < 3:
                continue
            Kgrid = np.geomspace(rows["K"].min(), rows["K"].max(), 100)
            for form, ls in (("log K", "--"), ("log² K", ":")):
                f = fits.logk_fit(rows["K"], rows["mean"], rows["se"], form)
                fit_rows.append({"regime": reg, "algorithm": alg, "gap": g, "eps": e,
                                 "form": form, "a": f["a"], "b": f["b"], "chi2": f["chi2"]})
                if alg == "rps":
                    ax.plot(Kgrid, f["a"] * fits.LOGK_FORMS[form](Kgrid) + f["b"], color="0.3",
                            linestyle=ls, linewidth=1, label=f"RPS fit a·{form} + b")
        ax.set_title(f"{reg} regime (gap={g:g}, ε={e:g})")
    ax.set(xscale="log", xlabel="number of actions K")
    ax.set_xscale("log", base=2)
    ax.legend(loc="upper left", fontsize="x-small")
axes[0, 0].set_ylabel("regret at largest T (95% CI)")
fig.tight_layout()
style.save_figure(fig, out_dir, "actions")
plt.show()

# %% [markdown]
# ## Table: fits of regret against K

# %%
table = pd.DataFrame(fit_rows)
table["algorithm"] = table["algorithm"].map(style.ALGORITHM_NAMES)
style.write_latex_table(table, out_dir, "actions",
                           caption="Weighted fits a f(K) + b of regret against K.")
table

# %% [markdown]
# ## Check C4d

# %%
c4d = checks.check_logk(df, confidence, n_boot=n_boot, inputs=used)
checks.write_check(c4d, Path(out_dir) / "checks" / "C4d.json")
print(c4d["verdict"], "—", c4d["summary"])
