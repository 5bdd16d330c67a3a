"""Tables of the replication report, all through one function, :func:`latex_table` (pandas
``Styler.to_latex``: booktabs rules, siunitx ``S`` columns for numbers), which every module
that sets a table calls: here the results tables of the notebooks
(``results/tables/<name>.csv``, headers and captions from
:mod:`privdtol.report.latex.layout`) and the verdict table."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype
from pandas.io.formats.style import Styler

from privdtol.algorithms import REFERENCES
from privdtol.environments import MODELS
from privdtol.errors import InputError
from privdtol.report.latex.layout import (
    CODE_COLUMNS,
    HEADERS,
    MATH_COLUMNS,
    PARAMETER_COLUMNS,
    POW2_COLUMNS,
    TABLES,
    VALUES,
)
from privdtol.report.latex.text import (
    TeX,
    dyadic_exponent,
    fmt_int_or_pow2,
    fmt_num,
    mathify,
    sig,
    tex_escape,
    tex_unicode,
    texttt,
)

_P = r">{\raggedright\arraybackslash}p"
#: parameter names written as symbols in generated labels (escaped to LaTeX later): the loss
#: models' declared parameters (LossModel.parameters)
GREEK = {p: sym for c in MODELS.values() for p, sym in c.parameters.items()}
#: loss models in a pivoted header (plain text, escaped later), in display order: their
#: declarations (LossModel.header_label)
ENV_LABELS = {n: c.header_label() for n, c in MODELS.items()}


def latex_table(
    data: pd.DataFrame | Styler,
    column_format: str,
    *,
    size: str | None = None,
    siunitx: bool = False,
    longtable: dict | None = None,
) -> TeX:
    r"""The one way the report builds a table: pandas ``Styler.to_latex`` with booktabs rules.

    A frame's cells and headers are already LaTeX (the headers set bold); a Styler comes with
    its cells and headers formatted (a results table, :func:`result_table`).  ``siunitx``: its
    numeric columns are siunitx ``S`` columns; ``longtable={"caption": ..., "label": ...}``: a
    longtable, whose pages after the first say "(continued)" instead of the caption again;
    ``size`` (``"small"``, ``"footnotesize"``, ...): centred in a block at that size."""
    if isinstance(data, pd.DataFrame):
        data = data.style.hide(axis="index")
        data = data.format_index(lambda c: rf"\textbf{{{c}}}", axis="columns")
    kw = {"environment": "longtable", **longtable} if longtable else {}
    tex = data.to_latex(column_format=column_format, hrules=True, siunitx=siunitx, **kw)
    if longtable:
        tex = tex.replace(rf"\caption[]{{{longtable['caption']}}}", r"\caption[]{(continued)}")
    if size:
        tex = rf"\begin{{center}}\{size}" + "\n" + tex + r"\end{center}" + "\n"
    return TeX(tex)


# ----------------------------------------------------------------------------- results tables


def read_table(path: Path) -> pd.DataFrame:
    """A notebook's table (``results/tables/<name>.csv``); a defect is one InputError line."""
    try:
        return pd.read_csv(path)
    except Exception as err:  # pandas raises several types
        raise InputError("results", f"{path}: not a readable CSV table ({err})") from None


def header(column: str) -> str:
    """The LaTeX header of a results-table column (:data:`~privdtol.report.latex.layout.HEADERS`;
    other names are shown escaped, underscores as spaces)."""
    if ":" in str(column):  # a pivoted column, "<value>:<label>": its label
        return tex_escape(str(column).split(":", 1)[1])
    return HEADERS.get(column) or tex_escape(str(column).replace("_", " "))


def _text_value(column: str, value) -> str:
    """A text cell: an algorithm's display name (an id without one, e.g. a privacy control, in
    code font), the identifiers of :data:`~privdtol.report.latex.layout.CODE_COLUMNS` in code font,
    the mathematics of :data:`~privdtol.report.latex.layout.MATH_COLUMNS` typeset, other text
    escaped."""
    if column in CODE_COLUMNS and isinstance(value, str):
        return texttt(value)
    if column in MATH_COLUMNS and isinstance(value, str):
        return mathify(value)
    if column == "algorithm" and isinstance(value, str):
        shown = _display_algorithm(value)
        if shown == value:
            return texttt(value)
        return cited_display_name(value, mathify(shown))
    return tex_escape(value)


