"""Tests of :mod:`privdtol.report.html.notebook_index`: the notebooks' index page is offline, its
titles MathML, diagnostics marked as such, and each notebook's note comes from its check records."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from support.offline_pages import RAW_TEX, external_references, visible_text
from support.records import check_json

from privdtol.analysis.registry import NOTEBOOKS, notebook_claims
from privdtol.report.figure_order import figure_number
from privdtol.report.html.notebook_index import render_index


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
    from privdtol.report.html.notebook_index import render_index
    from privdtol.report.notebook.narrative import display_table, figure_note

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


# ----------------------------------------------------------------------------- hostile records
# (a past bug: a record's verdict was written into the pages as markup; one without a verdict
# crashed with KeyError)


def test_a_record_without_a_verdict_is_refused_in_one_line_and_the_index_kept(tmp_path, capsys):
    from privdtol.report.html.notebook_index import main

    (tmp_path / "checks").mkdir()
    claim = next(c for n in NOTEBOOKS for c in notebook_claims(n))
    record = check_json(claim, "PASS")
    del record["verdict"]
    (tmp_path / "checks" / f"{claim}.json").write_text(json.dumps(record))
    out = tmp_path / "index.html"
    out.write_text("the previous index")
    assert main(["--results", str(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{claim}.json" in err and "'verdict'" in err
    assert out.read_text() == "the previous index"


def test_hostile_strings_of_a_record_stay_text_in_the_index(tmp_path, monkeypatch):
    from bs4 import BeautifulSoup
    from support.hostile import MARKUP

    from privdtol.report.html import notebook_index

    (tmp_path / "checks").mkdir()
    context = notebook_index.index_context(tmp_path)
    entry = next(n for n in context if n["claims"])
    entry["claims"][0].update(verdict=MARKUP, diagnostic=MARKUP)
    entry["claims"][0]["controls"] = [{"name": MARKUP, "verdict": MARKUP}]
    monkeypatch.setattr(notebook_index, "index_context", lambda results: context)
    html = notebook_index.render_index(tmp_path)
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("img") is None and not soup.select("[onerror]")
    assert MARKUP in soup.get_text()
