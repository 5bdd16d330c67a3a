"""The tables of the report that describe the run rather than its results: the grid and check
settings of the configuration (with the cells actually aggregated) and the registered
algorithms and loss models (with their sources and laws), all through pandas
``Styler.to_latex``."""

from __future__ import annotations

import pandas as pd

from privdtol.errors import InputError
from privdtol.report.latex import (
    TeX,
    fmt_int_or_pow2,
    fmt_num,
    is_number,
    mathify,
    tex_escape,
    texttt,
)
from privdtol.report.layout import HEADERS
from privdtol.report.tables import _P, ALGORITHM_REFERENCES, styler_table

# ----------------------------------------------------------------------------- config


def config_experiments(config: dict) -> list[dict]:
    """The ``experiments:`` of a config as a list of dicts with a ``name``."""
    exps = config.get("experiments", [])
    if isinstance(exps, dict):
        exps = [{"name": k, **(v or {})} for k, v in exps.items()]
    if not isinstance(exps, list) or not all(isinstance(e, dict) for e in exps):
        raise InputError(
            "config",
            "'experiments' is not a list of mappings",
            "experiments: [{name: ..., algorithms: [...], ...}]",
        )
    return exps


def _values(v) -> str:
    if v is None:
        return "---"
    items = v if isinstance(v, (list, tuple)) else [v]
    out = []
    for x in items:
        if isinstance(x, str):
            out.append(rf"\texttt{{{tex_escape(x)}}}")
        elif isinstance(x, bool):
            out.append(str(x))
        elif isinstance(x, int) and x >= 1024:
            out.append(fmt_int_or_pow2(x))
        elif is_number(x):
            out.append(fmt_num(x))
        elif isinstance(x, dict):
            # a block of settings (the multiverse's ranges): each key in code font
            out.append(", ".join(rf"{texttt(k)}={_values(w)}" for k, w in x.items()))
        else:
            out.append(tex_escape(x))
    return ", ".join(out)


def _key(key: str) -> str:
    """A config key as the grid table names it (its column header, else typeset)."""
    return HEADERS.get(key) or mathify(key)


def _slices(slices) -> str:
    if not isinstance(slices, list):
        return _values(slices)
    out = []
    for sl in slices:
        if isinstance(sl, dict):
            name = sl.get("name", "")
            rest = "; ".join(f"{_key(k)}: {_values(v)}" for k, v in sl.items() if k != "name")
            out.append(rf"\emph{{{tex_escape(name)}}}" + (f" ({rest})" if rest else ""))
        else:
            out.append(_values(sl))
    return r"\newline ".join(out)


#: config key of an experiment -> header of the grid table
GRID_COLUMNS = {
    "algorithms": "Algorithms",
    "K": HEADERS["K"],
    "gap": HEADERS["gap"],
    "epsilon": HEADERS["epsilon"],
    "horizon": HEADERS["horizon"],
    "runs": "Runs",
}


def experiment_defaults() -> dict:
    """The schema's default of each experiment key (the config loader fills them in; the grid
    table shows only what differs)."""
    from privdtol.pipeline.config import load_schema

    props = load_schema()["properties"]["experiments"]["items"].get("properties", {})
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


