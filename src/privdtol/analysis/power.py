"""Size and power of the regret checks: each check run on synthetic tables with known
truth, on the cells the configuration simulates.

*Truth under the null* is the two-term form of Corollary 1 that the checks test,
``Reg = a log K/Delta + b log K/eta + c`` with eta = min(eps/2, 1/8) (:func:`null_regret`),
reaching its plateau over the horizon as ``1 - exp(-T/T*)``, T* = 2 max(log K/Delta^2,
log K/(eta Delta)), and capped by T Delta (no algorithm pays more than playing one suboptimal
action).  ``a, b, c`` and the lack of fit are *fitted to the run* (:func:`fitted_model`: the
rps cells of the ``grid`` experiment, the fit of claim C4; ``sigma`` the standard deviation of
log(regret/fit) over them), so the synthetic tables look like the measured ones.  Every cell gets
an independent log-normal factor exp(sigma Z), constant over its horizons (lack of fit, not
sampling noise: the block algorithms' cells are exact).

*Truth under each negative control* (:func:`control_regret`) is the same form with the control's
defect, its eta taken from the control's class (one definition): ``rps_eta_logk`` (eta /
log2 K), ``rps_eta_sq`` (min(eps^2/2, 1/8)); ``rps_short_prefix`` pays a log^1.5 K/Delta^2 for
a log K/Delta (blocks of 2^r rounds until its prefix 2^(2r/3) identifies the best action);
``uniform`` T mean_j Delta_j; ``ftl_egreedy`` the plateaued statistical term plus its
exploration, Delta (K - 1) ln(T/K + 1).

:func:`power_table` runs every claim check that has a negative control in the configuration
``replicates`` times under the null (the false-FAIL rate is the size) and under the control
(the FAIL rate is the power) and returns ``results/checks/power.json``'s content.  For the
checks of :data:`BY_GAP` it also gives the control's power per (K, gap) cell
(``control_fail_rate_by_cell``, keyed "K=.., gap=..": the rate at which that cell FAILs): C3's
control is caught where Delta (K - 1) is large only, because
its log-T slope Delta (K - 1) vanishes with the gap while its plateau grows like 1/Delta (the
scope of :mod:`privdtol.analysis.claims.c3_horizon_free`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privdtol.algorithms import make_algorithm
from privdtol.analysis import stats
from privdtol.analysis.cells import dedupe_cells, final_rows, select, stack
from privdtol.analysis.claims.c4_rate import form_columns
from privdtol.analysis.records import plain
from privdtol.analysis.registry import CLAIMS, ENV_CONTROLS, controls_for
from privdtol.core import bounds, clock

#: the algorithm of the null (the paper's)
NULL = "rps"
#: the model used when the run has no grid to fit (tests): the default grid's fit
DEFAULT_MODEL = {"a": 1.2, "b": 3.6, "c": 1.0, "sigma": 0.05}
#: checks without a size/power row here, and why (C6 and C7 have theirs on the battery of
#: known truths, :mod:`privdtol.analysis.battery`)
EXCLUDED = {
    "C0": "it states its Bonferroni size in its own record",
    "C1": "its audit is exact: no sampling, no fit",
    "L4": "exact proof terms with numerical error bounds, not statistics of simulated runs",
    "L5": "exact proof terms with numerical error bounds",
    "L5a": "exact proof terms with numerical error bounds",
    "L5b": "exact proof terms with numerical error bounds",
    "C6": "on the battery of known truths (it holds the regret against LB_T)",
    "C7": "on the battery of known truths (it holds the regret against LB_T)",
    "C8a": "it compares exact values (the floor's linear program, exact regrets)",
    "C8b": "it compares exact values (the floor's linear program, exact regrets)",
    "H1": "on the battery of known truths (a claim of the cited work about RNM-FTNL, whose "
    "regret this form of RPS's does not model)",
    "W1": "on the battery of known truths (a claim of the cited work about Wu and Wang's "
    "algorithm, whose regret this form of RPS's does not model)",
}
#: checks with per-cell verdicts whose control's power is also reported per (K, gap) cell
BY_GAP = ("C3",)


def fitted_model(tables: Mapping[str, pd.DataFrame]) -> dict:
    """a, b, c of the form fit over the rps cells of the ``grid`` experiment and ``sigma``, the
    standard deviation of log(regret / fit) over them; :data:`DEFAULT_MODEL` without a grid."""
    rows = dedupe_cells(final_rows(select(stack(tables, ["grid"]), NULL, "bernoulli")))
    if len(rows) < 4:
        return {**DEFAULT_MODEL, "source": "default (no grid experiment)"}
    tab = form_columns(rows)
    fit = stats.form_fit(tab["x_gap"], tab["x_eta"], tab["mean"])
    log_ratio = np.log(fit["ratio"][np.isfinite(fit["ratio"])])
    return {
        "a": fit["a"],
        "b": fit["b"],
        "c": fit["c"],
        "sigma": float(np.std(log_ratio, ddof=3)),
        "source": f"fit over {fit['n']} rps grid cells",
    }


def _eta(algorithm: str, K: int, eps: float) -> float:
    if not np.isfinite(eps):
        return np.inf
    alg = make_algorithm(algorithm, float(eps))
    return float(alg.eta_for(K) if hasattr(alg, "eta_for") else alg.eta)


def _plateau(full: float, K: int, gap: float, eta: float, T, t_star=None) -> np.ndarray:
    lk = np.log(K)
    if t_star is None:
        t_star = 2 * max(lk / gap**2, lk / (eta * gap) if np.isfinite(eta) else 0.0)
    T = np.asarray(T, dtype=float)
    return np.minimum(T * gap, full * -np.expm1(-T / t_star))


def null_regret(model: dict, K: int, gap: float, eps: float, T, eta: float | None = None):
    """Reg_T of the null: a log K/gap + b log K/eta + c, plateaued in T (module docstring)."""
    lk = np.log(K)
    eta = float(bounds.eta(eps)) if eta is None and np.isfinite(eps) else eta
    priv = model["b"] * lk / eta if eta is not None and np.isfinite(eta) else 0.0
    return _plateau(model["a"] * lk / gap + priv + model["c"], K, gap, eta or np.inf, T)


def control_regret(algorithm: str, model: dict, K: int, gap: float, eps: float, T):
    """Reg_T of a negative control (or of the null, ``algorithm == "rps"``)."""
    T = np.asarray(T, dtype=float)
    lk = np.log(K)
    if algorithm == "uniform":
        return T * gap * (K - 1) / K
    if algorithm == "ftl_egreedy":
        stat = _plateau(model["a"] * lk / gap + 1, K, gap, np.inf, T)
        return stat + gap * (K - 1) * np.log(np.maximum(T, 1) / K + 1)
    eta = _eta(algorithm, K, eps)
    if algorithm == "rps_short_prefix":
        n_id = (lk / gap**2) ** 1.5
        full = model["a"] * lk**1.5 / gap**2 + model["b"] * lk / eta + model["c"]
        return _plateau(full, K, gap, eta, T, t_star=2 * max(n_id, lk / (eta * gap)))
    return null_regret(model, K, gap, eps, T, eta=eta)


def synthetic_table(
    algorithm: str, cells: pd.DataFrame, model: dict, seed: int, experiment: str
) -> pd.DataFrame:
    """An aggregated table (the ``results/agg`` columns the checks read) of ``algorithm`` on
    ``cells`` (one row each: K, gap, epsilon, horizon, env, rho, kappa): exact-like values (a
    relative standard error of 1e-10) times a per-cell log-normal lack of fit."""
    return SyntheticCells(algorithm, cells, model, experiment).table(seed)


class SyntheticCells:
    """The deterministic part of :func:`synthetic_table` (the control's regret at every
    checkpoint of every cell, and the table's other columns), built once; :meth:`table` draws
    one replicate's lack of fit (one standard normal per cell, in the cells' order)."""

    def __init__(self, algorithm: str, cells: pd.DataFrame, model: dict, experiment: str):
        self.sigma = model["sigma"]
        means, horizons, rows = [], [], []
        for i, c in enumerate(cells.itertuples(index=False)):
            hs, _ = clock.checkpoints(int(c.horizon))
            eps = np.nan if c.epsilon is None or c.epsilon != c.epsilon else float(c.epsilon)
            means.append(control_regret(algorithm, model, int(c.K), float(c.gap), eps, hs))
            horizons.append(hs)
            rows.append(np.full(hs.size, i))
        self.n_cells = len(means)
        if not means:
            self.base = pd.DataFrame()
            return
        row = np.concatenate(rows)  # the cell of each row
        self.row, self.mean = row, np.concatenate(means)
        gap = cells["gap"].to_numpy(float)[row]
        self.base = pd.DataFrame(
            {
                "experiment": experiment,
                "cell_id": [f"{algorithm}-{i}" for i in row],
                "algorithm": algorithm,
                "env": cells["env"].to_numpy()[row],
                "instance": "standard",
                "K": cells["K"].to_numpy(int)[row],
                "gap": gap,
                "epsilon": pd.to_numeric(cells["epsilon"], errors="coerce").to_numpy(float)[row],
                "mu_best": 0.5 - gap / 2,
                "rho": cells["rho"].to_numpy()[row],
                "kappa": cells["kappa"].to_numpy()[row],
                "horizon": np.concatenate(horizons),
                "runs": 0,
            }
        )

    def table(self, seed: int) -> pd.DataFrame:
        """The replicate of ``seed``: each cell's regret times exp(sigma z), z ~ N(0, 1)."""
        if not self.n_cells:
            return pd.DataFrame()
        z = np.random.default_rng(seed).standard_normal(self.n_cells)
        m = self.mean * np.exp(self.sigma * z)[self.row]
        se = 1e-10 * m
        return self.base.assign(mean=m, se=se, ci_low=m - 1.96 * se, ci_high=m + 1.96 * se)


