"""Tests of :mod:`privdtol.report.notebook_html`."""

from __future__ import annotations

import re

import nbformat
from bs4 import BeautifulSoup
from support.offline_pages import external_references

from privdtol.report.notebook_html import notebook_html

# --- from tests/test_explorer.py

RAW_TEX = re.compile(r"(?<!\\)\$[^$]+\$")


# ----------------------------------------------------------------------------- notebook pages
def _visible_text(html: str) -> str:
    """The page's text outside code, scripts and styles (what MathJax would have typeset)."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["pre", "code", "script", "style"]):
        tag.decompose()
    return soup.get_text()


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
    assert not RAW_TEX.search(_visible_text(html))
    assert "varepsilon" in html  # the code cell shows its source as written
