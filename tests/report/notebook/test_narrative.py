"""Tests of :mod:`privdtol.report.notebook.narrative`: the check records as the notebooks display
them, Markdown with ``$...$`` TeX (the registry's typeset statement of the claim, the records' ASCII
mathematics typeset by the report's table of symbols), not raw text with ``**``."""

from __future__ import annotations

import json

import pytest
from support.records import HAND_CHECK, HEATMAP_CLAIM

from privdtol.analysis import records
from privdtol.analysis.records import write_check
from privdtol.analysis.registry import CLAIMS, CLAIMS_TEX, control_id, notebook_claims
from privdtol.report.notebook.narrative import (
    check_markdown,
    checks_note,
    claim_title,
    control_markdown,
    markdown_math,
)

HEAD = records.Heading("C4", "Rate form", "largest factor", "within [1/2, 2]")
NAN = float("nan")


def test_ascii_mathematics_becomes_tex_and_markup_characters_stay_characters():
    out = markdown_math("Reg_T <= 1 + 4 sum_m F_m in every cell; a*b__c; rps_eta_logk")
    assert r"$\mathrm{Reg}_T$" in out and r"$\le$" in out and r"$\sum_m$" in out
    assert "$F_m$" in out
    assert r"a\*b\_\_c" in out  # escaped: renders as the characters, not emphasis
    assert "`rps_eta_logk`" in out  # an identifier is code
    assert "**" not in out


def test_numbers_are_shown_as_the_record_wrote_them():
    out = markdown_math("largest 0.992341 (K=4, gap=0.5, eps=0.0625)")
    assert "0.992341" in out and "$K = 4$" in out and r"$\varepsilon = 2^{-4}$" in out


def test_the_claim_s_own_record_is_titled_with_the_registry_s_tex():
    rec = records.make_check(HEAD, 1.5, 1.25, 1.75, "PASS", "4 rps cells.")
    text = check_markdown("C4", rec)
    first, _, *items = text.splitlines()
    assert first == f"**C4: PASS**: {CLAIMS_TEX['C4'].title}"
    assert items[0] == f"- statistic: {CLAIMS_TEX['C4'].statistic} = 1.5 [1.25, 1.75]"
    assert items[1] == r"- rule: within \[1/2, 2\]"
    assert items[2] == "- summary: 4 rps cells."


def test_an_exact_value_has_no_interval_and_a_missing_one_reads_n_a():
    exact = records.make_check(HEAD, 0.5, 0.5, 0.5, "PASS", "exact.")
    assert check_markdown("C4", exact).splitlines()[2].endswith("= 0.5")
    one_sided = records.make_check(HEAD, 1.0, float("nan"), 2.0, "INCONCLUSIVE", "one-sided.")
    assert check_markdown("C4", one_sided).splitlines()[2].endswith("= 1.0 [None, 2.0]")
    empty = records.no_data(HEAD, "2 rps cells; the form fit needs 4.")
    assert check_markdown("C4", empty).splitlines()[2].endswith("= n/a")


@pytest.mark.parametrize(
    "low, high, interval",
    [(1.25, 1.75, True), (1.5, 1.5, False), (NAN, 2.0, True), (NAN, NAN, False)],
    ids=["interval", "exact", "one-sided", "none"],
)
def test_the_report_and_the_notebooks_show_the_same_intervals(low, high, interval):
    """One rule (:func:`privdtol.report.latex.text.shown_interval`) for both: the claim's
    statement in the report and the notebook's check record."""
    from privdtol.report.latex.claims import claim_context

    rec = records.make_check(HEAD, 1.5, low, high, "PASS", "4 rps cells.")
    statistic = check_markdown("C4", rec).splitlines()[2]
    assert ("[" in statistic.split(" = ")[-1]) is interval
    assert ("[" in claim_context("C4", rec)["result"]) is interval


