"""The privacy experiment: every audit over a grid, as one tidy table (one row per cell).

The grid comes from the ``privacy`` block of the pipeline config: its keys and defaults are the
config schema's (:data:`DEFAULT_GRID`; the audited algorithms' lists: :data:`DEFAULT_ALGORITHMS`).
Cells run serially in a fixed order with parameter-keyed seeds, so the table is byte-identical
across runs and machines.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privdtol.algorithms import ALGORITHMS
from privdtol.errors import InputError
from privdtol.privacy.audit_controls import AUDIT_ONLY
from privdtol.privacy.exact_selection import audit_selection
from privdtol.privacy.mechanisms import (
    AUDITABLE,
    PRIVATE,
    block_index,
    law_kind,
    make_audited,
    selection_eta,
)
from privdtol.privacy.statistical import audit_statistical
from privdtol.privacy.whole_sequence import audit_sequence

#: how the audit groups the selection laws (the privacy figure's panels): the exponential
#: mechanism (softmax, and Gumbel noise, the same law), then Laplace report-noisy-min, then
#: the laws of a class's own (``law`` methods, e.g. a plugin's)
FAMILY_ORDER = ("softmax", "gumbel_noisy_min", "laplace_noisy_min")


def _family_rank(name: str) -> int:
    law = ALGORITHMS[name].exact_law
    return FAMILY_ORDER.index(law.family) if law is not None else len(FAMILY_ORDER)


#: the algorithms the audit covers unless the config says otherwise, from their declarations:
#: every private algorithm whose selection law the audits compute (:data:`PRIVATE`), the
#: registry's negative controls left out, grouped by :data:`FAMILY_ORDER`, in registry order
#: within a group
AUDITED = tuple(sorted((n for n in PRIVATE if ALGORITHMS[n].role != "control"), key=_family_rank))

#: the audited algorithms when the ``privacy`` block leaves a list out, by the list's key (from
#: the algorithms' declarations and the audit's own controls; every other default of the grid
#: is the config schema's)
DEFAULT_ALGORITHMS: dict[str, list[str]] = {
    "algorithms": list(AUDITED),
    # the audit's own controls (privdtol.privacy.audit_controls)
    "negative_controls": list(AUDIT_ONLY),
    "statistical.algorithms": ["rnm_ftnl", "wu_wang", "rps", "rps_eta_eps"],
}


def default_grid() -> dict[str, Any]:
    """The grid of an empty ``privacy`` block: the defaults of the config schema's ``privacy``
    keys (``privdtol/pipeline/config.schema.yaml``, which the validated config carries) and the
    lists of :data:`DEFAULT_ALGORITHMS`, in the schema's order of keys."""
    from privdtol.pipeline.config import load_schema

    return _defaults(load_schema()["properties"]["privacy"], "")


def _defaults(node: dict, prefix: str) -> dict[str, Any]:
    out = {}
    for key, sub in node["properties"].items():
        if "properties" in sub:
            out[key] = _defaults(sub, f"{prefix}{key}.")
        else:
            out[key] = sub["default"] if "default" in sub else DEFAULT_ALGORITHMS[prefix + key]
    return out


#: the audit grid when the config's ``privacy`` block leaves a key out (:func:`default_grid`)
DEFAULT_GRID: dict[str, Any] = default_grid()

#: the audited algorithms in display order (the privacy figure's panels): the private ones,
#: then the negative controls, as the default grid lists them
DISPLAY_ORDER = DEFAULT_ALGORITHMS["algorithms"] + DEFAULT_ALGORITHMS["negative_controls"]

#: the columns of the privacy table, in order
COLUMNS = [
    "audit",
    "algorithm",
    "role",
    "epsilon",
    "eta",
    "K",
    "block",
    "horizon",
    "lead",
    "runs",
    "alpha",
    "loss",
    "loss_lower",
    "loss_upper",
    "exact_loss",
    "bound_selection",
    "bound_eps",
    "ratio_eps",
    "within_selection_bound",
    "violation",
    "verdict",
    "pairs_evaluated",
    "law",
    "data_scope",
    "witness",
    "seed",
]


