"""Claim C0 (engine agreement; the pipeline's own claim, not the paper's): the exact expected
regret of the block algorithms (:mod:`privdtol.engine.exact`, Section 3's
Reg_T = sum_t E[Delta_(I_t)] summed block by block as in the proof of Lemma 4) equals the
Monte Carlo estimate of the same cell.

Every regret check of the paper's claims reads exact values where they exist, so a defect of
the exact engine would reach every verdict; C0 guards against it.  The ``agreement``
experiment runs the same cells twice (slices with ``exact: off`` and ``exact: auto``).  For
every (cell, checkpoint horizon) pair,

    z = max(0, abs(MC mean - exact) - error_bound) / se_MC,

the distance in standard errors beyond the exact value's numerical error bound and float
summation (``ROUNDING`` relative: the runs of a deterministic law differ in their last bits).  The
statistic is max z over the pairs; the diagnostic PASSes when it is at most ``agreement_z_max``
(4 in the schema) and no bounded pair (below) disagrees, and FAILs otherwise.  Under agreement
each abs(z) > 4 has probability alpha = 2 Phi(-4) = 6.3e-5 (the Monte Carlo means are sums of
many independent runs, hence normal), so the probability of a false FAIL over n pairs is at most
n · alpha by Bonferroni (the record states it).  The Monte Carlo estimator is unbiased (a
Rao-Blackwellised charge of the block's expected gap, :mod:`privdtol.engine.fast`), so a FAIL is
a defect of one of the engines.

Pairs with standard error 0 (every run gave the same value v: a deterministic law, as at T = 1
where A_0 is uniform, or a chance event, as when every run of a Laplace competitor at K = 2^16
plays a suboptimal action in every block) have no z; they are compared by a *bound* instead
(``comparison`` "bounded"): they agree when

    abs(v - exact) <= error_bound + ROUNDING abs(exact) + (1 - alpha^(1/n)) M,

M = T max_j Delta_j the largest regret of a run, n the runs.  The last term is what chance
allows: if P(run = v) = p then abs(E - v) <= (1 - p) M, and n equal runs have probability
p^n, so a departure beyond (1 - alpha^(1/n)) M is seen with probability below alpha, the z
pairs' level (a deterministic law makes it conservative).  A bounded pair that disagrees FAILs
the diagnostic; the record and the notebook's table count the bounded pairs apart instead of
showing them as z = 0.

The reference runs: besides the block-sum Monte Carlo engine
(:mod:`privdtol.engine.fast`), slices with ``exact: explicit`` simulate their cells round by
round (:mod:`privdtol.engine.explicit`, estimator ``per_round``): every round's whole loss
vector is drawn from the loss model (``sample_rounds``), the prefix sum L_r(M_r) is accumulated
round by round and every round is charged its own gap, at K >= 1024.  What it shares with the
fast engine: the algorithm objects (their selection ``select`` through
:func:`privdtol.engine.selection.select_next`, and the prefix law ``prefix_lengths``), the
instance generator, the dyadic clock and the seeding; it shares neither the block-sum laws
(``window_sums``) nor the charging.  With the exact engine it shares only the algorithm's
parameters (eta, the Laplace scale, the prefix range): the exact engine computes the selection
laws by its own quadratures (:mod:`privdtol.engine.exact`).

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
from privdtol.analysis.claim_types import Claim, ClaimTeX
from privdtol.analysis.records import Heading, fmt, make_check, no_data
from privdtol.analysis.verdict import FAIL, PASS
from privdtol.environments import instance_means

RECORD = Claim(
    "C0",
    "Exact and Monte Carlo regret agree",
    "Section 3 (definition of Reg_T); the pipeline's own claim",
    "The expected pseudoregret up to horizon T is Reg_T = E[sum_(t=1)^T (X_(t,I_t) - "
    "X_(t,1))] = sum_(t=1)^T E[Delta_(I_t)].",
    "largest |Monte Carlo mean - exact value| in standard errors over the cells computed "
    "both ways (block sums and round by round) and their checkpoint horizons; pairs "
    "with s.e. 0 within a stated bound",
    ("agreement",),
    ("agreement_z_max", "agreement_min_events"),
    f"{__name__}:check",
    "agreement",
    diagnostic="the pipeline's own claim (its two engines compute the same Reg_T), not "
    "a statement of the paper",
    tex=ClaimTeX(
        r"Exact and Monte Carlo regret agree",
        r"The expected pseudoregret up to horizon $T$ is $\mathrm{Reg}_T = "
        r"\mathbb{E}[\sum_{t=1}^T (X_{t,I_t} - X_{t,1})] = \sum_{t=1}^T "
        r"\mathbb{E}[\Delta_{I_t}]$.",
        r"largest $|\text{Monte Carlo} - \text{exact}|$ in standard errors over the cells "
        r"computed both ways (block sums and round by round) and their checkpoint horizons; "
        r"pairs with s.e.~0 within a stated bound",
    ),
)
#: the claims this module checks (collected by :mod:`privdtol.analysis.registry`)
RECORDS = (RECORD,)
CLAIM = RECORD.id
#: relative float-summation tolerance of a Monte Carlo mean with zero standard error
ROUNDING = 1e-9
#: the columns that identify a cell apart from how it is computed
PAIR_KEYS = ["algorithm", "env", "instance", "K", "gap", "epsilon", "mu_best", "rho", "kappa"]


#: the comparisons of a pair: by its distance in standard errors, or by a bound (s.e. 0)
Z_COMPARED, BOUNDED = "z", "bounded"


def pair_level(z_max: float) -> float:
    """alpha = 2 Phi(-z_max), the probability of abs(z) > z_max for one pair under agreement."""
    return float(2 * ndtr(-z_max))


def pair_table(df: pd.DataFrame, z_max: float = 4.0) -> pd.DataFrame:
    """Monte Carlo rows joined to the exact rows of the same cell and horizon, with ``z``
    (NaN for the pairs with s.e. 0), ``comparison`` (:data:`Z_COMPARED` or :data:`BOUNDED`),
    the bounded pairs' ``tolerance`` and ``agree`` (module docstring; ``z_max`` sets their
    level, the schema's ``agreement_z_max`` default 4)."""
    keys = [k for k in PAIR_KEYS if k in df.columns] + ["horizon"]
    exact = df[df["estimator"] == "exact"]
    mc = df[(df["estimator"] != "exact") & (df["se"] >= 0)]
    # NaN parameters (epsilon of a non-private cell, rho, kappa) must match each other
    filled = {k: -1.0 for k in ("epsilon", "mu_best", "rho", "kappa") if k in keys}
    ex = exact.fillna(filled)[[*keys, "mean", "ci_high"]]
    ex = ex.assign(error_bound=ex["ci_high"] - ex["mean"]).drop(columns="ci_high")
    pairs = mc.fillna(filled).merge(ex, on=keys, suffixes=("", "_exact"))
    pairs = pairs.rename(columns={"error_bound": "error_bound_exact"})
    for k in filled:
        pairs[k] = pairs[k].replace(-1.0, np.nan)
    diff = pairs["mean"] - pairs["mean_exact"]
    bounded = (pairs["se"] == 0).to_numpy()
    # beyond the exact error bound and float summation (ROUNDING relative: a deterministic
    # law's runs differ in their last bits, an s.e. of 1e-16 that must not count)
    rounded = pairs["error_bound_exact"] + ROUNDING * pairs["mean_exact"].abs()
    excess = np.maximum(0.0, diff.abs() - rounded)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(bounded, np.nan, excess / pairs["se"].where(~bounded, 1.0))
    pairs["comparison"] = np.where(bounded, BOUNDED, Z_COMPARED)
    pairs["z"] = z
    # the figure's signed distance is the statistic's, with the sign of the difference
    pairs["signed_z"] = np.sign(diff) * z
    if pairs.empty:
        pairs["tolerance"], pairs["agree"] = [], []
        return pairs
    # bounded pairs: error bound + float summation + what n equal runs allow (docstring)
    top = pairs["horizon"].to_numpy(float) * largest_gaps(pairs)
    n = pairs["runs"].to_numpy(float)
    chance = -np.expm1(np.log(pair_level(z_max)) / np.maximum(n, 1)) * top
    tol = rounded + chance
    pairs["tolerance"] = np.where(bounded, tol, np.nan)
    pairs["agree"] = np.where(bounded, diff.abs() <= tol, z <= z_max)
    return pairs


