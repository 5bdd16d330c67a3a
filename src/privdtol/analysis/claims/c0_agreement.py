"""Claim C0 (engine agreement; the pipeline's own claim, not the paper's): the exact expected
regret of the block algorithms (:mod:`privdtol.engine.exact`, Section 3's
Reg_T = sum_t E[Delta_(I_t)] summed block by block as in the proof of Lemma 4) equals the
Monte Carlo estimate of the same cell.

Every regret check of the paper's claims reads exact values where they exist, so a defect of
the exact engine would reach every verdict; C0 guards against it.  The ``agreement``
experiment runs the same cells twice (slices with ``exact: off`` and ``exact: auto``).  For
every (cell, checkpoint horizon) pair,

    z = max(0, abs(MC mean - exact) - error_bound) / se_MC,

the distance in standard errors beyond the exact value's numerical error bound (pairs whose
standard error is 0, a deterministic selection law, must agree to the error bound plus float
rounding: z is 0 or infinite).  The
statistic is max z over the pairs; the claim PASSes when it is at most ``agreement_z_max``
(4 in the schema) and FAILs otherwise.  Under agreement each abs(z) > 4 has probability
2 Phi(-4) = 6.3e-5 (the Monte Carlo means are sums of many independent runs, hence normal), so
the probability of a false FAIL over n pairs is at most n · 6.3e-5 by Bonferroni (the record
states it).  The Monte Carlo estimator is unbiased (a Rao-Blackwellised charge of the block's
expected gap, :mod:`privdtol.engine.fast`), so a FAIL is a defect of one of the two engines.

Rare events: a run's regret lies in [0, M], M = T max_j Delta_j, so at least
runs (M - exact)/M runs are expected below M.  When that count is below
``agreement_min_events`` (10 in the schema), the runs that depart from the worst case may be a
handful, the sample standard error counts only those seen and the mean is not yet normal (at
K = 1024 and T = 7 almost every run plays a suboptimal action throughout; 0 of 2000 runs chose
the best action in one block where 2.2 were expected, and the sample se, built from one event
of the previous block, put the mean 5.5 of its se from the exact value).  Such pairs are left
out of the statistic and counted in the summary.  The other end needs no guard: A_0 is
uniform, so a run's regret is positive with probability at least (K - 1)/K >= 1/2.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.special import ndtr

from privdtol.analysis.cells import cell_label, stack
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.registry import CLAIMS
from privdtol.analysis.verdict import FAIL, PASS
from privdtol.environments import instance_means

CLAIM = "C0"
#: relative float-summation tolerance of a Monte Carlo mean with zero standard error
ROUNDING = 1e-9
#: the columns that identify a cell apart from how it is computed
PAIR_KEYS = ["algorithm", "env", "instance", "K", "gap", "epsilon", "mu_best", "rho", "kappa"]


def pair_table(df: pd.DataFrame) -> pd.DataFrame:
    """Monte Carlo rows joined to the exact rows of the same cell and horizon, with ``z``."""
    keys = [k for k in PAIR_KEYS if k in df.columns] + ["horizon"]
    exact = df[df["estimator"] == "exact"]
    mc = df[(df["estimator"] != "exact") & (df["se"] >= 0)]
    # NaN parameters (epsilon of a non-private cell, rho, kappa) must match each other
    filled = {k: -1.0 for k in ("epsilon", "mu_best", "rho", "kappa") if k in keys}
    ex = exact.fillna(filled)[[*keys, "mean", "ci_high"]]
    ex = ex.assign(error_bound=ex["ci_high"] - ex["mean"]).drop(columns="ci_high")
    pairs = mc.fillna(filled).merge(ex, on=keys, suffixes=("", "_exact"))
    pairs = pairs.rename(columns={"error_bound": "error_bound_exact"})
    diff = pairs["mean"] - pairs["mean_exact"]
    # a zero standard error (a deterministic law, e.g. rps_full_prefix on deterministic losses):
    # the Monte Carlo value is then exact too, up to float summation (ROUNDING relative)
    tol = pairs["error_bound_exact"] + ROUNDING * pairs["mean_exact"].abs()
    excess = np.maximum(0.0, diff.abs() - tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs["z"] = np.where(
            pairs["se"] > 0, excess / pairs["se"], np.where(excess > 0, np.inf, 0)
        )
        # the figure's signed distance is the statistic's, with the sign of the difference
        pairs["signed_z"] = np.sign(diff) * pairs["z"]
    for k in filled:
        pairs[k] = pairs[k].replace(-1.0, np.nan)
    return pairs


def expected_departures(pairs: pd.DataFrame) -> pd.Series:
    """Per pair: runs x (M - exact)/M, M = T max_j Delta_j (the largest regret of one run), a
    lower bound on the expected number of runs below M (Markov's inequality on M - regret)."""
    cols = pairs[["K", "gap", "mu_best", "instance"]].fillna({"mu_best": -1.0})
    spread = {}
    for key in cols.drop_duplicates().itertuples(index=False, name=None):
        K, gap, mu_best, instance = key
        means = instance_means(int(K), float(gap), None if mu_best < 0 else mu_best, instance)
        spread[key] = float(means.max() - means.min())
    dmax = [spread[k] for k in cols.itertuples(index=False, name=None)]
    top = pairs["horizon"].to_numpy(float) * np.asarray(dmax, dtype=float)
    mu = pairs["mean_exact"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        room = pairs["runs"].to_numpy(float) * (top - mu) / top
    return pd.Series(room, index=pairs.index)


def rare_pairs(pairs: pd.DataFrame, min_events: float | None) -> pd.Series:
    """Per pair of :func:`pair_table`: whether C0 leaves it out, fewer than ``min_events`` runs
    expected below the largest regret of a run (:func:`expected_departures`; rare events, where
    the sample se is not reliable); None: no pair is left out."""
    if min_events is None or pairs.empty:
        return pd.Series(False, index=pairs.index)
    return (expected_departures(pairs) < min_events) & (pairs["se"] > 0)


def check_agreement(
    df: pd.DataFrame,
    z_max: float,
    inputs=(),
    algorithm: str = "all",
    *,
    min_events: float | None,
) -> dict:
    """C0: max over (cell, horizon) pairs of the Monte Carlo mean's distance to the exact value
    in standard errors (beyond the exact value's error bound) is at most ``z_max``; pairs with
    fewer than ``min_events`` runs expected below the largest possible regret are left out
    (None: none is)."""
    head = Heading(
        CLAIM,
        "Exact and Monte Carlo engines agree",
        "max over (cell, horizon) of |MC - exact| / se (beyond the exact error bound)",
        f"<= {fmt(z_max)} standard errors in every pair (Bonferroni over the pairs)",
    )
    if df.empty or "estimator" not in df.columns:
        return no_data(head, "No agreement experiment in the input.", inputs, algorithm)
    pairs = pair_table(df)
    rare = rare_pairs(pairs, min_events)
    n_rare, pairs = int(rare.sum()), pairs[~rare]
    if pairs.empty:
        return no_data(head, "No cell was computed both exactly and by Monte Carlo.", inputs)
    cells = []
    for _, g in pairs.groupby([k for k in PAIR_KEYS if k in pairs.columns], dropna=False):
        worst = g.loc[g["z"].idxmax()]
        cells.append(
            {
                **cell_label(worst, ("algorithm", "env", "instance", "K", "gap", "epsilon")),
                "runs": worst["runs"],
                "pairs": len(g),
                "horizon": worst["horizon"],
                "mc_mean": worst["mean"],
                "mc_se": worst["se"],
                "exact": worst["mean_exact"],
                "error_bound": worst["error_bound_exact"],
                "z": worst["z"],
                "verdict": PASS if g["z"].max() <= z_max else FAIL,
            }
        )
    n = len(pairs)
    stat = float(pairs["z"].max())
    verdict = PASS if stat <= z_max else FAIL
    false_fail = min(1.0, n * 2 * ndtr(-z_max))
    mean_z = float(pairs["signed_z"].mean())
    summary = (
        f"{len(cells)} cells ({', '.join(sorted(pairs['algorithm'].unique()))}) computed both "
        f"ways, {n} (cell, horizon) pairs: the largest distance is {fmt(stat)} standard errors "
        f"(mean signed distance {fmt(mean_z)}); under agreement a distance above {fmt(z_max)} "
        f"somewhere has probability at most {fmt(false_fail, 2)} (Bonferroni)."
    )
    if n_rare:
        summary += (
            f" Left out: {n_rare} pairs with fewer than {fmt(min_events)} runs expected below "
            "the largest possible regret, T times the largest mean difference (rare events: "
            "the sample se is not reliable there)."
        )
    return make_check(head, stat, None, None, verdict, summary, cells, inputs, algorithm)


def check(
    tables: Mapping[str, pd.DataFrame], thresholds: dict, inputs: list[str], algorithm: str = "all"
) -> dict:
    """The registry's C0 check on the ``agreement`` experiment (``algorithm`` is ignored: every
    algorithm of the experiment is compared)."""
    df = stack(tables, CLAIMS[CLAIM].experiments)
    return check_agreement(
        df, thresholds["agreement_z_max"], inputs, min_events=thresholds["agreement_min_events"]
    )