def config_cells(config: dict, experiments, algorithm: str) -> dict[str, pd.DataFrame]:
    """``{experiment: cells}`` of ``algorithm`` in the config's experiments (the plan's cells)."""
    from privdtol.pipeline.plan import expand_experiment, experiment_names

    out = {}
    for exp in config["experiments"]:
        if exp["name"] not in experiments or exp["name"] not in experiment_names(config):
            continue
        cells = [c for c in expand_experiment(exp, config) if c.algorithm == algorithm]
        if cells:
            out[exp["name"]] = pd.DataFrame([c.params() for c in cells])
    return out


def _fails_by_cell(record: dict) -> dict[tuple[float, float], int]:
    """{(K, gap): 1 if a cell of that K and gap FAILs, else 0} over the record's cells with a
    verdict (cells not reached are left out)."""
    out: dict[tuple[float, float], int] = {}
    for c in record.get("cells", []):
        if c.get("gap") is not None and c.get("verdict") in ("PASS", "FAIL", "INCONCLUSIVE"):
            key = (float(c["K"]), float(c["gap"]))
            out[key] = max(out.get(key, 0), int(c["verdict"] == "FAIL"))
    return out


def power_table(config: dict, model: dict, replicates: int = 40, seed: int = 0) -> dict:
    """Size (false-FAIL rate of the check on the null) and power (FAIL rate on the control)
    of every claim check that has a negative control in ``config``, ``replicates`` synthetic
    tables each (seeds ``seed + i``, the same for every check)."""
    rows = []
    for claim_id, control in controls_for(config):
        if claim_id in EXCLUDED or control in ENV_CONTROLS:
            # a loss-model control (rps on losses repeated in blocks) has no synthetic form:
            # it is measured on its simulated cells only
            continue
        claim = CLAIMS[claim_id]
        fn = claim.check_function()
        rates, by_gap = {}, {}
        for alg in (NULL, control):
            cells = config_cells(config, claim.experiments, alg)
            synthetic = {e: SyntheticCells(alg, c, model, e) for e, c in cells.items()}
            fails = 0
            for i in range(replicates):
                tables = {e: s.table(seed + i) for e, s in synthetic.items()}
                rec = fn(tables, config["checks"], [], algorithm=alg)
                fails += rec["verdict"] == "FAIL"
                if alg == control and claim_id in BY_GAP:
                    for key, hit in _fails_by_cell(rec).items():
                        by_gap[key] = by_gap.get(key, 0) + hit
            rates[alg] = fails / replicates
        row = {
            "claim": claim_id,
            "check": claim.statistic,
            "control": control,
            "false_fail_rate": rates[NULL],
            "control_fail_rate": rates[control],
        }
        if by_gap:
            row["control_fail_rate_by_cell"] = {
                f"K={k:g}, gap={g:g}": by_gap[(k, g)] / replicates for k, g in sorted(by_gap)
            }
        rows.append(row)
    return plain(
        {
            "replicates": replicates,
            "noise": model["sigma"],
            "model": {k: model[k] for k in ("a", "b", "c", "sigma", "source")},
            "rows": rows,
        }
    )
