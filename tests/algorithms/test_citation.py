"""Tests of :mod:`privdtol.algorithms.citation`: a declared BibTeX entry is parsed by
bibtexparser; anything but one plain entry of standard fields is refused with its reason."""

from __future__ import annotations

import pytest

from privdtol.algorithms.citation import parse_entry

ENTRY = (
    "@inproceedings{ann2020,\n  author = {Ann, A. and Bo, B.},\n  title = {{PF}},\n  year = 2020\n}"
)


def test_one_plain_entry_is_its_type_and_fields():
    assert parse_entry(ENTRY, "ann2020") == (
        "inproceedings",
        {"author": "Ann, A. and Bo, B.", "title": "{PF}", "year": "2020"},
    )


@pytest.mark.parametrize(
    "text,problem",
    [
        # beside the entry: a preamble (pdflatex runs it), a macro, a comment
        (r"@preamble{\input{/etc/hostname}} " + ENTRY, "nothing else"),
        ("@string{pf = {PF}} " + ENTRY, "nothing else"),
        ("% note\n" + ENTRY, "nothing else"),
        (ENTRY + ENTRY.replace("ann2020", "bo2021"), "found 2 entries"),
        (ENTRY[:-1], "cannot be parsed"),
        (ENTRY.replace("year = 2020", "year = 2020, year = 2021"), "cannot be parsed"),
        (ENTRY.replace("ann2020", "other"), "for reference 'ann2020'"),
        (ENTRY.replace("inproceedings", "software"), "entry type 'software'"),
        (ENTRY.replace("year", "abstract"), "field 'abstract' not one of"),
        # verbatim fields: a plain address only (\url would read a % or a macro)
        (ENTRY.replace("year = 2020", r"url = {https://x.org/\input{a}}"), "field 'url'"),
        (ENTRY.replace("year = 2020", "doi = {10.1/a%b}"), "field 'doi'"),
    ],
)
def test_anything_but_one_plain_entry_is_refused_with_its_reason(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_entry(text, "ann2020")


def test_a_parse_error_is_not_printed_by_the_library(capsys):
    """bibtexparser logs a failed block; the refusal is the one line the caller prints."""
    with pytest.raises(ValueError):
        parse_entry(ENTRY[:-1], "ann2020")
    assert capsys.readouterr() == ("", "")
