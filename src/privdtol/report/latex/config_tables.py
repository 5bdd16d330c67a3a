"""The tables of the report that describe the run rather than its results: the grid and check
settings of the configuration (with the cells actually aggregated) and the registered
algorithms and loss models (with their sources and laws), through
:func:`~privdtol.report.latex.tables.latex_table`; but the grid, a longtable with a
full-width row of settings under each experiment, which a Styler does not write."""

from __future__ import annotations

import pandas as pd

from privdtol.errors import InputError
from privdtol.report.latex.layout import HEADERS
from privdtol.report.latex.tables import _P, ALGORITHM_REFERENCES, latex_table
from privdtol.report.latex.text import (
    TeX,
    fmt_int_or_pow2,
    fmt_num,
    is_number,
    mathify,
    tex_escape,
    texttt,
)

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
    """One row per experiment of the config (its parameter lists and the number of cells that
    reached ``results/agg``), followed by a row the width of the page with its other settings
    that differ from the schema's defaults and its slices.  A longtable: the slices of one
    experiment can fill half a page (in a column of their own, a row longer than the page; in
    a tabular shrunk to the page, illegible)."""
    exps = config_experiments(config)
    if not exps:
        return TeX(r"\NotRun{no experiments in the configuration}" + "\n")
    defaults = experiment_defaults()
    header = ["Experiment", *GRID_COLUMNS.values(), "Cells run (exact)"]
    head = " & ".join(rf"\textbf{{{h}}}" for h in header) + r" \\"
    body = []
    for e in exps:
        name = str(e.get("name", "?"))
        cells = [rf"\texttt{{{tex_escape(name)}}}"]
        for key in GRID_COLUMNS:
            value = e.get(key)
            if key == "runs" and value is None:
                value = config.get("runs")
            cells.append(_values(value))
        df = agg.get(name)
        cells.append(
            f"{fmt_num(df['cell_id'].nunique())} "
            f"({fmt_num(df.loc[df['estimator'] == 'exact', 'cell_id'].nunique())})"
            if df is not None
            else r"\NotRunText"
        )
        body.append(" & ".join(cells) + r" \\")
        known = set(GRID_COLUMNS) | {"name", "description", "slices"}
        other = [
            f"{_key(k)}: {_values(v)}"
            for k, v in e.items()
            if k not in known and not (k in defaults and v == defaults[k])
        ]
        if e.get("slices"):
            other.append("slices: " + _slices(e["slices"]))
        if other:
            width = rf"{_P}{{\linewidth}}"
            body.append(
                rf"\multicolumn{{{len(header)}}}{{@{{}}{width}@{{}}}}{{\quad "
                + "; ".join(other)
                + r"} \\[2pt]"
            )
    fmt = "@{}" + "".join(rf"{_P}{{{w}\linewidth}}" for w in GRID_WIDTHS) + "@{}"
    more = rf"\midrule\multicolumn{{{len(header)}}}{{r@{{}}}}{{continued on the next page}} \\"
    lines = [
        rf"{{\footnotesize\setlength{{\tabcolsep}}{{{GRID_TABCOLSEP}}}"
        r"\setlength{\LTcapwidth}{\linewidth}",
        rf"\begin{{longtable}}{{{fmt}}}",
        rf"\caption{{{GRID_CAPTION}}}\label{{tab:grid}} \\",
        *(r"\toprule", head, r"\midrule", r"\endfirsthead"),
        *(r"\toprule", head, r"\midrule", r"\endhead"),
        *(more, r"\endfoot", r"\bottomrule", r"\endlastfoot"),
        *body,
        r"\end{longtable}}",
    ]
    return TeX("\n".join(lines) + "\n")


#: the grid table's caption, its columns' widths (fractions of the line: experiment,
#: algorithms, K, gap, epsilon, T, runs, cells; with 14 gaps of GRID_TABCOLSEP they fill the
#: line) and its column gap
GRID_CAPTION = (
    "Experiments of the configuration and the cells aggregated; under an experiment, its "
    "other settings (those that differ from the schema's defaults) and slices."
)
GRID_WIDTHS = (0.13, 0.22, 0.10, 0.11, 0.11, 0.08, 0.06, 0.09)
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
    return latex_table(pd.DataFrame(rows), rf"@{{}}l{_P}{{6cm}}@{{}}")


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
    return latex_table(pd.DataFrame(rows), rf"@{{}}lll{_P}{{6.6cm}}l@{{}}")


def _bib_text(value: str) -> str:
    """A BibTeX field's value as escaped text: its LaTeX read as text by pylatexenc (accents
    become letters, a macro such as ``\\input`` is dropped, never run), then escaped; braces
    that remain are written as the text symbols, so BibTeX's brace count stays balanced."""
    from pylatexenc.latex2text import LatexNodes2Text

    try:
        text = LatexNodes2Text(math_mode="text").latex_to_text(value)
    except Exception:  # a parser of untrusted text: on any failure, the raw text, escaped
        text = value
    # braces as text symbols; dashes as BibTeX writes them (a style reads "--" in pages)
    braces = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}", "–": "--", "—": "---"}
    return "".join(braces.get(c) or tex_escape(c) for c in " ".join(text.split()))


def safe_bibtex_entry(bibtex: str, key: str) -> str:
    """One declared entry rewritten from its parsed fields (bibtexparser, through
    :func:`privdtol.algorithms.citation.parse_entry`): text fields escaped (:func:`_bib_text`;
    a title in double braces, so a style keeps its capitals), verbatim fields (url, doi,
    eprint: a plain address's characters, checked) as they are.  Nothing the plugin wrote
    reaches pdflatex as TeX."""
    from privdtol.algorithms.citation import VERBATIM_FIELDS, parse_entry

    kind, fields = parse_entry(bibtex, key)
    lines = []
    for name, value in fields.items():
        text = value if name in VERBATIM_FIELDS else _bib_text(value)
        lines.append(f"  {name} = {{{{{text}}}}}" if name == "title" else f"  {name} = {{{text}}}")
    return f"@{kind}{{{key},\n" + ",\n".join(lines) + "\n}"


def algorithms_bib(own_keys=()) -> str:
    """``plugins.bib``: the BibTeX entries the algorithms declare (``bibtex``: a plugin's
    source, which paper/references.bib cannot hold), in registry order, one each, rewritten as
    escaped text (:func:`safe_bibtex_entry`); an entry whose key is one of ``own_keys``
    (paper/references.bib's) is left to that file."""
    from privdtol.algorithms import ALGORITHMS

    entries = {}
    for cls in ALGORITHMS.values():
        if cls.bibtex and cls.reference not in own_keys and cls.reference not in entries:
            entries[cls.reference] = safe_bibtex_entry(cls.bibtex, cls.reference)
    head = "% BibTeX entries declared by the registered algorithms (privdtol report-assets)\n"
    return head + "".join(f"\n{entry}\n" for entry in entries.values())


def bib_keys(path) -> set[str]:
    """The entry keys of a BibTeX file, parsed by bibtexparser (empty when it cannot be
    read)."""
    from pathlib import Path

    import bibtexparser

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return set()
    return {entry.key for entry in bibtexparser.parse_string(text).entries}


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
    return latex_table(pd.DataFrame(rows), rf"l{_P}{{12.5cm}}")
