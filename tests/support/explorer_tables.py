"""Small synthetic tables of the explorer's views (:mod:`privdtol.report.html.explorer_views`):
the privacy audit's, the proof's and the worst-case searches' tables, a few rows each, with the
columns the pipeline writes and the views read."""

from __future__ import annotations

import numpy as np
import pandas as pd

from support.tables import proof_row


def audit_row(algorithm, audit, eps, loss, role="private", lower=np.nan, upper=np.nan):
    return {
        "audit": audit, "algorithm": algorithm, "role": role, "epsilon": eps, "K": 2,
        "block": 1, "loss": loss, "loss_lower": lower, "loss_upper": upper,
        "bound_selection": 2 * min(eps / 2, 1 / 8), "violation": role != "private",
        "witness": f"{algorithm}-{audit}-{loss}",
    }  # fmt: skip


def privacy_table() -> pd.DataFrame:
    """rps at eps 1 and 1/2 (statistical audit at 1/2), the control rps_eta_eps at eps 1."""
    return pd.DataFrame(
        [
            audit_row("rps", "exact_selection", 1.0, 0.2),
            audit_row("rps", "exact_selection", 1.0, 0.24),  # the largest per selection
            audit_row("rps", "whole_sequence", 1.0, 0.1),
            audit_row("rps", "exact_selection", 0.5, 0.125),
            audit_row("rps", "statistical", 0.5, np.nan, lower=0.05, upper=0.3),
            audit_row("rps_eta_eps", "exact_selection", 1.0, 1.6, role="negative_control"),
        ]
    )


def slack_proof_row(i, **values):
    """A fake proof row (support.tables.proof_row) with the sub-steps' columns, as
    tests/analysis/findings/test_slack.py builds it."""
    sub = {"groups_sum": 30.0, "groups_bound": 900.0, "bound_eq5_groups": 1800.0,
           "max_ratio_eq4": 0.25, "median_ratio_eq4": 0.1, "sum_V": 20.5, "bound_drift": 80.0,
           "bound_theorem1": 1 + 4 * 2000.0}  # fmt: skip
    return proof_row(i, **{**sub, **values})


def search_row(sid, algorithm, objective, value, trace, means="0.25 0.5 0.5"):
    return {
        "search_id": sid, "algorithm": algorithm, "K": 3, "gap": 0.25, "epsilon": 1.0,
        "objective": objective, "value": value, "standard_value": 2.0,
        "description": f"{objective} instance", "evaluations": len(trace.split()),
        "unseen_value": 1.5, "unseen_margin": -0.25, "means": means,
        "standard_means": "0.375 0.625 0.625", "trace_ratio": trace,
    }  # fmt: skip


def searches_table() -> pd.DataFrame:
    """Search s1 (rps; theorem1, lower_min) and s0 (rnm_ftnl; theorem1), three evaluations."""
    return pd.DataFrame(
        [
            search_row("s1", "rps", "theorem1", 3.0, "2 3 2.5"),
            search_row("s1", "rps", "lower_min", 1.0, "2 1 1.5", means="0 0.25 1"),
            search_row("s0", "rnm_ftnl", "theorem1", 2.0, "2 2 2"),
        ]
    )
