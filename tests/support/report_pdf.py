"""Reading a built report as its reader sees it: the text of each page (``pdftotext -layout``),
the words with their boxes (``pdftotext -bbox``), the figure captions in page order, the code
the LaTeX sources set in typewriter, and the overfull boxes of the compile log.

What counts as *code* (where ``_``, ``^`` and ``**`` are the text itself, not markup): what the
report's LaTeX sources set in code font, ``\\texttt{...}`` (algorithm, claim, experiment and
rule names, configuration keys, file paths, commands; a macro's ``#1`` stands for any name),
the labels of the rule graph (a drawing of the workflow's rule names), and links (``https://``,
``doi:``).  A word of the PDF is code when it is part of one of those texts' tokens (a token may
be broken across lines after a "/").
"""

from __future__ import annotations

import html
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

# a reference to the project's issue tracker (tests/workflow/test_report_pages.py reads it here)
from support.sources import TRACKER as TRACKER

#: the caption of a figure, as pdftotext prints it at the start of a line
CAPTION = re.compile(r"^[ \t]*Figure (\d+): (.*)$", re.M)
#: markup a reader should never see: a superscript or power written out, a subscript
RAW_MARKUP = re.compile(r"\^|\*\*|_")
#: a token of code text (identifiers, file names and paths)
CODE_TOKEN = re.compile(r"[\w./#-]+")
#: what is checked for markup: a run of word characters, dots, slashes, dashes and markup
#: characters ("agreement_z_max=3," holds "agreement_z_max" and "3")
UNIT = re.compile(r"[\w./#^*-]+")
#: a link: a URL or a DOI (the bibliography's)
LINK = re.compile(r"^(?:https?://|doi:)")
_TEXTTT = re.compile(r"\\texttt\{((?:[^{}]|\{[^{}]*\})*)\}")


def page_texts(pdf: Path) -> list[str]:
    """The text of each page (``pdftotext -layout``), in page order."""
    out = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = out.split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def captions(pdf: Path) -> list[tuple[int, int, str]]:
    """``(page, figure number, caption)`` of every figure caption, in page order (pages from
    1); a caption is its page's text from "Figure N:" to the end of its paragraph."""
    out = []
    for page, text in enumerate(page_texts(pdf), start=1):
        for m in CAPTION.finditer(text):
            paragraph = re.split(r"\n\s*\n", text[m.start() :], maxsplit=1)[0]
            out.append((page, int(m.group(1)), " ".join(paragraph.split()[2:])))
    return out


@dataclass(frozen=True)
class Word:
    page: int
    text: str
    x_min: float
    y_min: float
    x_max: float
    y_max: float

    @property
    def height(self) -> float:
        return self.y_max - self.y_min


@dataclass(frozen=True)
class Page:
    number: int
    width: float
    height: float


