"""Claim C3 (Theorem 1: the bound holds for every horizon T, so the regret is horizon-free).

Horizon-freeness is tested *after identification*: per cell a plateau horizon T0 is chosen
before looking at the regret, the first checkpoint ``>= c·max(log K/gap², log K/(eta·gap))``
(``c`` = the config's ``horizon_free_c``; the eta term is dropped for non-private algorithms),
with ``1 + log K`` in place of ``log K`` (see :func:`plateau_target`), and the statistic is
``Reg(T_max)/Reg(T0)`` with its interval.  A cell PASSes when the upper
limit is at most ``horizon_free_ratio_max``; it FAILs when the lower limit (Bonferroni over the
cells) is above it.  Cells whose T0 exceeds ``T_max/2^8`` have not reached their plateau on the
configured horizon: they are reported as "not reached", counted, and left out of the verdict
(INCONCLUSIVE if no cell reaches it).

Intervals: exact cells (``runs == 0``) carry their numerical error as ``se``; Monte-Carlo cells
with the paired-tail columns ``tail_mean``/``tail_se`` use the paired interval of
:func:`paired_ratio_ci` (per-run increments, Bonferroni rectangle); other cells the
conservative delta-method interval of :func:`privdtol.analysis.stats.ratio_ci`.

Negative control: an algorithm whose regret grows like log T (``ftl_egreedy``) must FAIL.

Scope (what a PASS excludes).  A regret that is horizon-free up to an added
``beta ln T`` passes a reached cell whenever ``beta ln(T_max/T0) <= (r - 1) Reg(T0)``, r the
config's ``horizon_free_ratio_max``: the check cannot see a log-T slope below

    slope_min = (r - 1) Reg(T0) / ln(T_max/T0),

recorded per cell (``slope_min``) and summarised in the record.  The control's slope is its
exploration's, ``beta = Delta (K - 1)`` (sum_t min(1, K/t) mean_j Delta_j), which vanishes with
the gap while Reg(T0) grows like log K/Delta: beta/slope_min ~ Delta^2 ln(T_max/T0), so at small
gaps neither this check nor any check of horizon-freeness with a relative tolerance catches it
within the grid's horizons (at K = 2, gap 2^-5, T0 = 2^15 it would need T_max near 2^34).  The
power analysis (:mod:`privdtol.analysis.power`) reports the control's power per gap; no
threshold was moved for it (a disclosed change of the design's stated scope,
:data:`privdtol.analysis.diagnosis.DEVIATIONS`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import cell_keys, cell_label, dedupe_cells, select, stack
from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import (
    INCONCLUSIVE,
    bonferroni_confidence,
    combine_verdicts,
    upper_verdict,
)
from privdtol.core import bounds

RECORD = Claim(
    "C3",
    "The regret is horizon-free",
    "Theorem 1, eq. (1) (the bound holds for every horizon T)",
    "We give a constructive horizon-free eps-DP algorithm for stochastic DTOL and prove "
    "the explicit regret bound Reg_T <= 1000 (log K/Delta_min + log K/eps). "
    "[Theorem 1:] for every K >= 2, every eps > 0, every horizon T >= 1 [...] "
    "Reg_T <= 1 + 800 log K/Delta_min + 16 log K/eta.",
    "largest Reg(T_max)/Reg(T0) over cells, T0 the first checkpoint after "
    "c max(L/gap^2, L/(eta gap)), L = 1 + log K",
    ("horizon", "gap", "epsilon", "actions", "grid"),
    ("confidence", "horizon_free_ratio_max", "horizon_free_c"),
    f"{__name__}:check",
    "horizon",
    ("ftl_egreedy",),
    implied_by=("C2",),
    rate=True,
    tex=ClaimTeX(
        r"The regret is horizon-free",
        r"We give a constructive horizon-free $\varepsilon$-DP algorithm for stochastic DTOL and "
        r"prove the explicit regret bound "
        r"$\mathrm{Reg}_T \le 1000 (\log K/\Delta_{\min} + \log K/\varepsilon)$. [Theorem 1:] "
        r"for every $K \ge 2$, every $\varepsilon > 0$, every horizon $T \ge 1$ [\dots] "
        r"$\mathrm{Reg}_T \le 1 + 800 \log K/\Delta_{\min} + 16 \log K/\eta$.",
        r"largest $\mathrm{Reg}(T_{\max})/\mathrm{Reg}(T_0)$ over cells, $T_0$ the first "
        r"checkpoint after $c \max(L/\Delta_{\min}^2, L/(\eta \Delta_{\min}))$, "
        r"$L = 1 + \log K$",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id
#: names of the two interval methods (the ``interval`` column / cell key)
PAIRED, DELTA = "paired", "delta"
TAIL_COLUMNS = ("tail_mean", "tail_se")


def paired_ratio_ci(inc, se_inc, den, se_den, confidence: float):
    """Ratio ``1 + inc/den`` of the regret at a high horizon over the regret ``den`` at a low one,
    where ``inc`` is the mean per-run increment between the two horizons (same runs), with a
    Bonferroni-rectangle interval: ``inc ± z·se_inc`` and ``den ± z·se_den`` each hold with
    confidence ``1 − (1 − confidence)/2``, so jointly with ``confidence`` whatever their
    correlation, and the interval is the range of ``1 + inc/den`` over that rectangle:

    - upper = ``1 + inc_hi/den_lo`` if ``inc_hi >= 0`` else ``1 + inc_hi/den_hi``;
    - lower = ``1 + inc_lo/den_hi`` if ``inc_lo >= 0`` else ``1 + inc_lo/den_lo``;

    with ``+inf`` (upper) or ``-inf`` (lower, when ``inc_lo < 0``) if ``den_lo <= 0``.  Returns
    ``(ratio, se, low, high)``; ``se`` is an informative delta-method value (increment and
    denominator treated as independent), not used for the interval.  NaN where ``den <= 0`` or
    an input is not finite."""
    inc, se_inc, den, se_den = (np.asarray(v, dtype=float) for v in (inc, se_inc, den, se_den))
    z = stats.z_value(bonferroni_confidence(confidence, 2))
    ok = (den > 0) & np.isfinite(inc) & np.isfinite(se_inc) & np.isfinite(se_den)
    inc_lo, inc_hi = inc - z * se_inc, inc + z * se_inc
    den_lo, den_hi = den - z * se_den, den + z * se_den
    pos = den_lo > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ok, 1 + inc / den, np.nan)
        se = np.where(ok, np.sqrt((se_inc / den) ** 2 + (inc * se_den / den**2) ** 2), np.nan)
        high = np.where(
            inc_hi >= 0, np.where(pos, 1 + inc_hi / den_lo, np.inf), 1 + inc_hi / den_hi
        )
        low = np.where(
            inc_lo >= 0, 1 + inc_lo / den_hi, np.where(pos, 1 + inc_lo / den_lo, -np.inf)
        )
    return ratio, se, np.where(ok, low, np.nan), np.where(ok, high, np.nan)


#: a cell reaches its plateau when T0 <= T_max / PLATEAU_MARGIN
PLATEAU_MARGIN = 2**8


def plateau_target(K, gap, epsilon, c: float, offset: float = 1.0):
    """``c·max(L/gap², L/(eta·gap))`` with ``L = offset + log K`` (the eta term is absent when
    eps is NaN).  ``L = 1 + log K`` is the log K of the identification time plus the confidence
    term of a concentration bound: with ``log K`` alone (``offset = 0``, the design as first
    registered, see :data:`privdtol.analysis.diagnosis.DEVIATIONS`) the scale vanishes as
    K -> 1 and undershoots identification at K = 2 (log 2 = 0.69)."""
    logk = offset + np.log(np.asarray(K, dtype=float))
    gap = np.asarray(gap, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    stat = logk / gap**2
    with np.errstate(invalid="ignore", divide="ignore"):
        priv = np.where(np.isfinite(eps), logk / (bounds.eta(eps) * gap), 0.0)
    return c * np.maximum(stat, priv)


def plateau_table(
    df: pd.DataFrame, c: float, confidence: float, offset: float = 1.0
) -> pd.DataFrame:
    """Per cell: T0 (first checkpoint >= :func:`plateau_target`), T_max, ``reached``
    (T0 <= T_max/2^8), the regrets at both, ``ratio = Reg(T_max)/Reg(T0)`` with its upper limit
    ``ratio_high`` (``confidence``) and lower limit ``ratio_low_adj`` (Bonferroni over the
    reached cells), and the interval method."""
    if df.empty:
        return pd.DataFrame()
    has_tail = all(col in df.columns for col in TAIL_COLUMNS)
    # one block of rows per cell, the cells in groupby's order, each by increasing horizon
    gid = df.groupby(cell_keys(df), dropna=False, sort=True).ngroup().to_numpy()
    order = np.lexsort((df["horizon"].to_numpy(), gid))
    d = df.iloc[order].reset_index(drop=True)
    gid, h = gid[order], d["horizon"].to_numpy(np.int64)
    first = np.r_[0, np.flatnonzero(np.diff(gid)) + 1]
    last = np.r_[first[1:], len(d)] - 1
    size = last - first + 1
    eps = pd.to_numeric(d["epsilon"].iloc[first], errors="coerce").to_numpy(float)
    target = np.asarray(
        plateau_target(d["K"].to_numpy()[first], d["gap"].to_numpy(float)[first], eps, c, offset),
        dtype=float,
    )
    t_max = h[last]
    # the first checkpoint at or beyond the target (horizons increase within a cell)
    pos = np.where(h >= np.repeat(target, size), np.arange(len(d)), len(d))
    hit = np.minimum.reduceat(pos, first)
    found = hit <= last
    a, b = np.where(found, hit, last), last
    reached = found & (np.where(found, h[np.minimum(hit, len(d) - 1)], 0) * PLATEAU_MARGIN <= t_max)
    if has_tail:
        tails = [d[col].to_numpy(float)[i] for i in (a, b) for col in TAIL_COLUMNS]
    else:
        tails = [np.full(first.size, np.nan)] * 4
    exact = (d["runs"].to_numpy(float)[b] == 0) if "runs" in d.columns else np.zeros(b.size, bool)
    paired = ~exact & np.all(np.isfinite(np.vstack(tails)), axis=0)
    cols = ("algorithm", "env", "K", "gap", "epsilon", "instance", "rho", "kappa")
    h_low = h[a] if found.all() else np.where(found, h[a], np.nan)
    out = pd.DataFrame(
        {
            **{k: d[k].to_numpy()[first] for k in cols if k in d.columns},
            "target": target,
            "h_low": h_low,
            "h_high": t_max,
            "reached": reached,
            "mean_low": d["mean"].to_numpy()[a],
            "se_low": d["se"].to_numpy()[a],
            "mean_high": d["mean"].to_numpy()[b],
            "se_high": d["se"].to_numpy()[b],
            "interval": np.where(exact, "exact", np.where(paired, PAIRED, DELTA)).astype(object),
            "increment": np.where(paired, tails[0] - tails[2], np.nan),
            "increment_se": np.where(paired, tails[1] + tails[3], np.nan),
        }
    )
    n_adj = max(int(out["reached"].sum()), 1)
    conf_adj = bonferroni_confidence(confidence, n_adj)
    ratio, se, _, high = stats.ratio_ci(
        out["mean_high"], out["se_high"], out["mean_low"], out["se_low"], confidence
    )
    _, _, low_adj, _ = stats.ratio_ci(
        out["mean_high"], out["se_high"], out["mean_low"], out["se_low"], conf_adj
    )
    p_ratio, p_se, _, p_high = paired_ratio_ci(
        out["increment"], out["increment_se"], out["mean_low"], out["se_low"], confidence
    )
    _, _, p_low_adj, _ = paired_ratio_ci(
        out["increment"], out["increment_se"], out["mean_low"], out["se_low"], conf_adj
    )
    use = (out["interval"] == PAIRED).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["log_span"] = np.log(out["h_high"].to_numpy(float) / out["h_low"].to_numpy(float))
    out["ratio"] = np.where(use, p_ratio, ratio)
    out["ratio_se"] = np.where(use, p_se, se)
    out["ratio_high"] = np.where(use, p_high, high)
    out["ratio_low_adj"] = np.where(use, p_low_adj, low_adj)
    return out


def slope_min(reg_low, log_span, ratio_max: float):
    """(r - 1) Reg(T0) / ln(T_max/T0): the smallest slope beta of an added beta ln T that can
    raise Reg(T_max)/Reg(T0) above ``ratio_max`` = r (module docstring, Scope)."""
    reg_low, log_span = np.asarray(reg_low, float), np.asarray(log_span, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(log_span > 0, (ratio_max - 1) * reg_low / log_span, np.nan)


def check_horizon_free(
    df: pd.DataFrame,
    ratio_max: float,
    c: float,
    confidence: float,
    algorithm: str = "rps",
    inputs=(),
    offset: float = 1.0,
) -> dict:
    """C3: in every cell that reaches its plateau, Reg(T_max)/Reg(T0) <= ``ratio_max`` (upper
    limit); see the module docstring (``offset``: :func:`plateau_target`)."""
    rows = dedupe_cells(select(df, algorithm))
    title = "Horizon-free regret after identification"
    label = (
        f"max over cells of Reg(T_max)/Reg(T0), T0 >= c max(L/gap^2, L/(eta gap)), "
        f"L = {'1 + ' if offset else ''}log K"
    )
    threshold = f"upper {confidence:.0%} limit of the ratio <= {ratio_max} in every cell (c = {c})"
    head = Heading(CLAIM, title, label, threshold)
    tab = plateau_table(rows, c, confidence, offset) if len(rows) else pd.DataFrame()
    if tab.empty:
        return no_data(head, f"No {algorithm} cells in the input.", inputs, algorithm)
    cells, verdicts = [], []
    tab["slope_min"] = slope_min(tab["mean_low"], tab["log_span"], ratio_max)
    for r in tab.to_dict("records"):  # dicts: a Series row costs ~5 us a read
        v = upper_verdict(r["ratio_low_adj"], r["ratio_high"], ratio_max) if r["reached"] else None
        if v is not None:
            verdicts.append(v)
        cells.append(
            {
                **cell_label(r),
                "T0": r["h_low"],
                "T_max": r["h_high"],
                "reached": r["reached"],
                "interval": r["interval"],
                "ratio": r["ratio"],
                "ratio_high": r["ratio_high"],
                "slope_min": r["slope_min"],
                "verdict": v if v is not None else "NOT REACHED",
            }
        )
    reached = tab[tab["reached"]]
    n_not = len(tab) - len(reached)
    if reached.empty:
        return make_check(
            head,
            None,
            None,
            None,
            INCONCLUSIVE,
            f"None of the {len(tab)} {algorithm} cells reaches its plateau horizon T0 before "
            f"T_max/2^8.",
            cells,
            inputs,
            algorithm,
        )
    i = reached["ratio_high"].idxmax()
    methods = ", ".join(f"{k}: {v}" for k, v in reached["interval"].value_counts().items())
    summary = (
        f"{len(reached)} of {len(tab)} {algorithm} cells reach their plateau T0 "
        f"(c = {c}); {n_not} not reached (T0 > T_max/2^8), left out. Largest "
        f"Reg(T_max)/Reg(T0) = {fmt(reached['ratio'].max(), 4)} (largest upper limit "
        f"{fmt(reached['ratio_high'].max(), 4)} at K={fmt(reached.at[i, 'K'])}, "
        f"gap={fmt(reached.at[i, 'gap'])}, eps={fmt(reached.at[i, 'epsilon'])}, "
        f"T0={fmt(reached.at[i, 'h_low'])}); threshold {ratio_max}. Intervals ({methods}). "
        f"Scope: a PASS excludes an added β ln T only for β above (r − 1) Reg(T0) / "
        f"ln(T_max/T0), from {fmt(reached['slope_min'].min())} to "
        f"{fmt(reached['slope_min'].max())} over the reached cells."
    )
    stat = [reached[col].max() for col in ("ratio", "ratio_low_adj", "ratio_high")]
    verdict = combine_verdicts(verdicts)
    return make_check(head, *stat, verdict, summary, cells, inputs, algorithm)


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "rps"
) -> dict:
    """The registry's C3 check: :func:`check_horizon_free` on the experiments' tables stacked,
    with the config's ``horizon_free_ratio_max``, ``horizon_free_c`` and ``confidence``; the
    record also carries (``first_design``) the verdict of the design as first registered,
    ``L = log K`` (a disclosed deviation, :data:`privdtol.analysis.diagnosis.DEVIATIONS`)."""
    args = (
        stack(tables, RECORD.experiments),
        thresholds["horizon_free_ratio_max"],
        thresholds["horizon_free_c"],
        thresholds["confidence"],
    )
    record = check_horizon_free(*args, algorithm=algorithm, inputs=inputs)
    first = check_horizon_free(*args, algorithm=algorithm, inputs=inputs, offset=0.0)
    record["first_design"] = {
        k: first[k] for k in ("statistic_label", "statistic", "ci_high", "verdict")
    }
    record["summary"] += (
        f" Under the first design (L = log K): {first['verdict']}, largest ratio "
        f"{fmt(first['statistic'], 4)}."
    )
    return record
