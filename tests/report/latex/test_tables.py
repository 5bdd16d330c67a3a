"""Tests of :mod:`privdtol.report.latex.tables`: the one function every table goes through;
results tables as siunitx/booktabs LaTeX with the layout's headers, constant columns stated
once, rows sorted and pivoted."""

from __future__ import annotations

import pandas as pd
from support.tables import table_frame

from privdtol.report.latex.layout import HEADERS
from privdtol.report.latex.tables import (
    constant_columns,
    dyadic_column,
    latex_table,
    result_table,
    shape_table,
)


def test_result_table_is_siunitx_booktabs_with_headers_from_the_layout():
    tex = result_table(table_frame("t"), digits=3)
    lines = tex.splitlines()
    assert lines[0] == r"\begin{tabular}{lSSSSllSSSl}"
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    head = lines[2]
    for column in ("algorithm", "K", "gap", "epsilon", "slope", "ci_low"):
        assert "{" + HEADERS[column] + "}" in head
    assert "{t note}" in head  # an unmapped column shows its name
    rows = lines[4:7]
    assert rows[0].startswith(
        r"RPS (this paper) & 2 & {$2^{-2}$} & 1 & {\ensuremath{2^{10}-1}} & "
        r"private & independent & 12.3 & 1 & 1.5 & a\_b \& 50\%"
    )
    # the authors a display name cites (its cite_as) are a citation of the algorithm's reference
    assert r"\citeauthor{wu2026} (Laplace)" in rows[1] and r"{\ensuremath{2^{30}-1}}" in rows[1]
    assert "0.000123" in rows[1] and "$\\rho$ = 0.5" in rows[1] and "{--}" in rows[1]
    # an id without a display name (a privacy control) in code font; integers exact
    assert rows[2].startswith(r"\texttt{rps\_data\_prefix} & 1024 & {--}")
    assert "negative control" in rows[2] and r"{$\infty$}" in rows[2]
    assert tex.isascii()


def test_tables_drop_constant_columns_sort_and_pivot():
    df = pd.DataFrame(
        {
            "algorithm": ["rps_full_prefix", "rps_uncapped"] * 2,
            "K": [8, 8, 8, 8],
            "gap": [0.25, 0.25, 0.0625, 0.0625],
            "epsilon": [1.0] * 4,
            "regret": [1.0, 2.0, 3.0, 4.0],
            "ratio_to_rps": [0.7, 0.5, 0.72, 0.9],
            "ci_low": [0.6] * 4,
            "ci_high": [0.8] * 4,
        }
    )
    shown, const = shape_table(df, "ablations")
    assert const == ["K", "epsilon"]  # stated once, in the caption
    assert list(shown["gap"]) == [0.0625, 0.25]  # sorted, one row per cell
    assert [c.split(":")[0] for c in shown.columns[1:]] == ["ratio_to_rps"] * 2  # pivoted
    assert constant_columns(df.head(1)) == []
    # a gap or privacy axis: every fraction as a power of two once one is 1/8 or less
    assert dyadic_column([0.25, 0.0625, 1.0]) and not dyadic_column([0.25, 0.5, 0.3])


def test_identifier_and_mathematics_columns_are_typeset():
    df = pd.DataFrame(
        {
            "step": ["the groups H_l", "entropy Z_0 to K"],
            "part_of": ["eq. (5)", "eq. (6)"],
            "objective": ["rate_min", "ratio_max"],
            "cells": [3, 4],
        }
    )
    tex = result_table(df)
    assert r"the groups $H_l$" in tex and r"entropy $Z_0$ to $K$" in tex
    assert r"\texttt{rate\_min}" in tex and r"\texttt{ratio\_max}" in tex
    assert r"H\_l" not in tex and r"Z\_0" not in tex


def test_cited_authors_come_from_each_algorithm_s_cite_as():
    from privdtol.report.latex.tables import cited_display_name

    assert (
        cited_display_name("rnm_ftnl", "RNM-FTNL (Hu et al.)") == r"RNM-FTNL (\citeauthor{hu2021})"
    )
    assert cited_display_name("wu_wang_gumbel", r"Wu \& Wang (Gumbel)") == (
        r"\citeauthor{wu2026} (Gumbel)"
    )
    # no cite_as (rps cites its paper elsewhere), or no registered algorithm: unchanged
    assert cited_display_name("rps", "RPS (this paper)") == "RPS (this paper)"
    assert cited_display_name("nope", "Hu et al.") == "Hu et al."


#: a two-column frame of LaTeX cells as booktabs sets it, headers bold (written by hand)
TABULAR = (
    "\\begin{tabular}{l>{\\raggedright\\arraybackslash}p{2cm}}\n"
    "\\toprule\n"
    "\\textbf{Claim} & \\textbf{Verdict} \\\\\n"
    "\\midrule\n"
    "C1 & \\textbf{PASS} \\\\\n"
    "C2 & FAIL \\\\\n"
    "\\bottomrule\n"
    "\\end{tabular}\n"
)


def test_a_frame_of_latex_cells_becomes_a_booktabs_tabular_centred_at_a_size():
    df = pd.DataFrame({"Claim": ["C1", "C2"], "Verdict": [r"\textbf{PASS}", "FAIL"]})
    spec = r"l>{\raggedright\arraybackslash}p{2cm}"
    assert latex_table(df, spec) == TABULAR
    small = latex_table(df, spec, size="small")
    assert small == "\\begin{center}\\small\n" + TABULAR + "\\end{center}\n"


def test_a_longtable_says_continued_after_its_first_page():
    df = pd.DataFrame({"A": ["x"]})
    tex = latex_table(df, "l", longtable={"caption": "Cap", "label": "tab:a"})
    lines = tex.splitlines()
    assert lines[0] == r"\begin{longtable}{l}"
    assert lines[1] == r"\caption{Cap} \label{tab:a} \\"
    assert tex.count(r"\caption[]{(continued)} \\") == 1 and tex.count("{Cap}") == 1
