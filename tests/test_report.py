"""Tests of the report layer as a whole (:mod:`privdtol.report`)."""

from __future__ import annotations

import ast

from support.paths import ROOT

REPORT_SRC = ROOT / "src" / "privdtol" / "report"


#: the report's modules that may use regular expressions, and why
PARSERS = {
    "latex/text.py": "mathify translates the analysis layer's plain text",
    "html/mathml.py": "finds the $...$ of the notebook pages for latex2mathml",
    "build/rulegraph.py": "reads Snakemake's DOT rule graph, not LaTeX",
}


def test_report_layer_parses_no_latex():
    """No regular expressions in the report layer: nothing is parsed back out of LaTeX."""
    assert all((REPORT_SRC / name).is_file() for name in PARSERS), sorted(PARSERS)
    for path in REPORT_SRC.rglob("*.py"):
        if path.relative_to(REPORT_SRC).as_posix() in PARSERS:
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
