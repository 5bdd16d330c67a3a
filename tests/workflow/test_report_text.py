"""Hostile text in the report: every string of a check record, a notebook table and the
findings that reaches the report is escaped, so a record holding ``\\input{/etc/passwd}``,
``}``, ``%``, ``&``, ``_`` or ``#`` neither reads a file, breaks the build nor changes the
document: the PDF shows the text itself (:mod:`privdtol.report.latex.assets`; beside
tests/report/latex/test_assets.py; the fabricated results tree: support/report_results.py).
And any text a tampered record may hold (its verdict, title, rule or summary) reaches the
notebook pages as Markdown that renders as that very text, never as markup, and the report's
LaTeX escaped (no command, group, comment or math mode of its own); rendered with mistune, the
Markdown renderer of nbconvert (which writes the notebook pages)."""

from __future__ import annotations

import copy
import html
import json
import re
import shutil
from html.parser import HTMLParser

import mistune
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.fuzz import FAST
from support.hostile import HOSTILE, LATEX, MARKUP
from support.paths import ROOT
from support.report_results import CONFIG, TEX, fabricate, needs_latex, pdf_text, run_assets

from privdtol.cli import main
from privdtol.report.latex import text as latex_text
from privdtol.report.latex.text import tex_escape
from privdtol.report.notebook.narrative import markdown_escape

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


# ----------------------------------------------------------------------------- any text
#: text a record may hold: markup and TeX characters over-represented, any other character
HOSTILE_TEXT = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(alphabet=st.sampled_from(list("<>&\"'/=\\`*_[]#|~{}%$^ ax1")), max_size=40),
    st.text(max_size=40),
)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def _rendered(markdown: str) -> tuple[list[str], str]:
    out = mistune.html(markdown)
    parser = _Tags()
    parser.feed(out)
    text = html.unescape(re.sub(r"<[^>]+>", "", out))
    return parser.tags, text


@settings(FAST, max_examples=300)
@given(HOSTILE_TEXT)
def test_markdown_of_any_text_renders_as_that_text(text):
    text = " ".join(text.split())  # Markdown folds whitespace; the words are what must survive
    if not text:
        return
    tags, shown = _rendered(markdown_escape(text))
    assert set(tags) <= {"p"}, (text, tags)
    assert " ".join(shown.split()) == text


#: what escaped text may hold after a backslash: a character escape or a text-mode macro of
#: tex_escape's own (e.g. \textbackslash{}, \textasciitilde{}), never an arbitrary command
_SAFE_COMMANDS = re.compile(r"\\(?:[%&#_${}]|text\w+\{\}|\^\{\}|~\{\})")


@settings(FAST, max_examples=300)
@given(HOSTILE_TEXT)
def test_latex_of_any_text_has_no_command_of_its_own(text):
    """Seen failing on "π" with random examples: a symbol of tex_escape's own table (Greek
    letters and relations as ``$\\pi$``, ...) is mathematics of its own, closed, not the text's;
    it is taken out like the escapes."""
    escaped = tex_escape(text)
    rest = _SAFE_COMMANDS.sub("", escaped)
    for symbol in sorted(set(latex_text._MATH.values()), key=len, reverse=True):
        rest = rest.replace(symbol, "")
    assert "\\" not in rest, (text, escaped)
    for ch in "{}%$#&_^~":  # only inside the escapes above
        assert ch not in rest, (text, escaped, ch)
