"""Measured figures have one home, docs/performance.md.

Run times, CPU times, memory and sizes, and test counts are measured on one machine at one
commit; copied into other pages they go stale.  So every other page the user reads
(README.md, docs/, config/README.md, the workflow catalog's metadata) links to
docs/performance.md instead of quoting them, and performance.md names, in every section, the
commit its figures were measured at.  CHANGELOG.md keeps the history, so it is not checked.
"""

from __future__ import annotations

import re

from support.paths import ROOT

HOME = ROOT / "docs" / "performance.md"


PAGES = [
    ROOT / "README.md",
    ROOT / "config" / "README.md",
    ROOT / ".snakemake-workflow-catalog.yml",
    *sorted((ROOT / "docs").rglob("*.md")),
]


SKIP = {HOME, ROOT / "docs" / "changelog.md"}  # changelog.md includes CHANGELOG.md


_NUMBER = r"(?<![\w^.\-/])\d+(?:[.,]\d+)*"


_UNIT = (
    r"(?:\s(?:s|h)|\s?(?:ms|µs|ns|sec|seconds?|mins?|minutes?|hours?"
    r"|CPU[- ](?:seconds?|minutes?|hours?)|[kMGT]i?B))\b"
)


_WORDS = (
    r"(?:[Aa] few|[Oo]ne|[Tt]wo|[Tt]hree|[Ff]our|[Ff]ive|[Tt]en|[Ff]ifteen|[Tt]wenty|[Tt]hirty)"
)


#: a quantity with a unit of time or memory, a duration in words, a count of passed tests;
#: not an exponent's digits (``10^5 GB``) nor part of a word or identifier
FIGURE = re.compile(
    _NUMBER + _UNIT
    + r"|\b" + _WORDS + r"\s+(?:seconds|minutes|hours)\b"
    + r"|\b(?:half an|an) hour\b|\ba minute\b|\b\d+ passed\b"
)  # fmt: skip


#: figures that are not measurements: limits the code enforces
NOT_MEASURED = ("files over 1 MiB",)


def quoted_figures(text: str) -> list[str]:
    """The measured-looking figures of a page's prose and of its code blocks' comments (the
    code itself and inline code left out)."""
    comments = [
        c for block in re.findall(r"^```.*?^```", text, flags=re.S | re.M)
        for c in re.findall(r"\s#\s(.*)$", block, flags=re.M)
    ]  # fmt: skip
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M) + "\n" + "\n".join(comments)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    for allowed in NOT_MEASURED:
        prose = prose.replace(allowed, "")
    return [m.group(0) for m in FIGURE.finditer(prose)]


def test_no_page_but_performance_md_quotes_a_measured_figure():
    found = {
        str(p.relative_to(ROOT)): f
        for p in PAGES
        if p not in SKIP and (f := quoted_figures(p.read_text(encoding="utf-8")))
    }
    assert found == {}, (
        "measured figures outside docs/performance.md (link to it instead): " + repr(found)
    )


def test_the_figure_pattern_finds_what_the_pages_used_to_quote():
    """Negative control: lines that quote measured figures, as README.md, docs and the catalog
    file once did."""
    old = (
        "| `make report`, default config, from scratch | ≈ 4 min |\n"
        "seconds when everything is there. `make report` takes about 4 minutes and `make test`\n"
        "in about five minutes on two cores; about 25 minutes on two cores\n"
        "≈ 22 CPU-minutes of simulation; 12.2 min wall; (3 min 41 s from scratch)\n"
        "under 450 MB of resident memory (337 MB), start-up (about 10 s per job)\n"
        "| `make test-fast` | about 80 s (76 s at 28c48b2) | tests 76 s (400 passed)\n"
        "```bash\nsnakemake --cores 2 --configfile config/smoke.yaml   # (about a minute)\n```\n"
    )
    assert quoted_figures(old) == [
        "4 min", "4 minutes", "five minutes", "25 minutes", "22 CPU-minutes", "12.2 min",
        "3 min", "41 s", "450 MB", "337 MB", "10 s", "80 s", "76 s", "76 s", "400 passed",
        "a minute",
    ]  # fmt: skip
    # what is not a measured figure
    assert quoted_figures("T = 2^30 − 1, ~10^5 GB, `--timeout 600 s`, 2 sessions") == []
    assert quoted_figures("files over 1 MiB are refused; the 1990s; 8 cores") == []


def test_every_section_of_performance_md_names_its_commit():
    sections = re.split(r"^## ", HOME.read_text(encoding="utf-8"), flags=re.M)[1:]
    assert len(sections) >= 5
    for section in sections:
        assert re.search(r"\bcommits? [0-9a-f]{7}\b", section), (
            f"docs/performance.md, section {section.splitlines()[0]!r}, names no commit"
        )