#: registered algorithm -> key in paper/references.bib of the work it is taken from, from the
#: algorithms' declarations (the ablations and negative controls cite nothing)
ALGORITHM_REFERENCES = REFERENCES


def cited_display_name(name: str, escaped: str) -> str:
    r"""``escaped`` (the LaTeX of ``name``'s display name) with the authors it names (its
    ``cite_as`` declaration, e.g. ``"Hu et al."``) as natbib's ``\citeauthor`` of its
    reference: the same words, a citation linked to the work."""
    from privdtol.algorithms import ALGORITHMS

    cls = ALGORITHMS.get(name)
    key = ALGORITHM_REFERENCES.get(name)
    if cls is None or not key or not cls.cite_as:
        return escaped
    return escaped.replace(tex_escape(cls.cite_as), rf"\citeauthor{{{key}}}")


def _display_algorithm(name):
    from privdtol.algorithms import ALGORITHMS

    cls = ALGORITHMS.get(name) if isinstance(name, str) else None
    return cls.display_name if cls is not None else name


def dyadic_column(values) -> bool:
    """True when every value of a column is an exact power of two and one is at most 1/8 (a
    gap or privacy level axis): its fractions are all written ``2^{-k}``, for one style down
    the column."""
    v = pd.to_numeric(pd.Series(values), errors="coerce").dropna()
    if v.empty or (v <= 0).any():
        return False
    exps = np.log2(v.to_numpy(dtype=float))
    return bool(np.all(exps == np.round(exps)) and exps.min() <= -3)


def _s_cell(value, digits: int, pow2: bool = False, dyadic: bool = False) -> str:
    """A cell of an siunitx ``S`` column: a number it parses, or braced text (a missing
    value, an infinity, a horizon written as a power of two, an exact dyadic value; in a
    ``dyadic`` column every fraction)."""
    if value is None or pd.isna(value):
        return "{--}"
    if not math.isfinite(float(value)):
        return r"{$\infty$}" if value > 0 else r"{$-\infty$}"
    if dyadic and 0 < float(value) < 1:
        return rf"{{$2^{{{round(math.log2(float(value)))}}}$}}"
    if dyadic_exponent(abs(value)) is not None:
        return "{" + fmt_num(value) + "}"
    if pow2 and float(value).is_integer():
        text = fmt_int_or_pow2(value)
        if text.startswith(r"\ensuremath"):
            return "{" + text + "}"
    return sig(value, digits)


#: rows a results table may have in the main text (half a page); longer ones go to the
#: appendix, with their CSV linked
MAX_ROWS = 20


def constant_columns(df: pd.DataFrame) -> list[str]:
    """Columns with one value in every row (shown once, in the caption), when there are at
    least two rows."""
    if len(df) < 2:
        return []
    return [c for c in df.columns if df[c].nunique(dropna=False) == 1]


def _value_tex(column: str, value) -> str:
    """One value of a results-table column in running text (the caption's constants)."""
    if isinstance(value, str):
        if value in VALUES.get(column, {}):
            return VALUES[column][value]
        return rf"\texttt{{{tex_escape(value)}}}" if column == "algorithm" else tex_escape(value)
    if value is None or pd.isna(value):
        return "--"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return fmt_int_or_pow2(value) if column in POW2_COLUMNS else fmt_num(value)


def constants_sentence(df: pd.DataFrame, columns: list[str]) -> TeX:
    """`` In every row: $K$ = 8, ...`` for the constant columns (empty when none)."""
    if not columns:
        return TeX("")
    parts = [f"{header(c)} = {_value_tex(c, df[c].iloc[0])}" for c in columns]
    return TeX(" In every row " + ", ".join(parts) + ".")


def _factor_labels(df: pd.DataFrame, factors: tuple[str, ...]) -> list[str]:
    """One label per row for a factor spread over several columns: the first column's value
    and the others that are set (``correlated, ρ = 0.5``)."""
    out = []
    for _, r in df[list(factors)].iterrows():
        head, *rest = factors
        parts = [str(ENV_LABELS.get(r[head], r[head]))]
        parts += [f"{GREEK.get(c, c)}={r[c]:g}" for c in rest if pd.notna(r[c])]
        out.append(" ".join(parts))
    return out