def largest_gaps(pairs: pd.DataFrame) -> np.ndarray:
    """Per pair: max_j Delta_j of its instance (a run's regret is at most T times it)."""
    cols = pairs[["K", "gap", "mu_best", "instance"]].fillna({"mu_best": -1.0})
    spread = {}
    for key in cols.drop_duplicates().itertuples(index=False, name=None):
        K, gap, mu_best, instance = key
        means = instance_means(int(K), float(gap), None if mu_best < 0 else mu_best, instance)
        spread[key] = float(means.max() - means.min())
    return np.asarray([spread[k] for k in cols.itertuples(index=False, name=None)], dtype=float)


def expected_departures(pairs: pd.DataFrame) -> pd.Series:
    """Per pair: runs x (M - exact)/M, M = T max_j Delta_j (the largest regret of one run), a
    lower bound on the expected number of runs below M (Markov's inequality on M - regret)."""
    top = pairs["horizon"].to_numpy(float) * largest_gaps(pairs)
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
    in standard errors (beyond the exact value's error bound) is at most ``z_max``, and every
    pair with s.e. 0 agrees within its bound (module docstring); pairs with fewer than
    ``min_events`` runs expected below the largest possible regret are left out (None: none
    is)."""
    head = Heading(
        CLAIM,
        "Exact and Monte Carlo engines agree",
        "max over (cell, horizon) of |MC - exact| / se (beyond the exact error bound)",
        f"<= {fmt(z_max)} standard errors in every pair (Bonferroni over the pairs); pairs "
        "with s.e. 0 within their bound",
    )
    if df.empty or "estimator" not in df.columns:
        return no_data(head, "No agreement experiment in the input.", inputs, algorithm)
    pairs = pair_table(df, z_max)
    rare = rare_pairs(pairs, min_events)
    n_rare, pairs = int(rare.sum()), pairs[~rare]
    if pairs.empty:
        return no_data(head, "No cell was computed both exactly and by Monte Carlo.", inputs)
    cells = []
    keys = [k for k in PAIR_KEYS if k in pairs.columns] + ["estimator"]
    for _, g in pairs.groupby(keys, dropna=False):
        zs, bd = g[g["comparison"] == Z_COMPARED], g[g["comparison"] == BOUNDED]
        bad = bd[~bd["agree"].astype(bool)]
        # the pair shown: a disagreeing bounded pair if any, else the largest z
        worst = bad.iloc[0] if len(bad) else (zs.loc[zs["z"].idxmax()] if len(zs) else bd.iloc[0])
        cells.append(
            {
                **cell_label(worst, ("algorithm", "env", "instance", "K", "gap", "epsilon")),
                "estimator": worst["estimator"],
                "runs": worst["runs"],
                "pairs": len(g),
                "horizon": worst["horizon"],
                "comparison": worst["comparison"],
                "mc_mean": worst["mean"],
                "mc_se": worst["se"],
                "exact": worst["mean_exact"],
                "error_bound": worst["error_bound_exact"],
                "z": float(zs["z"].max()) if len(zs) else None,
                "bounded": len(bd),
                "bounded_disagree": len(bad),
                "verdict": PASS if (zs["z"] <= z_max).all() and bad.empty else FAIL,
            }
        )
    zs = pairs[pairs["comparison"] == Z_COMPARED]
    bd = pairs[pairs["comparison"] == BOUNDED]
    n_bad = int((~bd["agree"].astype(bool)).sum())
    n = len(pairs)
    stat = float(zs["z"].max()) if len(zs) else 0.0
    verdict = PASS if stat <= z_max and n_bad == 0 else FAIL
    false_fail = min(1.0, n * pair_level(z_max))
    mean_z = float(zs["signed_z"].mean()) if len(zs) else 0.0
    engines = ", ".join(sorted(pairs["estimator"].unique()))
    summary = (
        f"{len(cells)} cells ({', '.join(sorted(pairs['algorithm'].unique()))}; Monte Carlo "
        f"estimators {engines}) computed both ways, {n} (cell, horizon) pairs. {len(zs)} "
        f"compared in standard errors: the largest distance is {fmt(stat)} (mean signed "
        f"distance {fmt(mean_z)}). {len(bd)} with s.e. 0 compared by a bound (error bound + "
        f"rounding + what n equal runs allow by chance): {n_bad} disagree. "
        f"Under agreement a FAIL has probability at most {fmt(false_fail, 2)} (Bonferroni)."
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
    df = stack(tables, RECORD.experiments)
    return check_agreement(
        df, thresholds["agreement_z_max"], inputs, min_events=thresholds["agreement_min_events"]
    )
