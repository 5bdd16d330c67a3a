"""Tests of :mod:`privdtol.report.notebook_index`: the notebooks' index page is offline, its
titles MathML, diagnostics marked as such, and each notebook's note comes from its check records."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from support.offline_pages import RAW_TEX, external_references, visible_text
from support.records import check_json

from privdtol.analysis.registry import NOTEBOOKS, notebook_claims
from privdtol.report.figure_order import figure_number
from privdtol.report.notebook_index import render_index


def test_notebook_index_titles_are_mathml_and_it_links_the_explorer(tmp_path):
    (tmp_path / "notebooks").mkdir()
    html = render_index(tmp_path)
    assert external_references(html) == []
    assert "<script" not in html and "<math" in html
    assert not RAW_TEX.search(visible_text(html))
    assert 'href="../explorer/index.html"' in html
    # diagnostics are marked as such (the report's verdict/diagnostics split), claims as claims
    from privdtol.analysis.registry import diagnostics, paper_claims

    for row in html.split("<tr>")[2:]:
        for cid in diagnostics():
            if f"{cid}: " in row:
                assert f"diagnostic</span> {cid}: " in row, cid
        for cid in paper_claims():
            if f" {cid}: " in row:
                assert f"claim {cid}: " in row, cid
    assert html.count('class="diagnostic" title=') == len(diagnostics())


def test_notebook_notes_and_index_are_generated(tmp_path):
    from privdtol.report.narrative import display_table, figure_note
    from privdtol.report.notebook_index import render_index

    checks = tmp_path / "checks"
    checks.mkdir()
    name = next(n for n in NOTEBOOKS if notebook_claims(n))
    claim = notebook_claims(name)[0]
    record = {**check_json(claim, "INCONCLUSIVE"), "summary": "hand-written 5e1f"}
    (checks / f"{claim}.json").write_text(json.dumps(record))
    note = figure_note(name, checks)
    assert "hand-written 5e1f" in note and "INCONCLUSIVE" in note
    assert f"Figure {figure_number(name)}" in note and "replication_report.pdf" in note
    df = pd.DataFrame({"K": [2, 8], "slope": [0.9876543, np.nan], "axis": ["1/gap", "1/eps"]})
    html = display_table(df.assign(algorithm="rps"), "rates").to_html()
    assert "0.988" in html and "0.9876543" not in html
    index = render_index(tmp_path)
    assert all(f"fig_{n}" in index for n in NOTEBOOKS)
    assert "INCONCLUSIVE" in index and "not run" in index
