"""Generated tables of the replication report: the grid of the config, the check settings,
and the registered algorithms and loss models (pandas ``Styler.to_latex``, booktabs)."""

from __future__ import annotations

import re

import pandas as pd

from privdtol.errors import InputError
from privdtol.report.latex import fmt_int_or_pow2, fmt_num, is_number, tex_escape


def config_experiments(config: dict) -> list[dict]:
    """The ``experiments:`` of a config as a list of dicts with a ``name``."""
    exps = config.get("experiments", [])
    if isinstance(exps, dict):
        exps = [{"name": k, **(v or {})} for k, v in exps.items()]
    if not isinstance(exps, list) or not all(isinstance(e, dict) for e in exps):
        raise InputError("config", "'experiments' is not a list of mappings",
                         "experiments: [{name: ..., algorithms: [...], ...}]")
    return exps


def styler_table(df: pd.DataFrame, column_format: str) -> str:
    """booktabs tabular from pandas Styler; cells are already LaTeX."""
    header = [rf"\textbf{{{c}}}" for c in df.columns]
    body = df.copy()
    body.columns = header
    return body.style.hide(axis="index").to_latex(column_format=column_format, hrules=True)


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
            out.append(rf"\num{{{float(x):g}}}")
        elif isinstance(x, dict):
            out.append(tex_escape(", ".join(f"{k}={w}" for k, w in x.items())))
        else:
            out.append(tex_escape(x))
    return ", ".join(out)


def _slices(slices) -> str:
    if not isinstance(slices, list):
        return _values(slices)
    out = []
    for sl in slices:
        if isinstance(sl, dict):
            name = sl.get("name", "")
            rest = "; ".join(f"{tex_escape(k)}: {_values(v)}" for k, v in sl.items()
                             if k != "name")
            out.append(rf"\emph{{{tex_escape(name)}}}" + (f" ({rest})" if rest else ""))
        else:
            out.append(_values(sl))
    return r"\newline ".join(out)


GRID_COLUMNS = {"algorithms": "Algorithms", "K": "$K$", "gap": r"$\Delta_{\min}$",
                "epsilon": r"$\varepsilon$", "horizon": "$T$", "runs": "Runs"}


def grid_tex(config: dict, agg: dict[str, pd.DataFrame]) -> str:
    """One row per experiment of the config (its parameter lists, slices and the number of
    cells that reached ``results/agg``), then the checks' thresholds."""
    exps = config_experiments(config)
    if not exps:
        return r"\NotRun{no experiments in the configuration}" + "\n"
    rows = []
    for e in exps:
        name = str(e.get("name", "?"))
        row = {"Experiment": rf"\texttt{{{tex_escape(name)}}}"}
        for key, col in GRID_COLUMNS.items():
            value = e.get(key, config.get(key) if key == "runs" else None)
            row[col] = _values(value)
        known = set(GRID_COLUMNS) | {"name", "description", "slices"}
        other = [f"{tex_escape(k)}: {_values(v)}" for k, v in e.items() if k not in known]
        if e.get("slices"):
            other.append("slices: " + _slices(e["slices"]))
        row["Loss model, slices"] = r"\newline ".join(other) or "---"
        df = agg.get(name)
        row["Cells run"] = fmt_num(df["cell_id"].nunique()) if df is not None else r"\NotRunText"
        rows.append(row)
    P = r">{\raggedright\arraybackslash}p"
    fmt = (rf"@{{}}{P}{{1.7cm}}{P}{{2.6cm}}{P}{{1.0cm}}{P}{{1.5cm}}{P}{{1.5cm}}{P}{{1.1cm}}"
           rf"{P}{{0.9cm}}{P}{{3.6cm}}r@{{}}")
    return r"{\footnotesize" + "\n" + styler_table(pd.DataFrame(rows), fmt) + "}\n"


def thresholds_tex(config: dict) -> str:
    """The ``checks:`` settings of the config (thresholds fixed before the run)."""
    checks = config.get("checks")
    if not isinstance(checks, dict) or not checks:
        return r"\NotRun{no check thresholds in the configuration}" + "\n"
    rows = [{"Check setting": rf"\texttt{{{tex_escape(k)}}}", "Value": _values(v)}
            for k, v in checks.items()]
    P = r">{\raggedright\arraybackslash}p"
    return styler_table(pd.DataFrame(rows), rf"@{{}}l{P}{{6cm}}@{{}}")


def algorithms_tex() -> str:
    from privdtol.algorithms import ALGORITHMS

    rows = [{"Name": rf"\texttt{{{tex_escape(n)}}}", "Private": "yes" if c.private else "no",
             "Selection": "per block" if c.kind == "block" else "per round",
             "Source": tex_escape(c.source)} for n, c in ALGORITHMS.items()]
    P = r">{\raggedright\arraybackslash}p"
    return r"{\small" + "\n" + styler_table(pd.DataFrame(rows), rf"@{{}}lll{P}{{8.5cm}}@{{}}") + "}\n"


def models_tex() -> str:
    from privdtol.environments import MODELS

    rows = [{"Name": rf"\texttt{{{tex_escape(n)}}}",
             "Loss model": tex_escape(_first_sentence(__import__(c.__module__, fromlist=["x"])
                                                      .__doc__ or ""))}
            for n, c in MODELS.items()]
    P = r">{\raggedright\arraybackslash}p"
    return r"{\small" + "\n" + styler_table(pd.DataFrame(rows), rf"l{P}{{12.5cm}}") + "}\n"


def _first_sentence(doc: str) -> str:
    text = " ".join(doc.split())
    m = re.match(r"(.+?\.)(\s|$)", text)
    return (m.group(1) if m else text).rstrip(".") + "."