def rotations(pdf: Path) -> dict[int, int]:
    """``{page: rotation in degrees}`` (``pdfinfo``; a landscape page is rotated 90)."""
    out = subprocess.run(
        ["pdfinfo", "-f", "1", "-l", "100000", str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    return {int(p): int(r) for p, r in re.findall(r"^Page\s+(\d+) rot:\s+(\d+)", out, re.M)}


def words(pdf: Path) -> tuple[list[Page], list[Word]]:
    """Every page's size and every word with its box, in PDF points (``pdftotext -bbox``); a
    rotated (landscape) page's size as it is read, as its words' boxes are."""
    out = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    rotated = rotations(pdf)
    pages: list[Page] = []
    found: list[Word] = []
    for chunk in re.split(r"(?=<page )", out)[1:]:
        size = re.match(r'<page width="([\d.]+)" height="([\d.]+)"', chunk)
        width, height = float(size.group(1)), float(size.group(2))
        if rotated.get(len(pages) + 1, 0) % 180:
            width, height = height, width
        pages.append(Page(len(pages) + 1, width, height))
        for m in re.finditer(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>',
            chunk,
        ):
            box = [float(m.group(i)) for i in range(1, 5)]
            found.append(Word(len(pages), html.unescape(m.group(5)), *box))
    return pages, found


def code_texts(*folders: Path) -> set[str]:
    """What the ``.tex`` files under ``folders`` print in code font (``\\texttt{...}``),
    unescaped."""
    out = set()
    for folder in folders:
        for path in folder.rglob("*.tex"):
            for body in _TEXTTT.findall(path.read_text(encoding="utf-8")):
                body = re.sub(r"\\allowbreak\{\}|\\(?=[_&%#$^])", "", body)
                out.add(body.replace(r"\textasciicircum{}", "^"))
    return out


def code_tokens(texts, drawings: tuple[Path, ...] = ()) -> set[str]:
    """The tokens of code ``texts`` and of the text of the PDF ``drawings`` (the rule graph)."""
    tokens = {t for text in texts for t in CODE_TOKEN.findall(text)}
    for drawing in drawings:
        if drawing.exists():
            tokens |= {t for page in page_texts(drawing) for t in CODE_TOKEN.findall(page)}
    return tokens


def raw_markup(pages: list[str], code: set[str]) -> list[tuple[int, str, str]]:
    """``(page, unit, line)`` for every unit (:data:`UNIT`) of the PDF text with a ``^``,
    ``**`` or ``_`` that is not (part of) a code token, nor of a link."""
    out = []
    for page, text in enumerate(pages, start=1):
        for line in text.splitlines():
            for word in line.split():
                if not RAW_MARKUP.search(word) or LINK.match(word.lstrip("([")):
                    continue
                for unit in UNIT.findall(word):
                    unit = unit.strip(".")
                    if RAW_MARKUP.search(unit) and not _is_code(unit, code):
                        out.append((page, unit, line.strip()))
    return out


def _is_code(word: str, code: set[str]) -> bool:
    """``word`` is a code token or a piece of one (a token broken across lines); a macro's
    parameter (``fig_#1``) stands for any name."""
    if word in code or any(word in token for token in code):
        return True
    patterns = (re.escape(t).replace(r"\#1", r"\w+") for t in code if "#1" in t)
    return any(re.fullmatch(p, word) for p in patterns)


def overfull_boxes(log: Path, min_pt: float = 0.5) -> list[str]:
    """The ``Overfull \\hbox`` warnings of a LaTeX log wider than ``min_pt``, each with the
    file being read and the box's contents (the lines after it)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    out = []
    for m in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\)[^\n]*\n(.*?)\n\n", text, re.S):
        if float(m.group(1)) <= min_pt:
            continue
        opened = re.findall(r"\(([^()\s]+\.tex)", text[: m.start()])
        out.append(f"{m.group(0).strip()} [reading {opened[-1] if opened else '?'}]")
    return out


# ----------------------------------------------------------------------------- reading time

#: a sentence ends at ".", "!" or "?" followed by space and a capital, a bracket or a macro
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
#: the heading of the appendix's first section (paper/replication_report.tex)
APPENDIX_HEADING = "Changes made after results were seen"


def plain_text(pdf: Path, first: int | None = None, last: int | None = None) -> str:
    """The PDF's text in reading order (``pdftotext``, no layout), words broken at a line's
    end joined again, whitespace collapsed."""
    args = ["pdftotext"]
    args += ["-f", str(first)] if first else []
    args += ["-l", str(last)] if last else []
    out = subprocess.run([*args, str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return " ".join(re.sub(r"-\n(?=[a-z])", "", out).split())


def repeated_sentences(pdf: Path, min_words: int = 10) -> dict[str, int]:
    """The sentences of ``min_words`` words or more that the PDF says more than once, with how
    often."""
    counts: dict[str, int] = {}
    for s in _SENTENCE_END.split(plain_text(pdf)):
        if len(s.split()) >= min_words:
            counts[s] = counts.get(s, 0) + 1
    return {s: n for s, n in counts.items() if n > 1}


def appendix_page(pdf: Path) -> int:
    """The page (from 1) where the appendix starts: its first section's heading, "A ..."."""
    heading = re.compile(rf"^\s*A\s+{re.escape(APPENDIX_HEADING)}\s*$", re.M)
    for page, text in enumerate(page_texts(pdf), start=1):
        if heading.search(text):
            return page
    raise AssertionError(f"{pdf}: no appendix heading {APPENDIX_HEADING!r}")


def page_one_parts(pdf: Path) -> tuple[str, str]:
    """Page 1 as ``(text, table)``: the verdict table (from its caption "Table 1:" to the
    findings) and everything else."""
    lines = page_texts(pdf)[0].splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("Table 1:"))
    end = next(i for i, ln in enumerate(lines) if ln.strip().startswith("Findings"))
    assert start < end, "page 1: the findings come after the verdict table"
    return "\n".join(lines[:start] + lines[end:]), "\n".join(lines[start:end])


#: a row of a verdict table as pdftotext -layout prints it: the claim's id first
VERDICT_ROW = re.compile(r"^\s*(C\d+[a-z]?|L\d+[a-z]?)\s+\S.*$", re.M)


def verdict_rows(table: str) -> dict[str, str]:
    """Claim id -> its row's text, for each row of a verdict table's text: the line that starts
    with the id and the lines after it up to the next row (a statement whose mathematics is set
    on several lines, e.g. a sum with its index below, puts the verdict on a later line)."""
    starts = list(VERDICT_ROW.finditer(table))
    ends = [m.start() for m in starts[1:]] + [len(table)]
    return {
        m.group(1): table[m.start() : end].rstrip() for m, end in zip(starts, ends, strict=True)
    }
