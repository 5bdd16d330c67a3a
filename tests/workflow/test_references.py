"""The report's bibliography, paper/references.bib, read as text (fast tier; the slow
tests/workflow/test_release.py reads the .bbl bibtex writes): every entry cited and every
citation an entry, identifiers (DOI, arXiv, URL) well-formed, and the facts checked against the
publishers' records and the replicated paper's reference list pinned as literals."""

from __future__ import annotations

import re

from support.paths import ROOT

from privdtol.report.latex.provenance import PACKAGE_REFERENCES
from privdtol.report.latex.tables import ALGORITHM_REFERENCES

BIB = ROOT / "paper" / "references.bib"


#: Crossref's recommended pattern for modern DOIs
DOI = re.compile(r"10\.\d{4,9}/[-._;()/:A-Za-z0-9]+")


#: arXiv identifiers since 2015: yymm.nnnnn, the month 01-12
ARXIV = re.compile(r"arXiv:(\d{2})(\d{2})\.(\d{4,5})(?![\d.])")


CITE = re.compile(r"\\cite[a-z]*\*?(?:\[[^\]]*\]){0,2}\{([^}]+)\}")


def braced(text: str, start: int) -> tuple[str, int]:
    """The content of the brace group opening at ``text[start]`` and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i], i + 1
    raise ValueError(f"unbalanced braces from {text[start : start + 40]!r}")


def parse_bib(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    """key -> (entry type, {field: value}) of a BibTeX file whose values are brace-delimited."""
    text = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("%"))
    entries = {}
    for m in re.finditer(r"@(\w+)\s*\{", text):
        body, _ = braced(text, m.end() - 1)
        key, _, rest = body.partition(",")
        fields, pos = {}, 0
        while f := re.compile(r"\s*(\w+)\s*=\s*\{").match(rest, pos):
            value, pos = braced(rest, f.end() - 1)
            fields[f.group(1).lower()] = " ".join(value.split())
            pos = re.compile(r"\s*,?").match(rest, pos).end()
        assert not rest[pos:].strip(), f"{key}: cannot read {rest[pos : pos + 60]!r}"
        assert key.strip() not in entries, f"duplicate key {key}"
        entries[key.strip()] = (m.group(1).lower(), fields)
    return entries


def cited_keys() -> set[str]:
    """Every key the report cites: the hand-written sections and templates, and the keys the
    report code inserts (algorithm table, provenance's package versions)."""
    sources = [*(ROOT / "paper").rglob("*.tex"), *(ROOT / "src/privdtol/report").rglob("*.j2")]
    keys = {k.strip() for f in sources for g in CITE.findall(f.read_text()) for k in g.split(",")}
    return keys | set(ALGORITHM_REFERENCES.values()) | set(PACKAGE_REFERENCES.values())


def identifier_problems(entries: dict) -> list[str]:
    """Malformed DOIs, arXiv identifiers and URLs, and entries that give none of them."""
    out = []
    for key, (_, fields) in entries.items():
        if "doi" in fields and not DOI.fullmatch(fields["doi"]):
            out.append(f"{key}: doi {fields['doi']!r} (a bare 10.xxxx/... is expected)")
        mentions = " ".join(fields.values())
        for yy, mm, _ in ARXIV.findall(mentions):
            if not (1 <= int(mm) <= 12 and int(yy) >= 15):
                out.append(f"{key}: arXiv:{yy}{mm}... is not a yymm.nnnnn identifier")
        if re.search(r"arXiv[: ]?\d", mentions) and not ARXIV.search(mentions):
            out.append(f"{key}: an arXiv identifier not of the form arXiv:yymm.nnnnn")
        if "url" in fields and not re.fullmatch(r"https://[^\s{}]+", fields["url"]):
            out.append(f"{key}: url {fields['url']!r}")
        if "url" in fields and "doi" in fields:
            out.append(f"{key}: both url and doi (plainnat prints both)")
        if not ({"doi", "url"} & set(fields)):
            out.append(f"{key}: neither doi nor url")
    return out


def test_every_entry_is_cited_and_every_citation_has_an_entry():
    entries = parse_bib(BIB.read_text(encoding="utf-8"))
    assert len(entries) == 12
    assert cited_keys() == set(entries)


def test_identifiers_are_well_formed_and_the_check_can_fail():
    entries = parse_bib(BIB.read_text(encoding="utf-8"))
    assert identifier_problems(entries) == []
    # negative controls: a DOI written as a link, an arXiv id with month 13, one without its
    # dot, an http URL, an entry with no link at all
    broken = {
        "a": ("article", {"doi": "https://doi.org/10.1016/j.tcs.2017.12.030"}),
        "b": ("misc", {"note": "arXiv:2113.07929", "url": "https://arxiv.org/abs/2113.07929"}),
        "c": ("misc", {"note": "arXiv 210207929", "url": "https://arxiv.org/abs/2102.07929"}),
        "d": ("misc", {"url": "http://example.org"}),
        "e": ("misc", {"title": "x"}),
    }
    assert [p.split(":")[0] for p in identifier_problems(broken)] == list("abcde")


def test_parse_bib_reads_nested_braces_and_skips_comments():
    text = (
        "% @misc{no, title={x}}\n@article{k,\n  author = {Kot{\\l}owski},\n  doi = {10.1/x},\n}\n"
    )
    assert parse_bib(text) == {"k": ("article", {"author": "Kot{\\l}owski", "doi": "10.1/x"})}


def test_entries_match_the_publishers_records():
    """Literals from the records named in the comments of references.bib (the publishers'
    pages, arXiv, and the replicated paper's own reference list, arXiv:2605.29148v1)."""
    e = {k: f for k, (_, f) in parse_bib(BIB.read_text(encoding="utf-8")).items()}
    assert "arXiv:2605.29148" in e["cesari2026"]["howpublished"]
    assert "arXiv:2102.07929" in e["hu2021"]["howpublished"]
    assert (
        e["hu2021"]["author"]
        == "Bingshan Hu and Zhiming Huang and Nishant A. Mehta and Nidhi Hegde"
    )
    assert e["hu2021"]["title"].startswith("Near-Optimal Algorithms for Differentially Private")
    assert (e["wu2026"]["volume"], e["wu2026"]["pages"]) == ("313", "1--22")
    assert e["wu2026"]["editor"] == "Matus Telgarsky and Jonathan Ullman"
    assert e["wu2026"]["note"] == "arXiv:2502.10997, version~2"
    assert e["wu2026"]["url"] == "https://proceedings.mlr.press/v313/wu26a.html"
    mourtada = e["mourtada2019"]
    assert (mourtada["volume"], mourtada["number"], mourtada["pages"]) == ("20", "83", "1--28")
    assert mourtada["author"] == r"Jaouad Mourtada and St{\'e}phane Ga{\"{\i}}ffas"
    assert mourtada["url"] == "https://jmlr.org/papers/v20/18-869.html"
    kot = e["kotlowski2018"]
    assert (kot["journal"], kot["volume"], kot["pages"]) == (
        "Theoretical Computer Science",
        "742",
        "50--65",
    )
    assert kot["doi"] == "10.1016/j.tcs.2017.12.030"
    assert (e["mcsherry2007"]["pages"], e["mcsherry2007"]["doi"]) == (
        "94--103",
        "10.1109/FOCS.2007.66",
    )
    dwork = e["dwork2006"]
    assert (dwork["volume"], dwork["pages"], dwork["doi"]) == (
        "4052",
        "1--12",
        "10.1007/11787006_1",
    )
    assert e["snakemake"]["doi"] == "10.12688/f1000research.29032.2"
    assert e["numpy"]["doi"] == "10.1038/s41586-020-2649-2"
    assert e["scipy"]["doi"] == "10.1038/s41592-019-0686-2"
    # no DOI where none was confirmed (papermill's JOSS DOI, a version number of Hu et al.)
    assert "doi" not in e["papermill"] and "doi" not in e["jupytext"] and "doi" not in e["hu2021"]
    assert e["papermill"]["author"] == "{nteract team}"


#: a repository file the report's static text names in code font (``\texttt{tests/...py}``)
REPO_PATH = re.compile(r"\\texttt\{((?:tests|src|notebooks|workflow|config|scripts)/[^}]*)\}")


def repo_paths(text: str) -> list[str]:
    """The repository paths ``text`` (LaTeX) prints, unescaped."""
    return [m.replace(r"\_", "_").replace(r"\allowbreak{}", "") for m in REPO_PATH.findall(text)]


def test_every_repository_file_the_report_names_exists():
    """A path the static text prints (a test, a module) is one a reader can open."""
    named = {
        path: tex.relative_to(ROOT)
        for tex in sorted((ROOT / "paper").rglob("*.tex"))
        for path in repo_paths(tex.read_text(encoding="utf-8"))
    }
    assert "tests/engine/exact/test_laplace.py" in named
    assert [p for p in named if not (ROOT / p).exists()] == []


def test_repo_paths_reads_escaped_underscores():
    assert repo_paths(r"(\texttt{tests/a\_b/test\_c.py}) and \texttt{results/x}") == [
        "tests/a_b/test_c.py"
    ]
