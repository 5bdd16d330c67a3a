"""Tests of :mod:`privdtol.report.latex.config_tables`: the bibliography the algorithms declare
(``plugins.bib``) and the keys of a BibTeX file."""

from __future__ import annotations

from privdtol.algorithms import ALGORITHMS
from privdtol.algorithms.rps import RandomizedPrefixSoftmax
from privdtol.report.latex.config_tables import algorithms_bib, bib_keys

ENTRY = "@misc{ann2020,\n  author = {Ann, A.},\n  title = {PF},\n  year = {2020}\n}"


def _plugin(name, reference, bibtex):
    attrs = {"name": name, "reference": reference, "bibtex": bibtex}
    return type(name, (RandomizedPrefixSoftmax,), attrs)


def test_the_built_in_algorithms_declare_no_entry_of_their_own():
    """Their works are in paper/references.bib: plugins.bib is its header alone."""
    assert algorithms_bib().strip().splitlines() == [
        "% BibTeX entries declared by the registered algorithms (privdtol report-assets)"
    ]


def test_a_plugin_s_entry_is_written_once_unless_the_paper_s_bibliography_has_it(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, "pf_a", _plugin("pf_a", "ann2020", ENTRY))
    monkeypatch.setitem(ALGORITHMS, "pf_b", _plugin("pf_b", "ann2020", ENTRY))  # same work
    bib = algorithms_bib()
    assert bib.count("@misc{ann2020,") == 1
    assert bib.endswith(
        "@misc{ann2020,\n  author = {Ann, A.},\n  title = {{PF}},\n  year = {2020}\n}\n"
    )
    assert "@misc" not in algorithms_bib({"ann2020", "hu2021"})


def test_bib_keys_reads_every_entry_key(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text("@article{hu2021,\n title={x}}\n\n@inproceedings{ wu2026 ,\n y={z}}\n")
    assert bib_keys(path) == {"hu2021", "wu2026"}
    assert bib_keys(tmp_path / "absent.bib") == set()


def test_the_paper_s_bibliography_has_every_built_in_reference():
    from support.paths import ROOT

    keys = bib_keys(ROOT / "paper" / "references.bib")
    assert {c.reference for c in ALGORITHMS.values() if c.reference} <= keys


def test_a_plugin_s_bibtex_reaches_tex_only_as_escaped_text(monkeypatch):
    """An input command in a title (it printed the machine's hostname in the bibliography)
    and TeX specials in an author are read as text and escaped; accents become letters."""
    entry = (
        '@misc{ann2020,\n  author = {M{\\"o}ller, A. and Bo \\{x\\} \\% \\& \\#},\n'
        "  title = {The {RPS} \\input{/etc/hostname} bound $\\eta$},\n  year = 2020\n}"
    )
    monkeypatch.setitem(ALGORITHMS, "pf_a", _plugin("pf_a", "ann2020", entry))
    bib = algorithms_bib()
    assert bib.endswith(
        "@misc{ann2020,\n"
        "  author = {Möller, A. and Bo \\textbraceleft{}x\\textbraceright{} \\% \\& \\#},\n"
        "  title = {{The RPS bound $\\eta$}},\n"
        "  year = {2020}\n}\n"
    ), bib
    assert "input" not in bib and "hostname" not in bib


def test_page_ranges_keep_bibtex_s_dashes():
    """pylatexenc reads "--" as an en dash; plainnat prints "pages" only for a "-" in them."""
    from privdtol.report.latex.config_tables import _bib_text

    assert (_bib_text("193--203"), _bib_text("1---2")) == ("193--203", "1---2")
