"""Findings: numbers the report shows beside the verdicts that are not claims of the paper, so
out of the verdict count (the registry's :data:`~privdtol.analysis.registry.FINDINGS`):

- ``constants``: the fitted a, b of ``a log K/gap + b log K/eta + c`` over the rps cells of the
  grid (C4's fit) against Theorem 1's 800 and 16 (the paper says its constant "is not
  optimized");
- ``theta_band``: min and max of ``Reg / (log K/min(gap, eps))`` over the grid (bounded on any
  finite grid, so not a verdict);
- ``prefix_cost`` and ``cap_cost``: rps against ``rps_full_prefix`` and ``rps_uncapped`` in the
  ablations experiment (ratio of regrets per cell: min, median, max);
- ``competitors``: rps against the best private competitor per regime (ratio per cell).

:func:`findings` evaluates them all into one JSON-safe dict (``results/findings.json``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import dedupe_cells, final_rows, regime, select, stack
from privdtol.analysis.claims.c4_rate import form_columns
from privdtol.analysis.records import fmt, plain

#: Theorem 1's constants of the log K/gap and log K/eta terms
PAPER = (800.0, 16.0)
#: the private competitors of rps
COMPETITORS = ("rnm_ftnl", "wu_wang", "wu_wang_gumbel")


def _final(tables, experiments, algorithm=None) -> pd.DataFrame:
    df = stack(tables, experiments)
    if df.empty:
        return df
    df = select(df, algorithm, "bernoulli", "standard") if algorithm else df
    return dedupe_cells(final_rows(df))


def _spread(values) -> dict:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return {"n": 0, "min": None, "median": None, "max": None}
    return {"n": int(v.size), "min": v.min(), "median": float(np.median(v)), "max": v.max()}


def constants(tables: Mapping[str, pd.DataFrame]) -> dict:
    rows = _final(tables, ("grid",), "rps")
    if len(rows) < 4:
        return {"available": False, "text": "Fewer than four rps cells in the grid."}
    tab = form_columns(rows)
    fit = stats.form_fit(tab["x_gap"], tab["x_eta"], tab["mean"])
    return {
        "available": True,
        "a": fit["a"],
        "b": fit["b"],
        "c": fit["c"],
        "paper_a": PAPER[0],
        "paper_b": PAPER[1],
        "n": fit["n"],
        "text": f"Over {fit['n']} rps grid cells regret ~ {fmt(fit['a'])} log K/gap + "
        f"{fmt(fit['b'])} log K/eta + {fmt(fit['c'])}: the constants are "
        f"{fmt(PAPER[0] / fit['a'])} and {fmt(PAPER[1] / fit['b'])} times below Theorem 1's "
        "800 and 16 (which the paper does not optimize).",
    }


def theta_band(tables: Mapping[str, pd.DataFrame]) -> dict:
    rows = _final(tables, ("grid",), "rps")
    if rows.empty:
        return {"available": False, "text": "No rps cells in the grid."}
    lower = np.log(rows["K"].astype(float)) / np.minimum(rows["gap"], rows["epsilon"])
    band = _spread(rows["mean"] / lower)
    return {
        "available": True,
        **band,
        "text": f"Reg / (log K/min(gap, eps)) ranges over [{fmt(band['min'])}, "
        f"{fmt(band['max'])}] over {band['n']} rps grid cells (bounded on any finite grid: "
        "a finding, not a verdict).",
    }


def _ablation(tables, other: str, what: str, where=None, where_text: str = "") -> dict:
    """rps / ``other`` per common cell of the ablations experiment; with ``where`` (a mask
    function of the cells' (K, gap, epsilon) index) only over the cells where the ablated
    ingredient matters, the others counted apart."""
    df = _final(tables, ("ablations",))
    if df.empty:
        return {"available": False, "text": "No ablations experiment."}
    keys = ["K", "gap", "epsilon"]
    a = select(df, "rps").set_index(keys)["mean"]
    b = select(df, other).set_index(keys)["mean"]
    ratio = (a / b).dropna()
    if ratio.empty:
        return {"available": False, "text": f"No common rps and {other} cells."}
    left_out = 0
    if where is not None:
        mask = np.asarray(where(ratio.index), dtype=bool)
        left_out = int((~mask).sum())
        ratio = ratio[mask]
        if ratio.empty:
            return {"available": False, "text": f"No common cell {where_text}."}
    s = _spread(ratio)
    rest = (
        f"; the {left_out} other cells, where it does not matter, are left out" if left_out else ""
    )
    return {
        "available": True,
        **s,
        "where": where_text,
        "left_out": left_out,
        "text": f"{what}: rps / {other} over {s['n']} cells{' ' + where_text if where_text else ''}"
        f": median {fmt(s['median'])} (range [{fmt(s['min'])}, {fmt(s['max'])}]){rest}.",
    }


def prefix_cost(tables: Mapping[str, pd.DataFrame]) -> dict:
    return _ablation(tables, "rps_full_prefix", "Cost of the random prefix")


def cap_cost(tables: Mapping[str, pd.DataFrame]) -> dict:
    """rps / rps_uncapped over the cells where the cap binds (eps/2 > 1/8, i.e. eps > 1/4):
    elsewhere the two algorithms are the same (eta = eps/2 for both) and their ratio is 1."""
    return _ablation(
        tables,
        "rps_uncapped",
        "Cost of the eta cap",
        where=lambda idx: idx.get_level_values("epsilon") / 2 > 1 / 8,
        where_text="where the cap binds (eps > 1/4)",
    )


#: the regimes of the competitor table, defined from the rate's two terms
REGIMES = {
    "statistical": "eps > gap: log K/gap dominates the rate",
    "balanced": "eps = gap: the two terms are equal",
    "privacy": "eps < gap: log K/eps dominates the rate",
}


def competitors(tables: Mapping[str, pd.DataFrame]) -> dict:
    """rps against each private competitor and against the best of them, per regime
    (:data:`REGIMES`), over the distinct standard-instance cells of the rate experiments; with
    the disclosure of the competitors that are the same algorithm on these losses."""
    from privdtol.analysis.registry import RATE_EXPERIMENTS

    df = _final(tables, RATE_EXPERIMENTS)
    if df.empty:
        return {"available": False, "text": "No rate experiments."}
    df = select(df, None, "bernoulli", "standard")
    keys = ["K", "gap", "epsilon"]
    rps = select(df, "rps").drop_duplicates(keys).set_index(keys)["mean"]
    comp = select(df, list(COMPETITORS)).drop_duplicates(["algorithm", *keys])
    if comp.empty or rps.empty:
        return {"available": False, "text": "No rps and competitor cells in common."}
    best = comp.groupby(keys)["mean"].min()
    ratio = (rps / best).dropna().reset_index(name="ratio")
    if ratio.empty:
        return {"available": False, "text": "No rps and competitor cells in common."}
    ratio["regime"] = regime(ratio["gap"], ratio["epsilon"])
    per = {}
    for name, g in ratio.groupby("regime"):
        per[str(name)] = {**_spread(g["ratio"]), "rps_best": int((g["ratio"] <= 1).sum())}
    rows = []
    wide = comp.pivot_table(index=keys, columns="algorithm", values="mean")
    for alg in [*COMPETITORS, "best"]:
        other = best if alg == "best" else wide.get(alg)
        if other is None:
            continue
        r = (rps / other).dropna().reset_index(name="ratio")
        r["regime"] = regime(r["gap"], r["epsilon"])
        for name, g in r.groupby("regime"):
            rows.append(
                {
                    "regime": str(name),
                    "competitor": alg,
                    **_spread(g["ratio"]),
                    "rps_better": int((g["ratio"] < 1).sum()),
                }
            )
    # rnm_ftnl and wu_wang (Laplace) are the same law on {0,1} losses (Bernoulli resampling is
    # the identity there): measured, not assumed
    same = {}
    if {"rnm_ftnl", "wu_wang"} <= set(wide.columns):
        pair = wide[["rnm_ftnl", "wu_wang"]].dropna()
        rel = (pair["rnm_ftnl"] - pair["wu_wang"]).abs() / pair["rnm_ftnl"]
        same = {"n": len(pair), "max_rel_diff": float(rel.max()) if len(pair) else None}
    text = "; ".join(
        f"{k}: rps / best competitor median {fmt(v['median'])} over {v['n']} cells "
        f"(rps best in {v['rps_best']})"
        for k, v in per.items()
    )
    return {
        "available": True,
        "regimes": per,
        "regime_definitions": {k: v for k, v in REGIMES.items() if k in per},
        "table": rows,
        "identical": same,
        "text": text + ".",
    }


def dependent_rate(tables: Mapping[str, pd.DataFrame]) -> dict:
    """The exponents p (statistical regime: each model's largest eps) and q (privacy regime:
    cells with eta = eps/2 at each model's largest gap) of rps on the dependent loss models,
    one series per rho or kappa (Section 1's remark claims the upper bound only)."""
    from privdtol.analysis.claims.c4_rate import EXPONENTS, exponent_series

    df = stack(tables, ("dependent",))
    if df.empty:
        return {"available": False, "text": "No dependent experiment."}
    rows = dedupe_cells(final_rows(select(df, "rps")))
    rows = rows[~rows["env"].isin(["bernoulli", "blocked"])]  # blocked: C5's control
    parts, series = [], []
    for which in ("p", "q"):
        sub = (
            rows[rows["epsilon"] == rows.groupby("env")["epsilon"].transform("max")]
            if which == "p"
            else rows[
                (rows["epsilon"] / 2 <= 1 / 8)
                & (rows["gap"] == rows.groupby("env")["gap"].transform("max"))
            ]
        )
        keys = [*EXPONENTS[which][2], "env"]
        for sr in exponent_series(sub, which, 0.95, keys) if len(sub) else []:
            if sr["n"] >= 3 and np.isfinite(sr["estimate"]):
                par = f"rho={fmt(sr['rho'])}" if sr.get("rho") is not None else ""
                par = par or (f"kappa={fmt(sr['kappa'])}" if sr.get("kappa") is not None else "")
                series.append(
                    {k: sr[k] for k in ("exponent", "n", "estimate", "ci_low", "ci_high")}
                )
                series[-1].update(env=sr.get("env"), parameter=par)
                parts.append(
                    f"{which} = {fmt(sr['estimate'])} [{fmt(sr['ci_low'])}, {fmt(sr['ci_high'])}] "
                    f"({sr.get('env')}, {par}, {sr['n']} cells)"
                )
    if not parts:
        return {"available": False, "text": "No series of three dependent cells."}
    return {
        "available": True,
        "series": series,
        "text": "Exponents of rps on dependent losses (95% intervals): " + "; ".join(parts) + ".",
    }


def findings(tables: Mapping[str, pd.DataFrame]) -> dict:
    """Every finding of the registry: ``{id: {"title", "available", "text", ...numbers}}``."""
    from privdtol.analysis.registry import FINDINGS

    out = {}
    for f in FINDINGS.values():
        sub = {e: tables[e] for e in f.experiments if e in tables}
        out[f.id] = {"title": f.title, **f.finding_function()(sub)}
    return plain(out)
