"""The macros of ``numbers.tex`` (:mod:`privdtol.report.latex.assets`): per claim and control its
verdict and statistic, per regret experiment the numbers the prose quotes (``\\HorizonCells``,
``\\HorizonMaxHorizon``, ...), and the run's counts: claims by verdict, simulated runs, cells
computed exactly and by Monte Carlo."""

from __future__ import annotations

import pandas as pd

from privdtol.analysis.claim_types import BOUNDS_TABLE
from privdtol.analysis.registry import CLAIMS, NOTEBOOKS
from privdtol.report.latex.claims import claim_prefix, counts, split_claims
from privdtol.report.latex.templating import fill_template
from privdtol.report.latex.text import TeX, fmt_int_or_pow2, fmt_num, macro_name, texttt

#: the aggregated tables that are not regret tables (their own sections): the privacy audit
#: the proof terms (privdtol.pipeline.proof), the worst-instance searches and the lower bound
AUDIT_EXPERIMENTS = ("privacy", "proof", "searches", BOUNDS_TABLE, "floor")


def regret_experiments() -> list[str]:
    """The aggregated regret experiments the report quotes (``\\HorizonCells``, ...): every
    experiment a claim or a notebook of the registry reads, in registry order."""
    read = [*CLAIMS.values(), *NOTEBOOKS.values()]
    ordered = dict.fromkeys(e for item in read for e in item.experiments)
    return [e for e in ordered if e not in AUDIT_EXPERIMENTS]


def runs_tex(runs: list[int]) -> TeX:
    """The runs per cell: one number, or the range when cells differ; cells computed exactly
    (``runs`` 0, :mod:`privdtol.engine.exact`) are "exact"."""
    mc = [r for r in runs if r > 0]
    text = (
        ""
        if not mc
        else fmt_num(mc[0])
        if len(mc) == 1
        else TeX(f"{fmt_num(mc[0])}--{fmt_num(mc[-1])}")
    )
    if 0 in runs:
        return TeX(f"exact or {text}" if text else "exact")
    return TeX(text)


def experiment_stats(df: pd.DataFrame | None) -> dict[str, TeX]:
    """Per-experiment numbers quoted in the prose (LaTeX)."""
    na = TeX(r"\NotRunText")
    keys = ("Cells", "Runs", "MaxHorizon", "Algorithms", "RpsMaxRatio", "RpsMaxRegret")
    if df is None or df.empty:
        return dict.fromkeys(keys, na)
    final = df.loc[df.groupby("cell_id")["horizon"].transform("max") == df["horizon"]]
    runs = sorted({int(r) for r in final["runs"].dropna()})
    from privdtol.analysis.registry import ENV_CONTROLS

    # rps on a control loss model (losses repeated in blocks) is a control, not rps's result
    rps = final[(final["algorithm"] == "rps") & ~final["env"].isin(ENV_CONTROLS)]
    ratio = (rps["mean"] / rps["bound_thm1"]).max() if len(rps) else float("nan")
    algs = ", ".join(texttt(a) for a in sorted(final["algorithm"].unique()))
    return {
        "Cells": fmt_num(final["cell_id"].nunique()),
        "Runs": runs_tex(runs) if runs else na,
        "MaxHorizon": fmt_int_or_pow2(df["horizon"].max()),
        "Algorithms": TeX(algs) if algs else na,
        "RpsMaxRatio": fmt_num(ratio),
        "RpsMaxRegret": fmt_num(rps["mean"].max() if len(rps) else float("nan")),
    }


def total_runs(agg: dict[str, pd.DataFrame]) -> int:
    """Simulated runs over the distinct aggregated cells: a cell counts once, at its largest
    ``runs``, also when two experiments share it (the cells :func:`estimator_counts` counts)."""
    frames = [df[["cell_id", "runs"]] for df in agg.values() if df is not None and len(df)]
    if not frames:
        return 0
    return int(pd.concat(frames).groupby("cell_id")["runs"].max().sum())


def estimator_counts(agg: dict[str, pd.DataFrame]) -> dict[str, object]:
    """Cells computed exactly and by Monte Carlo over all experiments (a cell shared by two
    experiments counts once), and the cells of block algorithms on a loss model the exact
    engine covers that were nevertheless simulated (only where a slice says ``exact: off``,
    e.g. C0's agreement experiment), with their experiments: the report states these counts
    instead of asserting that every block-algorithm cell was exact."""
    from privdtol.engine.exact import exact_available

    frames = [df for df in agg.values() if df is not None and len(df)]
    if not frames:
        return {"ExactCells": 0, "AllCells": 0, "BlockMonteCarloCells": 0, "exps": ""}
    cells = pd.concat(
        [df[["experiment", "cell_id", "algorithm", "env", "estimator"]] for df in frames]
    ).drop_duplicates(["experiment", "cell_id"])
    once = cells.drop_duplicates("cell_id")
    covered = [exact_available(a, e) for a, e in zip(once["algorithm"], once["env"], strict=True)]
    mc_block = once[pd.Series(covered, index=once.index) & (once["estimator"] != "exact")]
    exps = sorted(cells[cells["cell_id"].isin(mc_block["cell_id"])]["experiment"].unique())
    return {
        "ExactCells": int((once["estimator"] == "exact").sum()),
        "AllCells": len(once),
        "BlockMonteCarloCells": len(mc_block),
        "exps": TeX(", ".join(texttt(e) for e in exps) or "none"),
    }


def control_names() -> list[dict]:
    """Per claim of the registry its negative controls in code font (``\\LfiveControls``:
    \\texttt{rps\\_uniform\\_mix}), so that the prose names the controls the checks run."""
    return [
        {
            "prefix": claim_prefix(c.id),
            "names": TeX(", ".join(texttt(a) for a in c.controls) or "none"),
        }
        for c in CLAIMS.values()
    ]


def numbers_tex(claims: list[dict], agg: dict[str, pd.DataFrame], controls=()) -> str:
    from privdtol.analysis.diagnosis import DEVIATIONS

    experiments = [
        {"prefix": macro_name(e), "stats": experiment_stats(agg.get(e))}
        for e in regret_experiments()
    ]
    paper, diagnostics, cited = split_claims(claims)
    return fill_template(
        "numbers.tex.j2",
        claims=[*claims, *controls],
        control_names=control_names(),
        experiments=experiments,
        counts={
            **counts(paper),
            **counts(diagnostics, "Diagnostics"),
            **counts(cited, "Cited"),
            "DeviationsTotal": len(DEVIATIONS),
        },
        total_runs=total_runs(agg),
        experiments_run=len(agg),
        estimators=estimator_counts(agg),
    )