def test_a_control_s_record_keeps_its_own_words_typeset():
    rec = records.as_control(
        records.make_check(
            records.Heading("L4", "Lemma 4: Reg_T <= 1 + 4 sum_m F_m", "max ratio", "<= 1"),
            3.0,
            2.0,
            4.0,
            "FAIL",
            "exceeds the bound",
        ),
        "L4",
    )
    text = check_markdown("L4", rec)
    assert text.startswith(r"**L4: FAIL**: Lemma 4: $\mathrm{Reg}_T$ $\le$ 1 + 4")
    line = control_markdown("L4", "rps_no_prefix", rec)
    assert line.startswith("- control `rps_no_prefix` of L4: **FAIL** (caught): ")


def test_ties_of_the_registry_s_tex_are_no_break_spaces_outside_mathematics():
    with_tie = next(c for c, t in CLAIMS_TEX.items() if "~" in t.title.split("$")[0])
    assert "~" not in claim_title(with_tie).split("$")[0]


def test_the_note_shows_each_record_or_not_run(tmp_path):
    write_check(HAND_CHECK, tmp_path / f"{HEATMAP_CLAIM}.json")
    text = checks_note("heatmap", tmp_path)
    assert f"**{HEATMAP_CLAIM}: FAIL**" in text and "hand-written summary 7f3a9c" in text
    assert "0.123 [0.1, 0.2]" in text
    assert "not run" in checks_note("heatmap", tmp_path / "absent")


def test_the_note_lists_the_controls_that_were_run(tmp_path):
    claim = next(c for c in notebook_claims("proof") if CLAIMS[c].controls)
    control = CLAIMS[claim].controls[0]
    rec = records.as_control(
        records.make_check(records.Heading(claim, "t", "s", "thr"), 2, 2, 2, "FAIL", "caught."),
        claim,
    )
    write_check(rec, tmp_path / f"{control_id(claim, control)}.json")
    text = checks_note("proof", tmp_path, controls=True)
    assert f"- control `{control}` of {claim}: **FAIL** (caught): caught." in text
    assert "control" not in checks_note("proof", tmp_path)


# ----------------------------------------------------------------------------- hostile records
# (a past bug: a record's verdict ``<img src=x onerror=...>`` went into the notebook pages'
# Markdown and ran; a record without a verdict raised KeyError)


def _rendered(markdown: str):
    """The Markdown as the notebook's HTML page renders it (nbconvert's mistune)."""
    from bs4 import BeautifulSoup
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    return BeautifulSoup(markdown2html_mistune(markdown), "html.parser")


def test_hostile_strings_of_a_record_stay_text_in_the_notebook_markdown():
    from support.hostile import MARKUP, SCRIPT

    record = records.make_check(
        records.Heading("C4", MARKUP, SCRIPT, f"&lt;b&gt; {MARKUP}"), 2, 1, 3, "FAIL", MARKUP
    )
    record["claim"] = MARKUP
    record["verdict"] = SCRIPT  # the reader refuses it; the Markdown must not need that
    for text in (check_markdown("C4", record), control_markdown("C4", "ftl", record)):
        page = _rendered(text)
        assert page.find(["img", "script", "b"]) is None and not page.select("[onerror]")
        assert "onerror" in page.get_text()


@pytest.mark.parametrize("change", ["drop", "<img src=x onerror=alert(1)>"])
def test_a_record_without_a_valid_verdict_is_refused_in_one_line(tmp_path, change):
    from support.records import check_json

    from privdtol.errors import InputError
    from privdtol.report.notebook.narrative import figure_note

    record = check_json(HEATMAP_CLAIM, "PASS")
    if change == "drop":
        del record["verdict"]
    else:
        record["verdict"] = change
    (tmp_path / f"{HEATMAP_CLAIM}.json").write_text(json.dumps(record))
    for note in (checks_note, figure_note):
        with pytest.raises(InputError) as err:
            note("heatmap", tmp_path)
        assert "\n" not in str(err.value) and f"{HEATMAP_CLAIM}.json" in str(err.value)