def grid_tex(config: dict, agg: dict[str, pd.DataFrame]) -> TeX:
    """One row per experiment of the config (its parameter lists, other settings that differ
    from the schema's defaults, slices and the number of cells that reached ``results/agg``)."""
    exps = config_experiments(config)
    if not exps:
        return TeX(r"\NotRun{no experiments in the configuration}" + "\n")
    defaults = experiment_defaults()
    rows = []
    for e in exps:
        name = str(e.get("name", "?"))
        row = {"Experiment": rf"\texttt{{{tex_escape(name)}}}"}
        for key, col in GRID_COLUMNS.items():
            value = e.get(key)
            if key == "runs" and value is None:
                value = config.get("runs")
            row[col] = _values(value)
        known = set(GRID_COLUMNS) | {"name", "description", "slices"}
        other = [
            f"{_key(k)}: {_values(v)}"
            for k, v in e.items()
            if k not in known and not (k in defaults and v == defaults[k])
        ]
        if e.get("slices"):
            other.append("slices: " + _slices(e["slices"]))
        row["Loss model, slices"] = r"\newline ".join(other) or "---"
        df = agg.get(name)
        row["Cells run (exact)"] = (
            TeX(
                f"{fmt_num(df['cell_id'].nunique())} "
                f"({fmt_num(df.loc[df['estimator'] == 'exact', 'cell_id'].nunique())})"
            )
            if df is not None
            else r"\NotRunText"
        )
        rows.append(row)
    # a longtable (one experiment's slices can fill a page; a tabular shrunk to the page was
    # illegible), its columns' widths fractions of the line that leave room for the 8 gaps of
    # GRID_TABCOLSEP on each side
    fmt = "@{}" + "".join(rf"{_P}{{{w}\linewidth}}" for w in GRID_WIDTHS) + "@{}"
    table = styler_table(pd.DataFrame(rows), fmt, {"caption": GRID_CAPTION, "label": "tab:grid"})
    return TeX(
        rf"{{\footnotesize\setlength{{\tabcolsep}}{{{GRID_TABCOLSEP}}}"
        rf"\setlength{{\LTcapwidth}}{{\linewidth}}" + "\n" + table + "}\n"
    )


#: the grid table's caption, columns' widths (fractions of the line: experiment, algorithms,
#: K, gap, epsilon, T, runs, loss model and slices, cells; with 16 gaps of 3 pt they fill a
#: 465 pt line) and column gap
GRID_CAPTION = "Experiments of the configuration and the cells aggregated."
GRID_WIDTHS = (0.125, 0.18, 0.07, 0.085, 0.085, 0.065, 0.055, 0.165, 0.06)
GRID_TABCOLSEP = "3pt"


def thresholds_tex(config: dict) -> TeX:
    """The ``checks:`` settings of the config (thresholds fixed before the run)."""
    checks = config.get("checks")
    if not isinstance(checks, dict) or not checks:
        return TeX(r"\NotRun{no check thresholds in the configuration}" + "\n")
    rows = [
        {"Check setting": rf"\texttt{{{tex_escape(k)}}}", "Value": _values(v)}
        for k, v in checks.items()
    ]
    return styler_table(pd.DataFrame(rows), rf"@{{}}l{_P}{{6cm}}@{{}}")


# ----------------------------------------------------------------------------- registries


def algorithms_tex() -> TeX:
    """The registered algorithms with their source and, for the published ones, a citation of
    the work (:data:`ALGORITHM_REFERENCES`)."""
    from privdtol.algorithms import ALGORITHMS

    rows = [
        {
            "Name": rf"\texttt{{{tex_escape(n)}}}",
            "Private": "yes" if c.private else "no",
            "Selection": "per block" if c.kind == "block" else "per round",
            "Source": mathify(c.source),
            "Reference": (
                TeX(rf"\citet{{{ALGORITHM_REFERENCES[n]}}}") if n in ALGORITHM_REFERENCES else "---"
            ),
        }
        for n, c in ALGORITHMS.items()
    ]
    return styler_table(pd.DataFrame(rows), rf"@{{}}lll{_P}{{6.6cm}}l@{{}}")


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring (up to the first ". "), ending with a period."""
    text = " ".join(doc.split())
    end = text.find(". ")
    if end < 0 and text.endswith("."):
        end = len(text) - 1
    return (text[: end + 1] if end >= 0 else text).rstrip(".") + "."


def models_tex() -> TeX:
    """The registered loss models with their law (the class's ``law_tex``, else the first
    sentence of its module's docstring)."""
    import importlib

    from privdtol.environments import MODELS

    def law(c) -> TeX:
        if getattr(c, "law_tex", None):
            return TeX(c.law_tex)
        return tex_escape(first_sentence(importlib.import_module(c.__module__).__doc__ or ""))

    rows = [
        {"Name": rf"\texttt{{{tex_escape(n)}}}", "Law of $X_t$": law(c)} for n, c in MODELS.items()
    ]
    return styler_table(pd.DataFrame(rows), rf"l{_P}{{12.5cm}}")