def merge_grid(grid: Mapping[str, Any] | None) -> dict[str, Any]:
    """:data:`DEFAULT_GRID` overridden by ``grid`` (one level deep for the per-audit blocks):
    a validated config's block (which carries the schema's defaults) gains the algorithm lists
    it leaves out; unknown keys and algorithm names are input errors naming ``privacy.<key>``
    and the allowed values."""
    out = json.loads(json.dumps(DEFAULT_GRID))
    for key, value in (grid or {}).items():
        if key not in out:
            raise InputError(f"privacy.{key}", "unknown key", ", ".join(DEFAULT_GRID))
        if isinstance(out[key], dict):
            if not isinstance(value, Mapping):
                raise InputError(f"privacy.{key}", f"got {value!r}", "a mapping")
            for sub, v in value.items():
                if sub not in out[key]:
                    raise InputError(f"privacy.{key}.{sub}", "unknown key", ", ".join(out[key]))
                out[key][sub] = v
        else:
            out[key] = value
    lists = {
        "privacy.algorithms": out["algorithms"],
        "privacy.negative_controls": out["negative_controls"],
        "privacy.statistical.algorithms": out["statistical"]["algorithms"],
    }
    for key, names in lists.items():  # the schema leaves these to the registry (plugins too)
        for i, name in enumerate(names):
            if name not in AUDITABLE:
                raise InputError(f"{key}[{i}]", f"got {name!r}", ", ".join(AUDITABLE))
    for b in out["blocks"] + [out["statistical"]["block"]]:
        block_index(b)
    for e in out["epsilons"]:
        if not (isinstance(e, (int, float)) and e > 0 and math.isfinite(e)):
            raise InputError("privacy.epsilons", f"got {e!r}", "numbers > 0")
    return out


def _row(result, **extra) -> dict:
    d = result.to_dict()
    row = dict.fromkeys(COLUMNS, np.nan)
    for c in COLUMNS:
        if c in d:
            row[c] = d[c]
    row["witness"] = d.get("witness_text", "")
    row["role"] = "negative_control" if d["negative_control"] else "private"
    row["ratio_eps"] = d["loss"] / d["epsilon"]
    row.update(extra)
    return row


def run_grid(grid: Mapping[str, Any] | None = None, progress=None) -> pd.DataFrame:
    """Run every audit of the grid; returns the table with :data:`COLUMNS`."""
    g = merge_grid(grid)
    seed = int(g["seed"])
    names = list(g["algorithms"]) + list(g["negative_controls"])
    rows = []

    def note(text):
        if progress is not None:
            progress(text)

    exact_kw = {k: int(g["exact"][k]) for k in ("n_random", "max_steps")}
    for name in names:
        laplace = law_kind(make_audited(name, 1.0)) == "laplace_quadrature"
        for eps in g["epsilons"]:
            for K in g["K"]:
                if laplace and int(g["exact"]["laplace_max_K"]) < K:
                    continue  # K quadratures per law: keep the grid small
                for block in g["blocks"]:
                    note(f"exact_selection {name} eps={eps} K={K} block={block}")
                    res = audit_selection(
                        name, float(eps), int(K), int(block), seed=seed, **exact_kw
                    )
                    rows.append(_row(res, seed=seed, horizon=np.nan))
            for K in g["sequence"]["K"]:
                note(f"whole_sequence {name} eps={eps} K={K}")
                res = audit_sequence(
                    name,
                    float(eps),
                    int(K),
                    int(g["sequence"]["horizon"]),
                    seed=seed,
                    n_random=int(g["sequence"]["n_random"]),
                )
                rows.append(_row(res, seed=seed, block=np.nan))
    st = g["statistical"]
    for name in st["algorithms"]:
        for eps in g["epsilons"]:
            for K in st["K"]:
                note(f"statistical {name} eps={eps} K={K}")
                res = audit_statistical(
                    name,
                    float(eps),
                    int(K),
                    int(st["block"]),
                    runs=int(st["runs"]),
                    seed=seed,
                    alpha=float(st["alpha"]),
                )
                eta = selection_eta(make_audited(name, float(eps)), int(K))
                rows.append(_row(res, seed=seed, eta=eta, horizon=4 * st["block"] - 1))
    df = pd.DataFrame(rows, columns=COLUMNS)
    for c in ("K", "block", "horizon", "lead", "runs", "pairs_evaluated", "seed"):
        df[c] = df[c].astype("Int64")
    for c in ("within_selection_bound",):
        df[c] = df[c].astype("boolean")
    df["violation"] = df["violation"].astype(bool)
    return df
