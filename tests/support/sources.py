"""The repository's own text as a reader of the code meets it: its source files, the prose
in them (docstrings and comments of Python, comments of the Snakemake rules, the report's TeX),
the references to the project's issue tracker that prose must not hold, and the repository
paths it names, which must exist.

A path is *named* when the prose writes it from a top-level folder of the repository
(``src/privdtol/engine/exact/heap.py``, ``tests/workflow/``, ``config/smoke.yaml``) or writes a
test module or a rule file by its file name alone (``test_layers.py``, ``report.smk``); a path
written with a placeholder (``notebooks/<nb>.py``, ``results/{exp}``, ``tests/...``) is a pattern,
not a path.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

#: a reference to the project's issue tracker: "issue" or "issues" and a number (with or
#: without "#" or "-", as in a branch name), or "#" and two digits (a single-digit "#1" is a
#: LaTeX macro's parameter, three digits a colour)
TRACKER = re.compile(r"\bissues?[\s-]*#?\d+|(?<![\w&/{\\])#\d{2}\b", re.I)

#: the folders whose text must not refer to the tracker (the docs and the changelog may: they
#: tell the project's history)
PROSE_DIRS = (
    "src",
    "tests",
    "workflow",
    "paper",
    "notebooks",
    "config",
    "benchmarks",
    "scripts",
    "examples",
    "profiles",
)
#: the files read there (text; notebooks/ holds jupytext percent scripts)
TEXT_SUFFIXES = {
    ".py",
    ".smk",
    ".tex",
    ".yaml",
    ".yml",
    ".j2",
    ".js",
    ".rst",
    ".md",
    ".cls",
    ".bib",
    ".toml",
    ".txt",
    ".html",
    ".css",
}
#: top-level folders a named path starts from
TOP = (
    "src",
    "tests",
    "workflow",
    "paper",
    "notebooks",
    "config",
    "docs",
    "scripts",
    "benchmarks",
    "examples",
    "profiles",
)
_PATH = re.compile(rf"(?<![\w./-])(?:{'|'.join(TOP)})/[\w.-]+(?:/[\w.-]+)*/?")
#: a test module or a rule file named by its file name alone
_BARE = re.compile(r"(?<![\w./-])(test_\w+\.py|\w+\.smk)\b")
#: what follows a pattern's fixed part (``notebooks/<nb>.py``, ``results/{exp}``, ``a/*.py``)
_PLACEHOLDER = tuple("<{*$%[")
#: built by a command, absent from a fresh clone
GENERATED = ("docs/_build",)


def text_files(root: Path, dirs=PROSE_DIRS) -> Iterator[Path]:
    """The text files under ``root``'s ``dirs`` (and its Snakefile), caches left out."""
    yield root / "Snakefile"
    for d in dirs:
        for p in sorted((root / d).rglob("*")):
            text = p.suffix in TEXT_SUFFIXES or p.name == "Snakefile"
            if p.is_file() and text and "__pycache__" not in p.parts:
                yield p


def tracker_references(text: str) -> list[tuple[int, str]]:
    """``(line, reference)`` of each reference to the tracker in ``text``."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in TRACKER.finditer(text)]


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """``(first line, text)`` of each piece of prose in ``path``: a Python file's docstrings
    and comments, a Snakemake file's comments and docstrings, all of a TeX or TOML file (the
    TeX with its escaped underscores read as underscores)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        yield from _python_prose(text)
    elif path.suffix == ".smk" or path.name == "Snakefile":
        for n, line in enumerate(text.splitlines(), start=1):
            if "#" in line:
                yield n, line[line.index("#") :]
        for m in re.finditer(r'"""(.*?)"""', text, re.S):
            yield text.count("\n", 0, m.start()) + 1, m.group(1)
    elif path.suffix == ".tex":
        yield 1, text.replace(r"\_", "_")
    else:
        yield 1, text


def _python_prose(text: str) -> Iterator[tuple[int, str]]:
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                yield first.lineno, value.value


def named_paths(text: str) -> Iterator[tuple[int, str]]:
    """``(line offset, path)`` of each repository path ``text`` names (see the module's
    docstring); a bare file name is returned as is."""
    for pattern in (_PATH, _BARE):
        for m in pattern.finditer(text):
            if text[m.end() : m.end() + 1].startswith(_PLACEHOLDER) and pattern is _PATH:
                continue
            path = m.group(1) if pattern is _BARE else m.group(0).rstrip(".")
            if "..." in path:  # an elided part: a pattern
                continue
            yield text.count("\n", 0, m.start()), path


def missing_paths(root: Path, files) -> list[str]:
    """``file:line: path`` of every path the prose of ``files`` names that ``root`` lacks."""
    bare = {p.name for p in (root / "tests").rglob("test_*.py")}
    bare |= {p.name for p in (root / "workflow").rglob("*.smk")}
    out = []
    for f in files:
        for line, text in prose(f):
            for offset, path in named_paths(text):
                if "/" not in path:
                    found = path in bare
                else:
                    found = (root / path).exists() or path.startswith(GENERATED)
                if not found:
                    out.append(f"{f.relative_to(root)}:{line + offset}: {path}")
    return out


#: a figure number written out ("Figure 3", "Fig.~3", "figures 6-11"): the report's figures are
#: numbered by their place (privdtol.report.figure_order), never by hand
FIGURE_NUMBER = re.compile(r"\bfig(?:ure)?s?\.?[\s~]+\d+", re.I)


def figure_numbers(text: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each figure number written out in ``text``."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in FIGURE_NUMBER.finditer(text)]
