"""The pages of the smoke build's report as a reader sees them (its PDF text and word boxes, and
the compile log): figures numbered once in order of appearance, no reference to the project's
issue tracker, no raw markup (``^``, ``_``, ``**``) outside code, every table and page within
the paper and legible, no sentence said twice, the main text and page 1 within their word
budgets, and page 1's counts those of its tables.  What counts as code is
:mod:`support.report_pdf`'s definition: what the LaTeX sources set in ``\\texttt``, and the
rule graph's rule names."""

from __future__ import annotations

import re
import shutil

import pytest
from support.paths import ROOT
from support.report_pdf import (
    TRACKER,
    appendix_page,
    captions,
    code_texts,
    code_tokens,
    overfull_boxes,
    page_one_parts,
    page_texts,
    plain_text,
    raw_markup,
    repeated_sentences,
    verdict_rows,
    words,
)

needs_tex = pytest.mark.skipif(
    shutil.which("latexmk") is None
    or shutil.which("pdftotext") is None
    or shutil.which("dot") is None,
    reason="needs latexmk, pdftotext and graphviz (make setup installs them)",
)
pytestmark = [pytest.mark.slow, needs_tex]

#: the report's margins (paper/preamble.tex: geometry margin=2.3cm), in PDF points
MARGIN_PT = 2.3 / 2.54 * 72
#: how far a word may reach into the margin: microtype's protrusion of a line's last
#: punctuation and a glyph's overhang (up to 4.1 pt seen, "doi:10." in the bibliography)
MARGIN_SLACK_PT = 6.0
#: the smallest legible word: a box at least this tall (pdftotext's box of 5 pt type is ~5 pt;
#: \scriptsize in an 11 pt document is 8 pt, \tiny 6 pt)
MIN_WORD_HEIGHT_PT = 4.5


def _report(smoke_run):
    return smoke_run / "results" / "report" / "replication_report.pdf"


def test_figures_are_numbered_once_in_page_order(smoke_run):
    from privdtol.analysis.registry import NOTEBOOKS

    found = captions(_report(smoke_run))
    numbers = [n for _, n, _ in found]
    # one caption per notebook and the rule graph, numbered 1, 2, ... as they appear
    assert numbers == list(range(1, len(NOTEBOOKS) + 2)), found
    pages = [p for p, _, _ in found]
    assert pages == sorted(pages), found
    # the number a notebook's figure gets is the one every other place cites (a caption
    # ends with the links to its notebook: "[notebook <name>; rebuild: ...]")
    from privdtol.report.figure_order import figure_number

    by_number = {n: caption for _, n, caption in found}
    for name in NOTEBOOKS:
        caption = by_number[figure_number(name)]
        assert re.search(rf"\[notebook {name};", caption), (name, caption)
    assert by_number[len(NOTEBOOKS) + 1].startswith("Snakemake rule graph")


def test_no_reference_to_the_issue_tracker(smoke_run):
    hits = [
        (page, m.group(0))
        for page, text in enumerate(page_texts(_report(smoke_run)), start=1)
        for m in TRACKER.finditer(text)
    ]
    assert not hits, hits


def test_no_raw_markup_outside_code(smoke_run):
    generated = smoke_run / "results" / "report" / "generated"
    code = code_tokens(
        code_texts(ROOT / "paper", generated), drawings=(generated / "rulegraph.pdf",)
    )
    found = raw_markup(page_texts(_report(smoke_run)), code)
    assert not found, "\n".join(f"p. {p}: {w!r} in {line!r}" for p, w, line in found[:30])


def test_no_overfull_box_in_the_compile_log(smoke_run):
    # a table (or any line) wider than the text; FitTable shrinks a tabular to the line, a
    # longtable and a plain tabular are not shrunk
    log = smoke_run / "results" / "report" / "replication_report.log"
    assert not overfull_boxes(log), overfull_boxes(log)


def test_every_word_is_inside_the_text_block_and_legible(smoke_run):
    pages, found = words(_report(smoke_run))
    size = {p.number: (p.width, p.height) for p in pages}
    outside = [
        (w.page, w.text, round(w.x_min), round(w.x_max), round(w.y_max))
        for w in found
        if (
            w.x_min < MARGIN_PT - MARGIN_SLACK_PT
            or w.x_max > size[w.page][0] - MARGIN_PT + MARGIN_SLACK_PT
            or w.y_max > size[w.page][1] - MARGIN_PT + MARGIN_SLACK_PT  # a row past the page
        )
        and w.text != str(w.page)  # the page's number, in the footer
    ]
    assert not outside, outside[:20]
    # words, not the single letters (and "min", "max") of sub- and superscripts
    tiny = [
        (w.page, w.text, round(w.height, 1))
        for w in found
        if w.height < MIN_WORD_HEIGHT_PT and len(w.text) >= 4
    ]
    assert not tiny, tiny[:20]


# ----------------------------------------------------------------------------- a ten-minute read

#: the main text's budget (everything before the appendix) and page 1's (besides its table)
MAIN_TEXT_WORDS = 3500
PAGE_ONE_WORDS = 350


def test_no_sentence_of_ten_words_or_more_is_said_twice(smoke_run):
    repeated = repeated_sentences(_report(smoke_run))
    assert not repeated, "\n".join(f"{n}x: {s[:200]}" for s, n in repeated.items())


def test_the_main_text_and_page_one_keep_their_word_budgets(smoke_run):
    pdf = _report(smoke_run)
    start = appendix_page(pdf)
    assert start > 2  # page 1 and at least one page of evidence
    main = len(plain_text(pdf, last=start - 1).split())
    assert main <= MAIN_TEXT_WORDS, main
    text, table = page_one_parts(pdf)
    assert len(text.split()) <= PAGE_ONE_WORDS, len(text.split())
    assert "Findings" in text and table  # both on page 1


def test_page_one_counts_are_those_of_its_tables(smoke_run):
    pdf = _report(smoke_run)
    text, table = page_one_parts(pdf)
    summary = " ".join(text.split())
    claims = verdict_rows(table)
    passed = sum(" PASS " in f" {row} " for row in claims.values())
    m = re.search(r"of all (\d+), (\d+) PASS", summary)
    assert m and (int(m.group(1)), int(m.group(2))) == (len(claims), passed), (m, claims)
    # the diagnostics table follows the verdicts (the methods section)
    pages = page_texts(pdf)
    where = next(i for i, t in enumerate(pages) if "Table 2: Diagnostics" in t)
    diagnostics = verdict_rows(pages[where][pages[where].index("Table 2: Diagnostics") :])
    m = re.search(r"of (\d+) diagnostics \(Table 2\), (\d+) PASS", summary)
    d_passed = sum(" PASS " in f" {row} " for row in diagnostics.values())
    assert m and (int(m.group(1)), int(m.group(2))) == (len(diagnostics), d_passed)
    assert not set(claims) & set(diagnostics)
    # the searches the findings count are the rows of the search table
    m = re.search(r"Of (\d+) worst-instance searches", summary)
    searches = smoke_run / "results" / "tables" / "worst.csv"
    if m:
        import pandas as pd

        table_rows = pd.read_csv(searches)
        keys = [c for c in ("algorithm", "K", "gap", "epsilon") if c in table_rows.columns]
        assert int(m.group(1)) == len(table_rows.drop_duplicates(keys)), table_rows
