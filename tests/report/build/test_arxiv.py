"""Tests of :mod:`privdtol.report.build.arxiv`: the export takes its members from the recorder
file."""

from __future__ import annotations

import copy
import shutil

import pytest


def test_arxiv_members_come_from_the_recorder_file(tmp_path):
    """Names relative to the TEXINPUTS directory a file was found in, the job's own auxiliary
    files and the TeX installation left out, a data file refused."""
    from privdtol.errors import InputError
    from privdtol.report.build.arxiv import submission_members, write_submission

    paper, results = tmp_path / "paper", tmp_path / "results"
    gen, out = results / "report" / "generated", results / "report"
    for f in (
        paper / "replication_report.tex",
        paper / "sections" / "a.tex",
        gen / "numbers.tex",
        results / "figures" / "x.pdf",
        out / "replication_report.bbl",
        out / "replication_report.aux",
    ):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f.name)
    fls = out / "replication_report.fls"
    lines = [
        f"PWD {paper}",
        "INPUT /usr/share/texlive/texmf-dist/tex/latex/base/article.cls",
        "INPUT replication_report.tex",
        "INPUT ./sections/a.tex",
        f"INPUT {gen}/numbers.tex",
        f"INPUT {results}/figures/x.pdf",
        f"INPUT {out}/replication_report.bbl",
        f"INPUT {out}/replication_report.aux",
        f"OUTPUT {out}/replication_report.pdf",
    ]
    fls.write_text("\n".join(lines) + "\n")
    members = submission_members(fls, paper / "replication_report.tex", gen, results)
    assert list(members) == [
        "figures/x.pdf",
        "numbers.tex",
        "replication_report.bbl",
        "replication_report.tex",
        "sections/a.tex",
    ]
    # the same build copied elsewhere (the recorder file's paths are absolute): found again
    moved = tmp_path / "moved"
    shutil.copytree(tmp_path / "paper", moved / "paper")
    shutil.copytree(results, moved / "results")
    again = submission_members(
        moved / "results" / "report" / "replication_report.fls",
        moved / "paper" / "replication_report.tex",
        moved / "results" / "report" / "generated",
        moved / "results",
    )
    assert list(again) == list(members)
    assert all(f.is_relative_to(moved) for f in again.values())
    tar = write_submission(members, tmp_path / "a.tar.gz", mtime=5)
    again = write_submission(copy.copy(members), tmp_path / "b.tar.gz", mtime=5)
    assert tar.read_bytes() == again.read_bytes()
    (results / "tables").mkdir()
    (results / "tables" / "t.csv").write_text("a\n")
    fls.write_text("\n".join([*lines, f"INPUT {results}/tables/t.csv"]) + "\n")
    with pytest.raises(InputError, match="csv"):
        submission_members(fls, paper / "replication_report.tex", gen, results)