def labels_order(df: pd.DataFrame, column: str) -> list:
    """The values of ``column`` in the order of :data:`ENV_LABELS` (the independent model
    first), then of their first appearance."""
    rank = {label: i for i, label in enumerate(ENV_LABELS.values())}
    values = list(dict.fromkeys(df[column]))
    return sorted(values, key=lambda v: (rank.get(str(v).split(",")[0], len(rank)), str(v)))


def shape_table(df: pd.DataFrame, name: str) -> tuple[pd.DataFrame, list[str]]:
    """A results table as the report shows it: its spec's pivot and sort
    (:data:`~privdtol.report.latex.layout.TABLES`) and without its constant columns (returned
    apart)."""
    spec = TABLES[name]
    source_columns = set(df.columns)
    factor, values = spec.pivot if spec.pivot is not None else ((), "")
    factors = (factor,) if isinstance(factor, str) else tuple(factor)
    if spec.pivot is not None and {*factors, values} <= set(df.columns):
        columns = factors[0]
        if len(factors) > 1:  # several columns name one factor (a loss model and its parameter)
            columns = "factor"
            df = df.assign(factor=_factor_labels(df, factors)).drop(columns=list(factors))
        keep = [c for c in df.columns if c not in (columns, values, *spec.pivot_drop)]
        wide = df.pivot_table(index=keep, columns=columns, values=values, dropna=False)
        wide = wide.dropna(how="all").reset_index()
        labels = {c: _display_algorithm(c) for c in df[columns].unique()}
        wide = wide[keep + [c for c in labels_order(df, columns) if c in wide.columns]]
        wide.columns = [c if c in keep else f"{values}:{labels[c]}" for c in wide.columns]
        df = wide
    numeric = [c for c in df.columns if is_numeric_dtype(df[c]) and not is_bool_dtype(df[c])]
    measured = [c for c in numeric if c not in PARAMETER_COLUMNS]
    if measured:  # a row with no measured number tells nothing (FTL has no 1/eps slope)
        df = df[df[measured].notna().any(axis=1)]
    sort = [c for c in spec.sort if c in df.columns]
    if sort:
        df = df.sort_values(sort, kind="stable", ascending=[c not in spec.descending for c in sort])
    # constants are stated from the source table's values: a pivoted column (one value per
    # factor level) stays a column even when it is constant
    const = [c for c in constant_columns(df) if c in source_columns]
    df = df.drop(columns=const)
    return df.drop(columns=duplicate_columns(df)), const


def duplicate_columns(df: pd.DataFrame) -> list[str]:
    """Columns equal to an earlier column in every row (an upper limit equal to its estimate,
    for exact values): shown once."""
    seen: list[str] = []
    out = []
    for c in df.columns:
        if any(df[c].equals(df[s]) for s in seen):
            out.append(c)
        else:
            seen.append(c)
    return out


def result_table(df: pd.DataFrame, digits: int = 3, longtable: dict | None = None) -> TeX:
    """booktabs/siunitx tabular of a results table: numeric columns are ``S`` columns with
    ``digits`` significant digits (integers exact, exact dyadic values as ``2^{-k}``,
    horizons as ``2^{k}-1``), text is escaped, registered algorithm ids become their display
    names and the values of :data:`~privdtol.report.latex.layout.VALUES` their text.  With
    ``longtable={"caption": ..., "label": ...}`` it is a longtable (the appendix)."""
    df = df.copy()
    numeric = [c for c in df.columns if is_numeric_dtype(df[c]) and not is_bool_dtype(df[c])]
    typeset = (*VALUES, *CODE_COLUMNS, *MATH_COLUMNS, "algorithm")
    named = [c for c in df.columns if c in typeset and c not in numeric]
    text = [c for c in df.columns if c not in numeric and c not in named]
    styler = df.style.hide(axis="index")
    if text:
        styler = styler.format(tex_unicode, escape="latex", na_rep="--", subset=text)
    for c in named:  # values with a typeset form (LaTeX), the others escaped
        names = VALUES.get(c, {})
        styler = styler.format(
            lambda v, col=c, names=names: names.get(v) or _text_value(col, v),
            na_rep="--",
            subset=[c],
        )
    # a longtable (the appendix) right-aligns \num cells: S columns reserve room for the
    # widest mantissa and exponent of any row, too wide for a page of per-cell rows
    wrap = (lambda text: text if text.startswith("{") else rf"\num{{{text}}}") if longtable else str
    for c in numeric:
        pow2, dyadic = c in POW2_COLUMNS, dyadic_column(df[c])
        styler = styler.format(
            lambda v, p=pow2, d=dyadic: wrap(_s_cell(v, digits, p, d)),
            subset=[c],
        )
    styler = styler.format_index(header, axis="columns")
    number_column = "r" if longtable else "S"
    column_format = "".join(number_column if c in numeric else "l" for c in df.columns)
    return latex_table(styler, column_format, siunitx=not longtable, longtable=longtable)


