"""Tests of the report layer as a whole (:mod:`privdtol.report`)."""

from __future__ import annotations

import ast

from support.paths import ROOT

REPORT_SRC = ROOT / "src" / "privdtol" / "report"


def test_report_layer_parses_no_latex():
    """No regular expressions in the report layer: nothing is parsed back out of LaTeX."""
    for path in REPORT_SRC.rglob("*.py"):
        if path.name == "latex.py":  # mathify translates the analysis layer's plain text in
            continue
        if path.name == "mathml.py":  # finds the $...$ of the notebook pages for latex2mathml
            continue
        if path.name == "rulegraph.py":  # reads Snakemake's DOT rule graph, not LaTeX
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not {"re", "regex"} & set(names), path
