"""Tests of :mod:`privdtol.report.html.notebook_html`: a notebook's page is offline (no remote
reference, unlike nbconvert's stock page) with its mathematics as MathML, shows its parameters
in one cell, its code folded, and its check records as rendered Markdown (MathML, no ``**``)."""

from __future__ import annotations

import nbformat
from bs4 import BeautifulSoup
from support.offline_pages import RAW_TEX, external_references, visible_text

from privdtol.analysis import records
from privdtol.report.html.notebook_html import NOT_OVERRIDDEN, notebook_html, one_parameters_cell
from privdtol.report.notebook.narrative import check_markdown

DEFAULTS = 'agg_dir = "results/agg"\n# display only: points per fitted line\nn_points = 3\n'
INJECTED = '# Parameters\nagg_dir = "/run/agg"\n'
#: a code cell longer than any figure: it must not push the outputs down
LONG_CODE = "\n".join(f"x{i} = {i}" for i in range(80))


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(r"# Figure 2 — regret against $1/\Delta_{\min}$"),
        nbformat.v4.new_code_cell('label = r"$\\varepsilon$"', execution_count=1),
    ]
    nbformat.write(nb, path)
    return path


def _executed(path, injected=INJECTED):
    """A notebook as papermill leaves it: the tagged defaults cell, the injected cell after it,
    a cell that displayed a check record as Markdown, and a long code cell."""
    record = records.make_check(
        records.Heading("L4", "Lemma 4: Reg_T <= 1 + 4 sum_m F_m", "ratio", "<= 1"),
        0.99,
        0.98,
        1.0,
        "PASS",
        "largest Reg_T / bound 0.99 (K=4, gap=0.5, eps=0.0625)",
    )
    shown = nbformat.v4.new_code_cell("Markdown(checks_note(NAME, checks_dir))", execution_count=3)
    shown.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            {"text/markdown": check_markdown("L4", record), "text/plain": "<Markdown>"},
            execution_count=3,
        )
    ]
    defaults = nbformat.v4.new_code_cell(DEFAULTS, execution_count=1)
    defaults.metadata["tags"] = ["parameters"]
    cells = [nbformat.v4.new_markdown_cell("# Figure 11 — the proof"), defaults]
    if injected is not None:
        cell = nbformat.v4.new_code_cell(injected, execution_count=2)
        cell.metadata["tags"] = ["injected-parameters"]
        cells.append(cell)
    nb = nbformat.v4.new_notebook()
    nb.cells = [*cells, shown, nbformat.v4.new_code_cell(LONG_CODE, execution_count=4)]
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


def test_the_page_shows_the_parameters_once_with_the_defaults_not_overridden(tmp_path):
    soup = BeautifulSoup(notebook_html(_executed(tmp_path / "nb.ipynb")), "html.parser")
    cells = soup.select("details.privdtol-parameters")
    assert len(cells) == 1
    source = cells[0].get_text()
    assert "/run/agg" in source and "results/agg" not in source  # the run's value only
    assert NOT_OVERRIDDEN in source and "n_points" in source  # what the run did not set
    assert cells[0].summary.get_text().startswith("parameters")


def test_papermill_s_two_cells_are_both_on_the_stock_page(tmp_path):
    """Negative control: without :func:`one_parameters_cell` the defaults and the injected
    values are two cells, as the test above would see on a page exported as is."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_filename(str(_executed(tmp_path / "n.ipynb")))
    assert "results/agg" in body and "/run/agg" in body


def test_a_notebook_run_without_parameters_keeps_its_defaults_cell(tmp_path):
    nb = nbformat.read(_executed(tmp_path / "n.ipynb", injected=None), as_version=4)
    before = [c.source for c in nb.cells]
    assert [c.source for c in one_parameters_cell(nb).cells] == before


def test_overriding_every_default_leaves_only_the_injected_values(tmp_path):
    injected = INJECTED + "n_points = 5\n"
    nb = one_parameters_cell(
        nbformat.read(_executed(tmp_path / "n.ipynb", injected=injected), as_version=4)
    )
    (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert cell.source == injected and NOT_OVERRIDDEN not in cell.source


def test_every_code_cell_is_folded_and_the_outputs_are_not(tmp_path):
    soup = BeautifulSoup(notebook_html(_executed(tmp_path / "nb.ipynb")), "html.parser")
    inputs = soup.select(".jp-CodeCell .jp-InputArea")
    assert len(inputs) == 3  # parameters, the check's cell, the long cell
    for area in inputs:
        folded = area.find_parent("details")
        assert folded is not None and not folded.has_attr("open")
    assert not any(o.find_parent("details") for o in soup.select(".jp-OutputArea-output"))
    assert "code (80 lines)" in soup.get_text()
    assert soup.find(id="privdtol-toggle-code") is not None  # shows them all


def test_the_check_record_is_rendered_markdown_with_mathml(tmp_path):
    soup = BeautifulSoup(notebook_html(_executed(tmp_path / "nb.ipynb")), "html.parser")
    (output,) = soup.select('.jp-OutputArea-output[data-mime-type="text/markdown"]')
    assert output.find("strong").get_text() == "L4: PASS"
    assert len(output.find_all("math")) >= 3 and output.find("li") is not None
    text = output.get_text()
    assert "**" not in text and "\\*" not in text and "<=" not in text and "Reg_T" not in text
    assert not RAW_TEX.search(text)