def result_table_file(path: Path, name: str, longtable: dict | None = None) -> TeX:
    """The tabular of ``results/tables/<name>.csv`` as the report shows it
    (:func:`shape_table`; :data:`~privdtol.report.latex.layout.TABLES` gives the precision)."""
    df = read_table(path)
    if df.columns.empty:
        raise InputError("results", f"{path}: no columns")
    shown, _ = shape_table(df, name)
    tex = result_table(shown, TABLES[name].digits, longtable)
    if longtable and len(shown.columns) >= WIDE_LONGTABLE:
        return TeX("\\scriptsize\n" + tex)
    return tex


#: appendix longtables with this many columns are set in \scriptsize (in \footnotesize, the
#: agreement (12) and dependent (11) tables of the paper run were 65 pt and 34 pt too wide)
WIDE_LONGTABLE = 11


# ----------------------------------------------------------------------------- verdicts


def verdict_table(
    rows: list[dict], multiverse: dict | None = None, held_out: dict | None = None
) -> TeX:
    """The verdict table: one row per claim; cells are the claim's macros (numbers.tex); the
    claim links to its statement (where its controls' estimates and its figure are);
    "Controls" counts the negative controls caught (each must FAIL), linking the failures
    section (which names them) when one is not.  A claim whose check was changed after its
    first results were seen says so in its last column, with the thresholds at which the
    sensitivity analysis (``multiverse``) finds another verdict
    (:mod:`privdtol.report.latex.verdict_flags`), and whether this run confirms the change out of
    sample (``held_out``: ``results/checks/out_of_sample.json``)."""
    from privdtol.report.latex.verdict_flags import (
        changed_claims,
        design_change_cell,
        out_of_sample,
    )

    def controls_cell(r: dict) -> str:
        ks = r.get("controls") or []
        if not ks:
            return "none"
        missed = sum(not k["caught"] for k in ks)
        text = f"{len(ks) - missed} of {len(ks)}"
        return text + (r" (\S\ref{sec:failures})" if missed else "")

    def row(r: dict) -> dict:
        m = "\\" + r["prefix"]  # the claim's macros: \CtwoTitle, \CtwoVerdict, ...
        out = {
            "Claim": rf"\hyperref[claim:{r['id']}]{{\textbf{{{r['label']}}}}}",
            "Statement": rf"{m}Title",
            r"Estimate [95\% CI]": rf"{m}Result" if r["run"] else r"\NotRunText",
            "Verdict": rf"{m}Verdict",
            "Controls": controls_cell(r),
        }
        if implied:
            out["Implied by"] = implied_by(r)
        if changed:
            confirmed = out_of_sample(r["id"], held_out)
            out["Changed"] = design_change_cell(r["id"], multiverse, confirmed)
        return out

    implied = any(r.get("implied_by") or r.get("identity") for r in rows)
    changed = any(r["id"] in changed_claims() for r in rows)
    df = pd.DataFrame([row(r) for r in rows])
    # the widest Verdict is INCONCLUSIVE (1.9 cm in \scriptsize): the columns leave room for it
    spec = rf"@{{}}l{_P}{{{4.3 if changed else 5.8}cm}}{_P}{{2.5cm}}l{_P}{{1.3cm}}"
    if implied:
        spec += rf"{_P}{{1.15cm}}"
    if changed:
        spec += rf"{_P}{{2.3cm}}"
    return latex_table(df, spec + "@{}")


def implied_by(r: dict) -> str:
    """The verdict table's "Implied by" cell: the claims that imply this one (linked), or
    "identity" for a check that cannot fail, or nothing for an independent statement."""
    if r.get("identity"):
        return r"identity"
    return ", ".join(rf"\hyperref[claim:{c}]{{{c}}}" for c in r.get("implied_by", []))
