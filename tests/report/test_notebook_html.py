"""Tests of :mod:`privdtol.report.notebook_html`: a notebook's page is offline (no remote
reference, unlike nbconvert's stock page) with its mathematics as MathML."""

from __future__ import annotations

import nbformat
from support.offline_pages import RAW_TEX, external_references, visible_text

from privdtol.report.notebook_html import notebook_html


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(r"# Figure 2 — regret against $1/\Delta_{\min}$"),
        nbformat.v4.new_code_cell('label = r"$\\varepsilon$"', execution_count=1),
    ]
    nbformat.write(nb, path)
    return path


def test_notebook_page_has_mathml_and_no_remote_reference(tmp_path):
    html = notebook_html(_notebook(tmp_path / "tiny.ipynb"))
    assert external_references(html) == []
    assert "<math" in html and "Figure 2" in html
    assert not RAW_TEX.search(visible_text(html))
    assert "varepsilon" in html  # the code cell shows its source as written


def test_the_reference_grep_flags_nbconvert_s_stock_page(tmp_path):
    """Negative control of the grep: the stock lab template loads require.js, MathJax and
    mermaid from CDNs, and external_references finds them."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_filename(str(_notebook(tmp_path / "t.ipynb")))
    found = " ".join(external_references(body))
    assert "require" in found and "mathjax" in found.lower()
