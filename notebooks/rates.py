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
# # Figure 2 — regret against 1/gap and against 1/eps (claims C4a, C4b)
#
# Left: the statistical regime (eps >= 1, so eta = 1/8), regret against 1/gap.
# Right: the privacy regime (gap = 1/2), regret against 1/eps. Log–log axes, 95% bands.
# The dashed grey line is the fitted log–log slope of RPS over the three largest x values
# (weighted least squares on log(mean), delta-method standard errors); the checks require its
# 95% CI to lie within `slope_range` (slope 1 = linear in 1/gap or 1/eps, as the paper's rate
# log K/gap + log K/eps says). One figure with two panels, written as `rates.pdf`/`rates.png`.

# %% tags=["parameters"]
agg_dir = "results/agg"
out_dir = "results"
confidence = 0.95
slope_range = [0.8, 1.2]
n_points = 3

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from privdtol.analysis import checks
from privdtol.plotting import style

style.setup()
gap_df, used_gap = checks.load_agg(agg_dir, ["gap"])
eps_df, used_eps = checks.load_agg(agg_dir, ["epsilon"])
gap_fin = checks.final_rows(gap_df)
gap_fin = gap_fin[(gap_fin["epsilon"] >= 1) | gap_fin["epsilon"].isna()]
eps_fin = checks.final_rows(eps_df)
eps_fin = eps_fin[np.isclose(eps_fin["gap"], 0.5)]
gap_fin = gap_fin.assign(x=1 / gap_fin["gap"])
eps_fin = eps_fin.assign(x=1 / eps_fin["epsilon"])

# %%
fig, axes = plt.subplots(1, 2, figsize=(style.WIDTH, 3.0))
slopes = []
for ax, fin, axis, xlabel in ((axes[0], gap_fin, "1/gap", "1 / gap"),
                              (axes[1], eps_fin, "1/eps", "1 / ε")):
    for alg in style.order(fin["algorithm"].unique()):
        sub = fin[fin["algorithm"] == alg]
        # one line per remaining parameter combination (normally one)
        for key, s in sub.groupby(["K", "gap" if axis == "1/eps" else "epsilon"], dropna=False):
            style.algorithm_band(ax, s, "x", alg)
        for ser in checks.slope_series(sub, axis, ["K"], n_points, confidence):
            slopes.append({"algorithm": alg, **ser})
            if alg == "rps" and np.isfinite(ser["slope"]):
                xs = np.array(ser["x"])
                ys = np.exp(ser["intercept"] + ser["slope"] * np.log(xs))
                ax.plot(xs, ys, color="0.3", linestyle="--", linewidth=1,
                        label=f"RPS fit: slope {ser['slope']:.2f}")
    ax.set(xscale="log", yscale="log", xlabel=xlabel)
    ax.set_xscale("log", base=2)
    ax.legend(loc="upper left", fontsize="x-small")
axes[0].set_title("statistical regime (ε ≥ 1)")
axes[1].set_title("privacy regime (gap = 1/2)")
axes[0].set_ylabel("regret at largest T (95% CI)")
fig.tight_layout()
style.save_figure(fig, out_dir, "rates")
plt.show()

# %% [markdown]
# ## Table: fitted log–log slopes over the three largest x values

# %%
sl = pd.DataFrame(slopes)
table = pd.DataFrame({"algorithm": sl["algorithm"].map(style.ALGORITHM_NAMES),
                      "axis": sl["axis"], "K": sl["K"], "slope": sl["slope"],
                      "CI low": sl["ci_low"], "CI high": sl["ci_high"]})
style.write_latex_table(table, out_dir, "rates",
                           caption="Log-log slopes of regret over the three largest x values.")
table

# %% [markdown]
# ## Checks C4a and C4b

# %%
c4a = checks.check_slope(gap_df, "C4a", "1/gap", slope_range, confidence, n_points,
                         regime_filter="statistical", inputs=used_gap)
c4b = checks.check_slope(eps_df, "C4b", "1/eps", slope_range, confidence, n_points,
                         regime_filter="privacy", inputs=used_eps)
for c in (c4a, c4b):
    checks.write_check(c, Path(out_dir) / "checks" / f"{c['claim']}.json")
    print(c["claim"], c["verdict"], "—", c["summary"])
