"""The explorer (``results/explorer/index.html``): the run on one self-contained, interactive
page, drawn with Plotly, in five views (tabs):

- regret against the horizon T for every cell of the run's aggregated regret tables and any
  selection of experiment, algorithms, K, Δ_min, ε and loss model: exact cells (the exact
  engine, ``runs`` 0) are lines, their hover gives the numerical error bound (``ci_high -
  mean``, :func:`privdtol.pipeline.aggregate.summarize_exact_cell`); Monte Carlo cells are
  markers with their 95% interval as error bars; for RPS, Theorem 1's bound ``1 + 800 log
  K/Δ_min + 16 log K/η`` (the tables' ``bound_thm1``, :func:`privdtol.core.bounds`) is drawn
  as a dashed line; log axes (either can be switched to linear);
- the privacy audit, the proof's slack per step and the worst-case searches
  (:mod:`privdtol.report.html.explorer_views`), each where the config produces its table;
- the claims, each marked a claim of the paper or a diagnostic (the registry's flag), with
  their negative controls (expected to FAIL) and verdicts, linking to every check record.

The header names the config files the run was built from (the workflow passes them: a
second config's build over these results is refused, so the page and its tables are of one
run).  Links to the report and the notebook index.  Self-contained: the data (JSON) and the
JavaScript (Plotly's ``plotly.min.js`` from the Python package, and this page's
``explorer.js`` and ``explorer_views.js``) are inline, nothing is fetched: the page renders
from ``file://``, offline and inside the run archive.  Deterministic: the same tables give
the same bytes.

    privdtol explorer --agg results/agg/horizon.parquet ... --checks results/checks \\
        --privacy results/agg/privacy.parquet --proof results/agg/proof.parquet \\
        --searches results/agg/searches.parquet --out results/explorer/index.html
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pandas as pd
from markupsafe import Markup

from privdtol.errors import InputError
from privdtol.report.html import explorer_views
from privdtol.report.html.explorer_views import floats as _floats
from privdtol.report.html.explorer_views import value as _value
from privdtol.report.latex.text import write_text

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


def page_data(tables, checks: Path, views: dict | None = None) -> dict:
    """The page's JSON: the cells, the claims and controls, the views' data (None: a view
    whose table this run does not produce), the algorithms' styles and order, the links."""
    data = cells(tables)
    views = views if views is not None else dict.fromkeys(explorer_views.VIEWS)
    from privdtol.algorithms import ALGORITHMS

    present = {c["algorithm"] for c in data}
    for v in (views.get("privacy") or {}).get("algorithms", []):
        present.add(v["algorithm"])
    for v in (views.get("searches") or {}).get("searches", []):
        present.add(v["algorithm"])
    registry = list(ALGORITHMS)
    return {
        "cells": data,
        "claims": explorer_views.claims(checks, LINKS),
        "views": views,
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


def render_explorer(
    tables, checks: Path, views: dict | None = None, configfiles: list[str] | None = None
) -> str:
    """The page's HTML; ``configfiles``: the config files of the run, in merge order, which
    its header names (None: not given, and the header says so)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    data = page_data(tables, checks, views)
    if not data["cells"]:
        raise InputError("agg", "the tables hold no cell", "aggregated regret tables")
    return env.get_template("explorer.html.j2").render(
        data=Markup(_script_json(data)),
        plotly=Markup(plotly_js().replace("</script", "<\\/script")),
        app=Markup((TEMPLATES / "explorer.js").read_text("utf-8")),
        views=Markup((TEMPLATES / "explorer_views.js").read_text("utf-8")),
        links=LINKS,
        configfiles=configfiles,
    )


def build_explorer(
    agg: list[Path],
    checks: Path,
    out: Path,
    views: dict[str, Path | None] | None = None,
    configfiles: list[str] | None = None,
) -> Path:
    """Read every input first (the regret tables, then the views' tables ``{name: path}``, a
    name absent or None: not produced by this run), so that a bad one fails with one line
    naming it before anything is written; then write the page (atomically), naming the run's
    ``configfiles`` (the workflow gives those the results were built with)."""
    tables = [read_table(p) for p in agg]
    if not Path(checks).is_dir():
        raise InputError("checks", f"{checks} is not a directory", "the check records' directory")
    data = explorer_views.views(views or {})
    write_text(Path(out), render_explorer(tables, Path(checks), data, configfiles))
    return Path(out)
