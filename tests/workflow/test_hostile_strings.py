"""Tests of :mod:`privdtol.report.assets` against hostile text: every string of a
check record, a notebook table and the findings that reaches the report is escaped, so a
record holding ``\\input{/etc/passwd}``, ``}``, ``%``, ``&``, ``_`` or ``#`` neither reads a
file, breaks the build nor changes the document: the PDF shows the text itself.  (Beside
tests/report/test_assets.py; the fabricated results tree: support/report_results.py.)"""

from __future__ import annotations

import copy
import json
import shutil

import pandas as pd
import pytest
from support.hostile import LATEX, MARKUP
from support.paths import ROOT
from support.report_results import CONFIG, TEX, fabricate, needs_latex, pdf_text, run_assets

from privdtol.cli import main

#: the record fields that are free text (the verdict is refused unless PASS/FAIL/INCONCLUSIVE)
TEXT_FIELDS = ("title", "summary", "threshold", "statistic_label")


def hostile_results(tmp_path):
    results = fabricate(tmp_path / "results")
    for path in sorted((results / "checks").glob("*.json")):
        record = json.loads(path.read_text())
        record.update({k: f"{record[k]} {LATEX} {MARKUP}" for k in TEXT_FIELDS})
        path.write_text(json.dumps(record))
    table = next(iter(sorted((results / "tables").glob("*.csv"))))
    df = pd.read_csv(table)
    text_column = next((c for c in df.columns if df[c].dtype == object), None)
    df[text_column or "note"] = LATEX
    df.to_csv(table, index=False)
    return results


def hostile_config():
    """The tests' config with hostile descriptions (free text a config file may hold)."""
    config = copy.deepcopy(CONFIG)
    for exp in config["experiments"]:
        exp["description"] = f"{LATEX} {MARKUP}"
    return config


def test_no_hostile_string_reaches_the_generated_latex_unescaped(tmp_path):
    results = hostile_results(tmp_path)
    gen = results / "report" / "generated"
    assert run_assets(tmp_path, results, gen, hostile_config()) == 0
    text = "".join(p.read_text() for p in sorted(gen.glob("*.tex")))
    assert r"\input{/etc" not in text and "/etc/passwd" in text  # it is there, as text
    assert r"\textbackslash{}input" in text


@needs_latex
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_the_report_with_hostile_records_compiles_and_shows_the_text(tmp_path):
    results = hostile_results(tmp_path)
    gen = results / "report" / "generated"
    assert run_assets(tmp_path, results, gen, hostile_config()) == 0
    pdf = tmp_path / "replication_report.pdf"
    args = ["--tex", str(TEX), "--generated", str(gen), "--results", str(results)]
    assert main(["report-compile", *args, "--out", str(pdf), "--repo", str(ROOT)]) == 0
    text = pdf_text(pdf)
    assert "root:x:0" not in text  # /etc/passwd was not read
    assert "/etc/passwd" in text
