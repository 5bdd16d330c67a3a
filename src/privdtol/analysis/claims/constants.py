"""The constants of Theorem 1, eq. (1): ``Reg_T <= 1 + 800 log K/Δ + 16 log K/η``.

The mean regret of RPS over every distinct cell (largest horizon) is fitted to the theorem's
form ``regret − 1 ≈ c_gap·(log K/gap) + c_eta·(log K/eta)`` (relative non-negative least
squares with a case bootstrap, :func:`privdtol.analysis.stats.fit_constants`) and the fitted
constants are set against the paper's 800 and 16.  Statistic: ``max(c_gap/800, c_eta/16)``
with its bootstrap interval; PASS if the interval is below 1 (the theorem's constants are not
beaten by the fitted mean constants), FAIL if above 1 (decision rule:
:mod:`privdtol.analysis.verdict`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.analysis import stats
from privdtol.analysis.cells import dedupe_cells, final_rows, select, stack
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.registry import CLAIMS
from privdtol.analysis.verdict import upper_verdict
from privdtol.core import bounds

CLAIM = "constants"
#: case-bootstrap draws of the fit
N_BOOT = 2000
#: the paper's constants of the log K/gap and log K/eta terms
PAPER = (800.0, 16.0)


def check_constants(
    df: pd.DataFrame,
    confidence: float,
    algorithm: str = "rps",
    env="bernoulli",
    n_boot: int = N_BOOT,
    inputs=(),
) -> dict:
    """Fitted constants of Theorem 1's form (see :func:`privdtol.analysis.stats.fit_constants`) on
    every distinct cell at its largest horizon, against the paper's 800 and 16.  Statistic: the
    larger of c_gap/800 and c_eta/16 with its bootstrap interval; PASS if the interval is below 1
    (the theorem's constants are not beaten by the fitted mean constants), FAIL if above 1."""
    rows = dedupe_cells(final_rows(select(df, algorithm, env)))
    rows = rows[np.isfinite(rows["epsilon"])]
    title = "Fitted constants of Theorem 1 (800 and 16)"
    label = "max(c_gap/800, c_eta/16)"
    threshold = "bootstrap CI of max(c_gap/800, c_eta/16) below 1"
    head = Heading(CLAIM, title, label, threshold)
    if len(rows) < 3:
        return no_data(head, "Fewer than three cells.", inputs)
    logk = np.log(rows["K"].astype(float))
    x_gap = logk / rows["gap"]
    x_eta = logk / bounds.eta(rows["epsilon"])
    fit = stats.fit_constants(
        x_gap, x_eta, rows["mean"], confidence, n_boot, seed_key={"claim": "constants"}
    )
    boot = np.max(fit["boot"] / np.array(PAPER), axis=1)
    alpha = 1 - confidence
    low, high = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    stat = max(fit["c_gap"] / PAPER[0], fit["c_eta"] / PAPER[1])
    cells = [
        {
            "term": "log K/gap",
            "estimate": fit["c_gap"],
            "ci_low": fit["c_gap_ci"][0],
            "ci_high": fit["c_gap_ci"][1],
            "paper": 800,
        },
        {
            "term": "log K/eta",
            "estimate": fit["c_eta"],
            "ci_low": fit["c_eta_ci"][0],
            "ci_high": fit["c_eta_ci"][1],
            "paper": 16,
        },
    ]
    summary = (
        f"Relative least squares over {fit['n']} cells: regret - 1 ~ "
        f"{fmt(fit['c_gap'])} [{fmt(fit['c_gap_ci'][0])}, {fmt(fit['c_gap_ci'][1])}]"
        f" log K/gap + {fmt(fit['c_eta'])} [{fmt(fit['c_eta_ci'][0])}, "
        f"{fmt(fit['c_eta_ci'][1])}] log K/eta, against the paper's 800 and 16 "
        f"({n_boot} bootstrap resamples of cells)."
    )
    return make_check(
        head,
        stat,
        low,
        high,
        upper_verdict(low, high, 1.0),
        summary,
        cells,
        inputs,
    )


def check(tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str]) -> dict:
    """The registry's constants check: :func:`check_constants` with :data:`N_BOOT` draws."""
    return check_constants(
        stack(tables, CLAIMS[CLAIM].experiments),
        thresholds["confidence"],
        n_boot=N_BOOT,
        inputs=inputs,
    )
