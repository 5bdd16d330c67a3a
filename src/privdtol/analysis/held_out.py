"""Changes made after results were seen, confirmed on data they were not tuned on.

Every change to a check or a grid made after its results were seen
(:data:`privdtol.analysis.diagnosis.DEVIATIONS`) names the configs it was tuned on
(``tuned_on``: file stems under ``config/``).  A run confirms the change *out of sample* on its
cells that none of those configs simulates: the claim's own rule, and each of its negative
controls', on this run's aggregated tables with every row of a tuned-on cell removed.  A cell is
identified by what fixes its data, whatever its horizon (a longer horizon's checkpoints include
the shorter one's): algorithm, loss model, instance, K, gap, eps, rho and kappa
(:data:`CELL_KEY`).  The result per claim is

- ``yes``: the claim PASSes and every control FAILs on the held-out cells;
- ``no``: it does not (the verdicts are in the record);
- ``not run``: no held-out cell (the default run, tuned on itself), or the claim's data has no
  cells to hold out (the privacy audit).

One table, ``results/checks/out_of_sample.json`` (``privdtol check --out-of-sample``); the
verdict table's "Changed" column reads it.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from privdtol.analysis.verdict import FAIL, PASS

#: the columns that identify a cell's data, whatever its horizon
CELL_KEY = ("algorithm", "env", "instance", "K", "gap", "epsilon", "rho", "kappa")

YES, NO, NOT_RUN = "yes", "no", "not run"


def _norm(value):
    """A key component comparable across the plan and a table: None for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str):
        return value
    return round(float(value), 12)


def cell_key(values) -> tuple:
    """The :data:`CELL_KEY` of a cell or a table row (an object or a mapping)."""
    get = values.get if isinstance(values, dict) else lambda k: getattr(values, k, None)
    return tuple(_norm(get(k)) for k in CELL_KEY)


def changed_claims() -> list[str]:
    """The claims with a disclosed change, in the order of their first disclosure."""
    from privdtol.analysis.diagnosis import DEVIATIONS

    return list(dict.fromkeys(d["claim"] for d in DEVIATIONS))


def tuned_config_files(config_dir: str | Path) -> list[str]:
    """Every config file a disclosed change was tuned on (they fix the held-out cells)."""
    from privdtol.analysis.diagnosis import DEVIATIONS

    stems = sorted({s for d in DEVIATIONS for s in d["tuned_on"]})
    return sorted({str(p) for s in stems for p in config_files(s, config_dir)})


def config_files(stem: str, config_dir: str | Path) -> list[Path]:
    """The files a config stem is built from: config.yaml, then ``<stem>.yaml`` merged on it."""
    base = Path(config_dir) / "config.yaml"
    return [base] if stem == "config" else [base, Path(config_dir) / f"{stem}.yaml"]


def tuned_cells(stems, config_dir: str | Path) -> set[tuple]:
    """The keys of every cell simulated by the configs ``stems``."""
    from privdtol.pipeline import plan as grid
    from privdtol.pipeline.config import load_config_files

    keys: set[tuple] = set()
    for stem in sorted(set(stems)):
        planned = grid.plan(load_config_files([str(p) for p in config_files(stem, config_dir)]))
        for cells, _ in planned.values():
            keys.update(cell_key(c) for c in cells)
    return keys


def held_out_tables(
    tables: dict[str, pd.DataFrame], tuned: set[tuple], experiments
) -> dict[str, pd.DataFrame]:
    """The rows of the config's ``experiments`` tables whose cells are outside ``tuned``
    (tables left empty dropped); every other table (the lower bound's, the privacy audit's, the
    searches' of this run) kept whole beside them; nothing when no experiment row is held out."""
    out, held = {}, False
    for name, table in tables.items():
        if name not in experiments or not set(CELL_KEY) <= set(table.columns):
            out[name] = table
            continue
        keys = table[list(CELL_KEY)].astype(object).apply(lambda r: cell_key(r.to_dict()), axis=1)
        kept = table[~keys.isin(tuned).to_numpy()] if len(table) else table
        if len(kept):
            out[name] = kept.reset_index(drop=True)
            held = True
    return out if held else {}


def confirm(claim, tables: dict[str, pd.DataFrame], thresholds) -> dict:
    """The claim's rule on its subject (RPS for the paper's claims) and its controls' rules on
    ``tables`` (already held out): the verdicts and the result (module docstring)."""
    fn = claim.check_function()
    subject = getattr(claim, "subject", "rps")  # the algorithm the claim is about
    rec = fn(tables, thresholds, [], algorithm=subject)
    controls = {c: fn(tables, thresholds, [], algorithm=c)["verdict"] for c in claim.controls}
    simulated = [t for t in tables.values() if "algorithm" in t.columns]
    if not any((t["algorithm"] == subject).any() for t in simulated):
        result = NOT_RUN
    else:
        result = YES if rec["verdict"] == PASS and all(v == FAIL for v in controls.values()) else NO
    return {
        "verdict": rec["verdict"],
        "statistic": rec.get("statistic"),
        "controls": controls,
        "result": result,
    }


def out_of_sample_table(config: dict, agg_dir: Path, config_dir: str | Path = "config") -> dict:
    """One row per changed claim: the configs it was tuned on, the held-out rows, and
    :func:`confirm`'s verdicts and result."""
    from privdtol.analysis.diagnosis import DEVIATIONS
    from privdtol.analysis.records import load_agg, plain
    from privdtol.analysis.registry import CLAIMS, claim_thresholds
    from privdtol.pipeline.plan import experiment_names

    experiments = set(experiment_names(config))
    rows = []
    for claim_id in changed_claims():
        claim = CLAIMS.get(claim_id)
        if claim is None:
            continue
        stems = sorted({s for d in DEVIATIONS if d["claim"] == claim_id for s in d["tuned_on"]})
        tuned = tuned_cells(stems, config_dir)
        tables = held_out_tables(load_agg(agg_dir, claim.experiments), tuned, experiments)
        row = {"claim": claim_id, "tuned_on": stems, "held_out_rows": 0, "result": NOT_RUN}
        if tables:
            row["held_out_rows"] = int(sum(len(t) for n, t in tables.items() if n in experiments))
            row.update(confirm(claim, tables, claim_thresholds(claim_id, config["checks"])))
        rows.append(row)
    return plain({"rows": rows})


__all__ = [
    "CELL_KEY",
    "cell_key",
    "changed_claims",
    "confirm",
    "held_out_tables",
    "out_of_sample_table",
    "tuned_cells",
    "tuned_config_files",
]
