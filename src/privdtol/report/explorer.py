"""The explorer (``results/explorer/index.html``): every cell of the run's aggregated regret
tables on one self-contained, interactive page, regret against the horizon T for any selection
of experiment, algorithms, K, Δ_min, ε and loss model, drawn with Plotly.

- exact cells (the exact engine, ``runs`` 0) are lines, their hover gives the numerical error
  bound (``ci_high - mean``, :func:`privdtol.pipeline.aggregate.summarize_exact_cell`); Monte
  Carlo cells are markers with their 95% interval as error bars;
- for RPS, Theorem 1's bound ``1 + 800 log K/Δ_min + 16 log K/η`` (the tables' ``bound_thm1``,
  :func:`privdtol.core.bounds`) is drawn as a dashed line;
- log axes (either can be switched to linear);
- links to the report, the notebook index and every claim's check record (its verdict).

Self-contained: the data (JSON) and the JavaScript (Plotly's ``plotly.min.js`` from the Python
package, and this page's ``explorer.js``) are inline, nothing is fetched: the page renders from
``file://``, offline and inside the run archive.  Deterministic: the same tables give the same
bytes.

    privdtol explorer --agg results/agg/horizon.parquet ... --checks results/checks \\
        --out results/explorer/index.html
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import jinja2
import numpy as np
import pandas as pd
from markupsafe import Markup

from privdtol.analysis.records import read_check
from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, control_id
from privdtol.errors import InputError
from privdtol.report.latex import write_text
from privdtol.report.mathml import text_to_html

TEMPLATES = Path(__file__).parent / "templates"
#: the parameters that identify a cell (besides experiment and algorithm), in display order
PARAMETERS = ("env", "instance", "K", "gap", "epsilon", "eta", "rho", "kappa", "mu_best")
#: the columns an aggregated regret table must have
REQUIRED = ("experiment", "cell_id", "algorithm", "horizon", "mean", "ci_low", "ci_high",
            "runs", "estimator", "bound_thm1", *PARAMETERS)  # fmt: skip
#: the page's links, relative to ``results/explorer/``
LINKS = {
    "report": "../report/replication_report.pdf",
    "notebooks": "../notebooks/index.html",
    "checks": "../checks/",
}


def _value(v):
    """A JSON value: NaN and None as null, numpy scalars as Python ones."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, np.generic):
        return _value(v.item())
    return v


def _floats(a) -> list:
    return [None if math.isnan(x) else x for x in np.asarray(a, dtype=float).tolist()]


def read_table(path: Path) -> pd.DataFrame:
    """One aggregated regret table (``results/agg/<experiment>.parquet``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("agg", f"{path} does not exist", "aggregated tables (.parquet)")
    df = pd.read_parquet(path)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise InputError(
            "agg",
            f"{path} lacks the columns {', '.join(missing)}",
            "aggregated regret tables (privdtol aggregate)",
        )
    return df


def cells(tables) -> list[dict]:
    """One record per cell: its parameters, whether it is exact, Theorem 1's bound, and its
    horizons, means and interval (exact cells: mean ∓ the error bound)."""
    out = []
    for df in tables:
        for (exp, cell), g in df.groupby(["experiment", "cell_id"], sort=True):
            g = g.sort_values("horizon", kind="mergesort")
            first = g.iloc[0]
            exact = bool(first["estimator"] == "exact")
            out.append(
                {
                    "id": str(cell),
                    "experiment": str(exp),
                    "algorithm": str(first["algorithm"]),
                    **{p: _value(first[p]) for p in PARAMETERS},
                    "estimator": str(first["estimator"]),
                    "runs": int(first["runs"]),
                    "exact": exact,
                    "bound_thm1": _value(first["bound_thm1"]),
                    "T": [int(t) for t in g["horizon"]],
                    "mean": _floats(g["mean"]),
                    "lo": _floats(g["ci_low"]),
                    "hi": _floats(g["ci_high"]),
                }
            )
    return out


def claims(checks: Path) -> list[dict]:
    """Every claim of the registry and its negative controls with a check record in
    ``checks``: id, title (MathML), verdict, the experiments it reads, its record's link."""
    out = []
    for c in CLAIMS.values():
        ids = [(c.id, None)] + [(control_id(c.id, a), a) for a in c.controls]
        for cid, control in ids:
            record = read_check(Path(checks) / f"{cid}.json")
            if record is None:
                continue
            title = CLAIMS_TEX[c.id].title if c.id in CLAIMS_TEX else c.title
            out.append(
                {
                    "id": cid,
                    "claim": c.id,
                    "control": control,
                    "title": str(text_to_html(title)),
                    "verdict": record["verdict"],
                    "experiments": list(c.experiments),
                    "href": LINKS["checks"] + f"{cid}.json",
                }
            )
    return out


def styles(algorithms) -> dict:
    """Display name and colour of each algorithm (the figures' style, privdtol.plotting)."""
    from privdtol.plotting.style import ALGORITHM_NAMES, palette

    colours = palette(controls=True)

    def hexcolour(rgb) -> str:
        return "#" + "".join(f"{round(255 * x):02x}" for x in rgb)

    return {
        a: {"name": ALGORITHM_NAMES.get(a, a), "colour": hexcolour(colours.get(a, (0.5,) * 3))}
        for a in sorted(algorithms)
    }


def page_data(tables, checks: Path) -> dict:
    data = cells(tables)
    from privdtol.algorithms import ALGORITHMS

    present = {c["algorithm"] for c in data}
    registry = list(ALGORITHMS)
    return {
        "cells": data,
        "claims": claims(checks),
        "algorithms": styles(present),
        # the registry's order (the figures' legends), controls last; unknown names after
        "order": sorted(present, key=lambda a: (registry.index(a) if a in registry else 99, a)),
        "links": LINKS,
    }


def _script_json(obj) -> str:
    """JSON safe inside ``<script>`` (no ``</``), compact, sorted keys, no NaN."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/")


def plotly_js() -> str:
    """Plotly's minified JavaScript, as the Python package ships it."""
    import plotly

    return (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text("utf-8")


def render_explorer(tables, checks: Path) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    data = page_data(tables, checks)
    if not data["cells"]:
        raise InputError("agg", "the tables hold no cell", "aggregated regret tables")
    return env.get_template("explorer.html.j2").render(
        data=Markup(_script_json(data)),
        plotly=Markup(plotly_js().replace("</script", "<\\/script")),
        app=Markup((TEMPLATES / "explorer.js").read_text("utf-8")),
        links=LINKS,
    )


def build_explorer(agg: list[Path], checks: Path, out: Path) -> Path:
    """Read the tables (all first: a bad one fails before anything is written), write the page."""
    tables = [read_table(p) for p in agg]
    if not Path(checks).is_dir():
        raise InputError("checks", f"{checks} is not a directory", "the check records' directory")
    write_text(Path(out), render_explorer(tables, Path(checks)))
    return Path(out)
