"""The code speaks of the code: no prose of src/, tests/, workflow/, paper/, notebooks/, config/,
benchmarks/, scripts/, examples/ or profiles/ refers to the project's issue tracker, and every
repository path that the sources' docstrings and comments, the Snakemake rules, pyproject.toml
and the report's TeX name exists (:mod:`support.sources`)."""

from __future__ import annotations

import pytest
from support.paths import ROOT
from support.sources import TRACKER, missing_paths, named_paths, text_files, tracker_references

#: the files whose prose may name repository paths
PATH_DIRS = ("src", "tests", "workflow", "paper", "notebooks", "scripts", "benchmarks")
PATH_SUFFIXES = {".py", ".smk", ".tex"}


def test_no_prose_refers_to_the_issue_tracker():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {ref}"
        for path in text_files(ROOT)
        for line, ref in tracker_references(path.read_text(encoding="utf-8"))
    ]
    assert not found, "tracker references (speak of the code instead):\n" + "\n".join(found)


def test_every_repository_path_named_in_the_sources_exists():
    files = [ROOT / "pyproject.toml"] + [
        p for p in text_files(ROOT, PATH_DIRS) if p.suffix in PATH_SUFFIXES or p.name == "Snakefile"
    ]
    assert len(files) > 300  # the whole tree is read, not an empty glob
    missing = missing_paths(ROOT, files)
    assert not missing, "paths named that do not exist:\n" + "\n".join(missing)


# the rules themselves, on texts written here (the tracker's words built from parts, so that
# this file holds no reference)
ISSUE, NUM = "issue", "12"


@pytest.mark.parametrize(
    "text",
    [
        f"see {ISSUE} {NUM}",
        f"({ISSUE.title()} #{NUM})",
        f"{ISSUE}s {NUM} and 22",
        f"branch {ISSUE}-{NUM}",
        f"fixed in #{NUM}.",
    ],
)
def test_a_tracker_reference_is_found(text):
    assert TRACKER.search(text)


@pytest.mark.parametrize(
    "text",
    [
        r"\newcommand{\x}[1]{\textbf{#1}}",  # a LaTeX macro's parameter
        "color: #222;",  # a colour
        "color: #2a6ebb;",
        "an issue of numerical stability at K = 2",
        "tissue 12",
    ],
)
def test_what_is_not_a_tracker_reference(text):
    assert not TRACKER.search(text)


def test_named_paths_skip_patterns_and_sentence_ends():
    text = (
        "reads config/smoke.yaml. Writes notebooks/<nb>.py, tests/{x}/a.py and src/*.py;\n"
        "tested in test_layers.py and report.smk, results/agg/x.parquet is an output"
    )
    assert list(named_paths(text)) == [
        (0, "config/smoke.yaml"),
        (1, "test_layers.py"),
        (1, "report.smk"),
    ]


def test_a_missing_path_is_reported_with_its_file_and_line(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_here.py").write_text("")
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text(
        '"""Tested in tests/test_here.py\nand test_here.py."""\n'
        "# see tests/test_gone.py and test_gone_too.py\n"
        "X = 'tests/not_prose.py'\n"
    )
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "a.tex").write_text("\n\\texttt{tests/test\\_here.py}, src/m\\_x.py\n")
    assert missing_paths(tmp_path, [src / "m.py", tmp_path / "paper" / "a.tex"]) == [
        "src/m.py:3: tests/test_gone.py",
        "src/m.py:3: test_gone_too.py",
        "paper/a.tex:2: src/m_x.py",
    ]
