"""The battery of known truths: every claim's own decision rule run on regret tables whose
answer is known by construction, so that each rule is seen to PASS (or stay INCONCLUSIVE) where
its claim is true and to FAIL where it is false, not only on one negative control.

A *case* is a regret function of the cell (K, Δ, ε) and the horizon T, built on one of two
references whose shape is known:

- the rate form of Corollary 1, ``a log K/Δ + b log K/η + c`` reaching its plateau over T and
  capped by TΔ (:func:`privdtol.analysis.power.null_regret`, ``a, b, c`` fitted to the run);
- the explicit lower bound LB_T of the same cell (:mod:`privdtol.core.lower_bound`).

Each case states, for the claims it speaks to, whether the claim is true of it (``truths``;
a claim left out is not determined by the construction and is only reported).  Every cell gets
an independent log-normal factor exp(σ abs(Z)), constant over its horizons (the lack of fit of the
run), and the ``noisy`` case a Monte Carlo standard error as well; each case is run
``replicates`` times.  A claim's *size* is its largest FAIL rate over the cases where it is
true, its *power* its smallest FAIL rate over the cases where it is false.

The cases (:data:`CASES`): a bounded ratio (the form itself); ratios growing like log K, like
√log K, 1/Δ^{1/2}, 1/ε^{1/2} and log T; linear regret (T Δ (1 − 1/K), a data-ignoring uniform
player); a bounded but falling ratio; a competitor better than the form everywhere; the form
under Monte Carlo noise; and, on LB_T, a bounded multiple and half of LB_T (what no ε-DP
algorithm can do).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privdtol.analysis.claim_types import BOUNDS_TABLE
from privdtol.analysis.power import null_regret
from privdtol.analysis.records import plain
from privdtol.analysis.verdict import FAIL
from privdtol.core import clock
from privdtol.core.bounds import eta as eta_of

#: relative Monte Carlo standard error of the ``noisy`` case (the pipeline's simulated cells:
#: 100 to 2000 runs, a relative s.e. of a few per cent)
NOISY_SE = 0.03


@dataclass(frozen=True)
class Case:
    """A regret table known by construction: ``regret(model, K, gap, eps, T, lb, u)`` with
    ``lb`` LB_T at the same horizons and ``u`` a number in [0, 1) fixed per cell."""

    name: str
    description: str
    regret: Callable
    #: ``{claim: True/False}``: whether the claim holds for this case, by construction
    truths: dict = field(default_factory=dict)
    #: relative Monte Carlo standard error of the cells (0: exact values)
    se: float = 0.0
    #: claims for which the case is false but a FAIL is not required: it measures the rule's
    #: power beyond what the rule states it catches (C7 against a √log K factor)
    power_only: tuple[str, ...] = ()


def _form(m, K, gap, eps, T, lb, u):
    return null_regret(m, K, gap, eps, T)


def _log2k(K):
    return np.log2(K)


#: the claims of the cited works (a prior bound's shape, log K/gap + log K log T/eps or
#: log K/gap + log^2 K/eps, each at least of the order of the rate form at K >= 3): true where
#: the regret is within a constant of the rate form, false where a term grows past every
#: prior shape; a FAIL is required only of linear regret (their ceiling, C7's, leaves a
#: log K or log T factor on the grid below it: power only)
_CITED = ("H1", "W1")
_CITED_TRUE = dict.fromkeys(_CITED, True)
_CITED_FALSE = dict.fromkeys(_CITED, False)


CASES: tuple[Case, ...] = (
    Case(
        "bounded",
        "the rate form a log K/gap + b log K/eta + c, plateaued in T",
        _form,
        {
            **dict.fromkeys(("C2", "C3", "C4", "C4a", "C4b", "C4c", "C7"), True),
            **_CITED_TRUE,
        },
    ),
    Case(
        "log_k",
        "the form times log2 K (a rate in log K squared)",
        lambda m, K, g, e, T, lb, u: _form(m, K, g, e, T, lb, u) * _log2k(K),
        {"C3": True, "C4": False, "C4c": False, "C7": False, **_CITED_FALSE},
        power_only=_CITED,
    ),
    Case(
        "sqrt_log_k",
        "the form times sqrt(log2 K)",
        lambda m, K, g, e, T, lb, u: _form(m, K, g, e, T, lb, u) * np.sqrt(_log2k(K)),
        {"C3": True, "C4c": False, "C7": False, **_CITED_FALSE},
        power_only=("C7", *_CITED),
    ),
    Case(
        "gap_sqrt",
        "the form with its statistical term times 1/sqrt(gap)",
        lambda m, K, g, e, T, lb, u: _form({**m, "a": m["a"] / np.sqrt(g)}, K, g, e, T, lb, u),
        {"C4a": False, "C7": False, **_CITED_FALSE},
        power_only=("C7", *_CITED),
    ),
    Case(
        "eps_sqrt",
        "the form with its privacy term times 1/sqrt(eta)",
        lambda m, K, g, e, T, lb, u: _form(
            {**m, "b": m["b"] / np.sqrt(eta_of(e))}, K, g, e, T, lb, u
        ),
        {"C4b": False, "C7": False, **_CITED_FALSE},
        power_only=("C7", *_CITED),
    ),
    Case(
        "log_t",
        "the form times log2(1 + T)/2, growing like log T",
        lambda m, K, g, e, T, lb, u: _form(m, K, g, e, T, lb, u) * np.log2(1.0 + T) / 2,
        {"C3": False, "C7": False, **_CITED_FALSE},
        power_only=_CITED,
    ),
    Case(
        "linear_t",
        "T gap (1 - 1/K): a data-ignoring uniform player (0-DP)",
        lambda m, K, g, e, T, lb, u: np.asarray(T, dtype=float) * g * (1 - 1 / K),
        {"C2": False, "C3": False, "C4": False, "C6": True, "C7": False, **_CITED_FALSE},
    ),
    Case(
        "falling",
        "the form times 1 + 4/log2 K: bounded, falling in K",
        lambda m, K, g, e, T, lb, u: _form(m, K, g, e, T, lb, u) * (1 + 4 / _log2k(K)),
        {"C2": True, "C3": True, "C7": True, **_CITED_TRUE},
    ),
    Case(
        "better",
        "the form divided by 1 + log2(K)/9: better than the form everywhere, more so at large K",
        lambda m, K, g, e, T, lb, u: _form(m, K, g, e, T, lb, u) / (1 + _log2k(K) / 9),
        {"C2": True, "C3": True, "C7": True, **_CITED_TRUE},
    ),
    Case(
        "noisy",
        f"the form with a Monte Carlo standard error of {NOISY_SE:.0%} of the regret",
        _form,
        {"C2": True, "C3": True, "C4": True, "C7": True, **_CITED_TRUE},
        se=NOISY_SE,
    ),
    Case(
        "lb_bounded",
        "LB_T times a factor in [2, 20) fixed per cell",
        lambda m, K, g, e, T, lb, u: lb * (2 + 18 * u),
        {"C6": True, "C7": True, **_CITED_TRUE},
    ),
    Case(
        "below_lb",
        "LB_T / 2 after the first round: below what any eps-DP algorithm pays",
        lambda m, K, g, e, T, lb, u: np.where(np.asarray(T) > 1, lb / 2, lb),
        {"C6": False, **_CITED_TRUE},
    ),
)


def _unit(K, gap, eps) -> float:
    """A number in [0, 1) fixed by the cell (a hash of its parameters, not of Python's)."""
    from privdtol.core.seeding import stable_digest

    return int(stable_digest({"K": int(K), "gap": float(gap), "eps": float(eps)})[:8], 16) / 2**32


def case_table(
    case: Case, cells: pd.DataFrame, bounds: pd.DataFrame, model: dict, experiment: str, seed: int
) -> pd.DataFrame:
    """An aggregated table (the ``results/agg`` columns the checks read) of ``case`` on
    ``cells`` (K, gap, epsilon, horizon, mu_best), every checkpoint, one replicate (``seed``)."""
    rng = np.random.default_rng(seed)
    keys = zip(bounds["K"], bounds["gap"], bounds["epsilon"], bounds["horizon"], strict=True)
    lb_of = dict(zip(keys, bounds["best"].to_numpy(float), strict=True))
    cols: dict[str, list] = {k: [] for k in ("cell", "K", "gap", "eps", "mu", "h", "mean", "se")}
    for c in cells.itertuples(index=False):
        hs, _ = clock.checkpoints(int(c.horizon))
        K, gap, eps = int(c.K), float(c.gap), float(c.epsilon)
        lb = np.array([lb_of.get((K, gap, eps, int(h)), np.nan) for h in hs], dtype=float)
        mean = case.regret(model, K, gap, eps, hs.astype(float), lb, _unit(K, gap, eps))
        # the lack of fit only raises a cell (a case on LB_T stays where its truth puts it)
        mean = np.asarray(mean, dtype=float) * np.exp(model["sigma"] * abs(rng.standard_normal()))
        se = np.maximum(case.se * mean, 1e-10 * mean)
        if case.se:
            mean = mean + se * rng.standard_normal(mean.size)
        n = len(hs)
        cols["cell"] += [f"{case.name}-{K}-{gap:g}-{eps:g}"] * n
        cols["K"] += [K] * n
        cols["gap"] += [gap] * n
        cols["eps"] += [eps] * n
        cols["mu"] += [0.5 - gap / 2 if c.mu_best is None else float(c.mu_best)] * n
        cols["h"].append(np.asarray(hs))
        cols["mean"].append(mean)
        cols["se"].append(se)
    if not cols["cell"]:
        return pd.DataFrame()
    mean, se = np.concatenate(cols["mean"]), np.concatenate(cols["se"])
    return pd.DataFrame(
        {
            "experiment": experiment,
            "cell_id": cols["cell"],
            "algorithm": "battery",
            "env": "bernoulli",
            "instance": "standard",
            "K": np.array(cols["K"], dtype=np.int64),
            "gap": np.array(cols["gap"], dtype=float),
            "epsilon": np.array(cols["eps"], dtype=float),
            "mu_best": np.array(cols["mu"], dtype=float),
            "rho": None,
            "kappa": None,
            "horizon": np.concatenate(cols["h"]),
            "runs": 0 if not case.se else 100,
            "mean": mean,
            "se": se,
            "ci_low": mean - 1.96 * se,
            "ci_high": mean + 1.96 * se,
        }
    )


def run_battery(
    cells: Mapping[str, pd.DataFrame],
    bounds: pd.DataFrame,
    thresholds: dict,
    model: dict,
    replicates: int = 5,
    seed: int = 0,
    claims: Mapping | None = None,
) -> dict:
    """Every case of :data:`CASES` through every claim it speaks to (``claims``: the registry's
    claims, default all), ``replicates`` times each; rows (case, claim, truth, FAIL rate,
    verdicts) and, per claim, size and power (module docstring)."""
    from privdtol.analysis.registry import CLAIMS

    claims = CLAIMS if claims is None else claims
    cache: dict[tuple, pd.DataFrame] = {}

    def built(case, c, experiment, replicate_seed):
        """One case's table, built once per experiment and replicate for all its claims."""
        key = (case.name, experiment, replicate_seed)
        if key not in cache:
            cache[key] = case_table(case, c, bounds, model, experiment, replicate_seed)
        return cache[key].copy()

    rows = []
    for case in CASES:
        for claim_id, truth in case.truths.items():
            claim = claims.get(claim_id)
            if claim is None:
                continue
            fn = claim.check_function()
            verdicts = []
            for i in range(replicates):
                tables = {
                    e: built(case, c, e, seed + i)
                    for e, c in cells.items()
                    if e in claim.experiments
                }
                tables = {e: t for e, t in tables.items() if len(t)}
                if not tables:
                    break
                tables[BOUNDS_TABLE] = bounds
                verdicts.append(fn(tables, thresholds, [], algorithm="battery")["verdict"])
            if not verdicts:
                continue
            fail_rate = sum(v == FAIL for v in verdicts) / len(verdicts)
            required = truth or claim_id not in case.power_only
            rows.append(
                {
                    "case": case.name,
                    "description": case.description,
                    "claim": claim_id,
                    "truth": truth,
                    "fail_rate": fail_rate,
                    "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
                    "required": required,
                    "as_expected": (fail_rate == 0) if truth else (fail_rate == 1 or not required),
                }
            )
    return plain({"replicates": replicates, "rows": rows, "claims": size_power(rows)})


def size_power(rows: list[dict]) -> dict:
    """Per claim: ``size`` (largest FAIL rate where true), ``power`` (smallest FAIL rate over
    the false cases it must FAIL), the power on each power-only case, and the cases of each
    kind."""
    out: dict = {}
    for r in rows:
        c = out.setdefault(r["claim"], {"true_cases": [], "false_cases": [], "power_only": {}})
        if not r["required"]:
            c["power_only"][r["case"]] = r["fail_rate"]
            continue
        c["true_cases" if r["truth"] else "false_cases"].append(r["case"])
        key, pick = ("size", max) if r["truth"] else ("power", min)
        c[key] = pick(c[key], r["fail_rate"]) if key in c else r["fail_rate"]
    return out


def config_battery(config: dict, agg_dir) -> dict:
    """The battery on a run: the rps cells of the config's rate and lower-bound experiments,
    LB_T from the run's lower-bound table, the form fitted to the run's grid
    (:func:`privdtol.analysis.power.fitted_model`), ``checks.battery_replicates`` replicates."""
    from privdtol.analysis.claim_types import LOWER_EXPERIMENTS, RATE_EXPERIMENTS
    from privdtol.analysis.power import config_cells, fitted_model
    from privdtol.analysis.records import load_agg

    experiments = tuple(dict.fromkeys((*RATE_EXPERIMENTS, *LOWER_EXPERIMENTS)))
    tables = load_agg(agg_dir, ["grid", BOUNDS_TABLE])
    if BOUNDS_TABLE not in tables:
        return plain({"replicates": 0, "rows": [], "claims": {}})
    cells = config_cells(config, experiments, "rps")
    return run_battery(
        cells,
        tables[BOUNDS_TABLE],
        config["checks"],
        fitted_model(tables),
        config["checks"]["battery_replicates"],
    )
